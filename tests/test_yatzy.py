"""The Yatzy course graded end to end: the reference, the starter, two correct submissions in
other styles and the single-bug mutants of mutants.toml with their exact scores, all graded in
ONE grading session (tests/helpers/yatzy_batch.py) run in a child process once per module; the rules
data against the reference; the handout's sample game; the build drift check; grade-all and
the Gradescope bundle for --assignment yatzy.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import zipfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest
from helpers import yatzy_batch
from helpers.programs import assert_printed_in_order, load

from autograder.assignment import load_assignment

ROOT = Path(__file__).resolve().parent.parent
YATZY = load_assignment("yatzy")
FOLDER = ROOT / "autograder" / "assignments" / "yatzy"
TOTAL = YATZY.total_points
MUTANTS = yatzy_batch.MUTANTS
SUBMISSIONS = yatzy_batch.SUBMISSIONS
LEAKS = (r"Ran:", r"printed \(end\)", r"but expected", r"Got:", r"Dice: [1-6]", r"random\.seed\(\d")


def _grade_half(paths: dict[str, str]) -> dict[str, dict]:
    return yatzy_batch.grade_all(paths)


@pytest.fixture(scope="module")
def reports(tmp_path_factory) -> dict[str, dict]:
    """name -> report of every program, in two grading sessions (one per core), each in a child."""
    jobs = yatzy_batch.jobs(tmp_path_factory.mktemp("yatzy-programs"))
    names = list(jobs)
    halves = [{n: jobs[n] for n in names[0::2]}, {n: jobs[n] for n in names[1::2]}]
    with ProcessPoolExecutor(2) as pool:
        found: dict[str, dict] = {}
        for part in pool.map(_grade_half, halves):
            found.update(part)
    assert set(found) == set(jobs)
    return found


def _errors(report: dict) -> list[str]:
    return [f"{t['name']}: {t['output']}" for t in report["tests"] if t["status"] == "error"]


# ---------------------------------------------------------------------------------------
# The reference, the starter, correct submissions
# ---------------------------------------------------------------------------------------

def test_points_per_problem_match_the_table(reports):
    got: dict[int, float] = {}
    for test in reports["reference"]["tests"]:
        got[test["problem"]] = round(got.get(test["problem"], 0) + test["max_score"], 4)
    assert got == {p.number: p.points for p in YATZY.problems}
    assert TOTAL == 100
    assert [YATZY.stage_points(s) for s in (1, 2, 3, 4)] == [30, 30, 20, 20]


def test_reference_full_marks(reports):
    report = reports["reference"]
    assert not _errors(report) and not report["error"]
    assert report["score"] == TOTAL, yatzy_batch.lost(report)


def test_starter_scores_zero_cleanly(reports):
    report = reports["starter"]
    assert not report["error"] and not _errors(report)
    assert report["score"] == 0
    for test in report["tests"]:
        assert test["status"] == "failed", test
        assert "took too long" not in test["output"] and "in time" not in test["output"], test
        assert "not written yet" in test["output"] or "Not counted yet" in test["output"], test


@pytest.mark.parametrize("kind", sorted(yatzy_batch.NOTHING))
def test_doing_nothing_scores_zero(reports, kind):
    """Every student function replaced by `return None` (0, [], pass): no points for nothing."""
    report = reports[f"nothing:{kind}"]
    assert not report["error"] and not _errors(report)
    assert report["score"] == 0, [(t["name"], t["output"]) for t in report["tests"] if t["score"] > 0]


@pytest.mark.parametrize("path", SUBMISSIONS, ids=[p.stem for p in SUBMISSIONS])
def test_correct_submission_full_marks(reports, path):
    report = reports[f"submission:{path.stem}"]
    assert not _errors(report) and not report["error"]
    assert report["score"] == TOTAL, [(t["name"], t["output"]) for t in report["tests"] if t["score"] < t["max_score"]]


def test_at_least_two_correct_submissions():
    assert len(SUBMISSIONS) >= 2


def test_every_problem_has_public_and_hidden_checks(reports):
    kinds: dict[int, set] = {}
    for test in reports["reference"]["tests"]:
        kinds.setdefault(test["problem"], set()).add(test["visibility"])
    stages_public = {YATZY.problem(p).stage for p, seen in kinds.items() if "visible" in seen}
    assert stages_public == {1, 2, 3, 4}
    assert all("hidden" in seen for seen in kinds.values()), kinds


# ---------------------------------------------------------------------------------------
# Mutants: exact scores, points lost in one stage only, feedback that names the bug
# ---------------------------------------------------------------------------------------

def test_enough_mutants_over_every_stage():
    assert len(MUTANTS) >= 15
    stages = {YATZY.problem(p).stage for m in MUTANTS for p in m["problems"]}
    assert stages == {1, 2, 3, 4}


@pytest.mark.parametrize("mutant", MUTANTS, ids=[m["name"] for m in MUTANTS])
def test_mutant(reports, mutant):
    report = reports[f"mutant:{mutant['name']}"]
    assert not _errors(report) and not report["error"], _errors(report)
    lost = yatzy_batch.lost(report)
    assert sorted(lost) == sorted(mutant["problems"]), lost
    assert len({YATZY.problem(p).stage for p in lost}) == 1, f"charged in more than one stage: {lost}"
    assert report["score"] == pytest.approx(mutant["score"], abs=1e-6), lost
    failed = [t for t in report["tests"] if t["score"] < t["max_score"]]
    for test in failed:
        assert "took too long" not in test["output"], test
        if test["visibility"] == "hidden":       # no call, dice, answers, expected value or output
            for leak in LEAKS:
                assert not re.search(leak, test["output"]), test
    phrase = mutant["phrase"].lower()
    assert any(phrase in (t["name"] + "\n" + t["output"]).lower() for t in failed), \
        [(t["name"], t["output"]) for t in failed]


def test_game_feedback_names_the_round_and_the_player(reports):
    """First-divergence feedback of a public game: where (round, category, player, roll), and what."""
    report = reports["mutant:rounds-by-player"]
    public = [t for t in report["tests"] if t["visibility"] == "visible" and t["score"] < t["max_score"]
              and "whole game" in t["name"]]
    assert public, [t["name"] for t in report["tests"] if t["score"] < t["max_score"]]
    text = public[0]["output"]
    assert re.match(r"In round 1 \(Ones\), \w+'s turn: expected 'Player: \w+', but your game printed "
                    r"'Round 2: Twos'", text), text


def test_game_feedback_gives_the_engine_replays_cause_of_differing_dice(reports):
    """Where the dice first differ, the engine's replay (engine/divergence.py, read with the
    course's [protocol]) names the likely cause, also in a hidden check (data-free)."""
    report = reports["mutant:game-seeds-random"]
    hidden = [t["output"] for t in report["tests"] if t["visibility"] == "hidden" and t["score"] < t["max_score"]
              and "dice line" in t["output"]]
    assert hidden and all("Likely cause: random.seed was called" in text for text in hidden), hidden
    assert all("Remove the call to random.seed" in text for text in hidden)


# ---------------------------------------------------------------------------------------
# The rules as data agree with the reference; the handout's sample game is the reference's
# ---------------------------------------------------------------------------------------

def _reference_module():
    return load(FOLDER / "reference.py", "yatzy_reference_under_test")


def test_rules_data_match_the_reference():
    module = _reference_module()
    rules = YATZY.extra["rules"]
    assert module.CATEGORIES == rules["categories"]
    assert module.UPPER_CATEGORIES == rules["upper_bonus"]["categories"]
    assert (module.UPPER_BONUS_THRESHOLD, module.UPPER_BONUS_POINTS) == (63, 50) == \
        (rules["upper_bonus"]["threshold"], rules["upper_bonus"]["points"])
    assert module.SMALL_STRAIGHT == rules["small_straight"]["faces"]
    assert module.SMALL_STRAIGHT_POINTS == rules["small_straight"]["points"]
    assert module.LARGE_STRAIGHT == rules["large_straight"]["faces"]
    assert module.LARGE_STRAIGHT_POINTS == rules["large_straight"]["points"]
    assert module.YATZY_POINTS == rules["yatzy"]
    assert (module.NUM_DICE, module.NUM_FACES, module.ROLLS_PER_TURN) == \
        (rules["dice"], rules["faces"], rules["rolls_per_turn"])
    assert all(callable(getattr(module, name)) for name in rules["helpers"])


def test_handout_promise_table_is_the_suites(reports):
    """The handout's table of checks is what the reference's grade lists (regenerate: python
    tests/helpers/yatzy_batch.py --write)."""
    assert yatzy_batch.promise_table(reports["reference"]) in YATZY.handout.read_text(encoding="utf-8")


def test_solution_is_a_copy_of_the_reference():
    assert (ROOT / "solution" / "yatzy.py").read_bytes() == (FOLDER / "reference.py").read_bytes()


def test_build_check():
    from autograder.authoring.build import build
    assert build(check=True, names=["yatzy"]) == []


def test_handout_sample_game_is_the_references():
    """The sample game of the handout is what the reference prints on its seed and answers
    (input echoed as at a terminal; lines shown as `...` are cut)."""
    from autograder.engine.program import Program
    text = YATZY.handout.read_text(encoding="utf-8")
    block = text.split("## A sample game", 1)[1].split("```", 4)[3]
    lines = block.strip("\n").splitlines()
    assert lines[0].startswith("$ python yatzy.py ")
    seed = int(lines[0].split()[-1])
    shown = [line for line in lines[1:] if line.strip() != "..."]
    script = text.split("## A sample game", 1)[1].split("```", 2)[1]
    answers = re.findall(r"'([^']*)'", script.split("printf", 1)[1].split("|", 1)[0])[1:]   # [0]: '%s\\n'
    program = Program((FOLDER / "reference.py").read_text(encoding="utf-8"), "yatzy.py", hidden_paths=[str(ROOT)])
    try:
        outcome = program.call("play_game", stdin=answers, seed=seed, timeout=10)
    finally:
        program.close()
    assert outcome.status == "ok", outcome.message
    assert_printed_in_order(shown, outcome.stdout.splitlines())


# ---------------------------------------------------------------------------------------
# The verbs for --assignment yatzy
# ---------------------------------------------------------------------------------------

SAMPLES = yatzy_batch.tomllib.loads((FOLDER / "samples.toml").read_text(encoding="utf-8"))["sample"]


def sample_class(folder: Path) -> None:
    """Write the sample class of samples.toml into FOLDER, one file per student."""
    from autograder.authoring.samples import write_class
    write_class(YATZY, folder)


def test_grade_all_cli_on_the_sample_class(tmp_path):
    """grade-all --assignment yatzy over the sample class of samples.toml: the gradebook has every
    student with the kind of score the sample promises."""
    class_dir = tmp_path / "class"
    class_dir.mkdir()
    sample_class(class_dir)
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "autograder", "grade-all", str(class_dir), "--assignment", "yatzy",
                           "--out", str(out), "--jobs", "2"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    rows = {row["id"]: row for row in json.loads((out / "grades.json").read_text(encoding="utf-8"))["students"]}
    assert set(rows) == {s["name"] for s in SAMPLES}, sorted(rows)
    for sample in SAMPLES:
        row = rows[sample["name"]]
        score = row["total"]
        expect = sample["expect"]
        if expect == "full":
            assert score == TOTAL, (sample["name"], row)
        elif expect == "zero":
            assert score == 0 and not row.get("error"), (sample["name"], row)
        elif expect == "error":
            assert score == 0 and row.get("error"), (sample["name"], row)
        else:
            assert 0 < score < TOTAL, (sample["name"], row)


def test_gradescope_bundle_holds_the_course(tmp_path):
    from autograder.platforms.gradescope import build_bundle
    members = build_bundle(tmp_path / "yatzy.zip", "yatzy")
    names = set(zipfile.ZipFile(tmp_path / "yatzy.zip").namelist())
    assert set(members) == names
    assert any(n.endswith("assignments/yatzy/assignment.toml") for n in names)
    assert any(n.endswith("assignments/yatzy/suites/test_stage4_game.py") for n in names)
    assert any(n.endswith("yatzy/scenarios/games.toml") for n in names)
    assert not any("/yahtzee/" in n or "/pytzee/" in n for n in names), sorted(names)
    script = zipfile.ZipFile(tmp_path / "yatzy.zip").read("run_autograder").decode()
    assert "--assignment yatzy" in script or "yatzy" in script


def test_gradescope_run_autograder_on_the_reference(tmp_path):
    """The bundle's run_autograder grades the reference full marks (Gradescope's layout, scratch tree)."""
    from test_gradescope import run_autograder

    from autograder.platforms.gradescope import build_bundle
    bundle = tmp_path / "yatzy.zip"
    build_bundle(bundle, "yatzy")
    data, _ = run_autograder(bundle, tmp_path / "gs", {"yatzy.py": (FOLDER / "reference.py").read_text()})
    assert data["score"] == TOTAL == sum(test["max_score"] for test in data["tests"])
    assert all(test["status"] == "passed" for test in data["tests"])


SELF_CHECKED = ["pair-lowest", "no-shuffle"]   # (and the reference and the starter): one stage 1, one stage 4


def test_public_checks_agree_with_check_py(tmp_path):
    """`grade --public` (in the sandbox) and the bundle's check.py give every problem the same status,
    on the reference (all passed), the starter (all not started) and mutants of every stage."""
    from autograder.authoring.release import build_release
    from autograder.engine.reporters import problem_statuses
    bundle, _ = build_release(tmp_path / "release", stage=4, names=["yatzy"])
    reference = (FOLDER / "reference.py").read_text(encoding="utf-8")
    sources = {"reference": reference, "starter": (ROOT / "starter" / "yatzy.py").read_text(encoding="utf-8")}
    sources.update({m["name"]: yatzy_batch.apply_edits(reference, m["edits"]) for m in MUTANTS
                    if m["name"] in SELF_CHECKED})
    from autograder.grading.grade import grade
    for label, source in sources.items():
        path = tmp_path / label / "yatzy.py"
        path.parent.mkdir()
        path.write_text(source, encoding="utf-8")
        by_grader = problem_statuses(grade(path, "yatzy", public_only=True))
        done = subprocess.run([sys.executable, str(bundle / "yatzy" / "check.py"), str(path), "--json"],
                              capture_output=True, text=True, timeout=600, cwd=str(path.parent))
        by_script = json.loads(done.stdout)["problems"]
        assert by_grader == by_script, label
        if label == "reference":
            assert set(by_script.values()) == {"passed"}
        elif label == "starter":
            assert set(by_script.values()) == {"not started"}
