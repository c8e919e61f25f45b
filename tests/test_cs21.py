"""The CS21 assignment graded end to end in ONE batch: the reference, the starter, correct
programs written in other styles, single-bug mutants of the reference with their exact scores,
the sample class and do-nothing programs, all through one `grade-all --assignment cs21` run
(two workers, one gradebook).

Also: the course's rules data agrees with the reference, the reference's doctests (the seed's
examples) pass, the generated files have not drifted, the handout's samples are what the
reference prints and its promise table is the kit's (promises.toml), the public checks, the scenario
plan, and the Gradescope and release bundles of this course.
"""

from __future__ import annotations

import doctest
import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from helpers.programs import do_nothing, load

from autograder import toml as tomllib  # the one TOML shim
from autograder.assignment import load_assignment
from autograder.authoring import promises
from autograder.authoring.edits import apply_edits

ROOT = Path(__file__).resolve().parent.parent
CS21 = load_assignment("cs21")
FOLDER = CS21.root
SUBMISSIONS = sorted((ROOT / "tests" / "submissions" / "cs21").glob("*.py"))
MUTANTS = tomllib.loads(CS21.mutants.read_text(encoding="utf-8"))["mutant"]
TOTAL = CS21.total_points


DO_NOTHING = {"none": "return None", "zero": "return 0", "false": "return False", "empty-list": "return []",
              "raise": "raise ValueError('not done')", "pass": "pass", "input": "input()"}


def _load_reference():
    return load(CS21.reference, "cs21_reference")


@pytest.fixture(scope="module")
def rows(tmp_path_factory) -> dict[str, object]:
    """submission id -> gradebook Row, for every program of this module, graded in one grade-all."""
    from autograder.authoring.samples import sample_files
    from autograder.grading.grade_all import grade_all
    from autograder.grading.gradebook import Gradebook

    tmp = tmp_path_factory.mktemp("cs21-batch")
    source = tmp / "class"
    programs = {"reference": CS21.reference.read_text(encoding="utf-8"),
                "starter": CS21.starter.read_text(encoding="utf-8")}
    programs.update({f"submission-{p.stem}": p.read_text(encoding="utf-8") for p in SUBMISSIONS})
    reference = programs["reference"]
    programs.update({f"mutant-{m['name']}": apply_edits(reference, m["edits"]) for m in MUTANTS})
    programs.update({f"sample-{Path(path).stem}": text.decode("utf-8") for path, text in sample_files(CS21).items()})
    programs.update({f"nothing-{kind}": do_nothing("cs21", body) for kind, body in DO_NOTHING.items()})
    for name, text in programs.items():
        (source / name).mkdir(parents=True)
        (source / name / "cs21.py").write_text(text, encoding="utf-8")
    summary = grade_all(source, tmp / "out", assignment="cs21", jobs=2, progress=False, exports=False)
    assert summary.graded == len(programs) and not summary.crashed, summary
    with Gradebook(tmp / "out" / "gradebook.sqlite") as book:
        return {row.submission_id: row for row in book.rows("cs21")}


def _lost(row) -> dict[int, float]:
    lost: dict[int, float] = {}
    for test in row.tests:
        if test["score"] < test["max_score"]:
            lost[test["problem"]] = lost.get(test["problem"], 0) + test["max_score"] - test["score"]
    return lost


def _errors(row) -> list[str]:
    return [f"{t['name']}: {t['status']} {t['output']}" for t in row.tests if t["status"] == "error"]


# ---------------------------------------------------------------------------------------------
# The reference, the starter, correct programs
# ---------------------------------------------------------------------------------------------

def test_points_per_problem_match_the_table(rows):
    got: dict[int, float] = {}
    for test in rows["reference"].tests:
        got[test["problem"]] = round(got.get(test["problem"], 0) + test["max_score"], 4)
    assert got == {p.number: p.points for p in CS21.problems}
    assert TOTAL == 100


def test_reference_full_marks(rows):
    row = rows["reference"]
    assert not _errors(row) and not row.error
    assert row.score == TOTAL, _lost(row)


def test_starter_scores_zero_cleanly(rows):
    row = rows["starter"]
    assert not row.error and not _errors(row)
    assert row.score == 0
    for test in row.tests:
        assert test["status"] == "failed", test
        assert "not written yet" in test["output"], test["output"]


@pytest.mark.parametrize("path", SUBMISSIONS, ids=[p.stem for p in SUBMISSIONS])
def test_correct_submission_full_marks(rows, path):
    row = rows[f"submission-{path.stem}"]
    assert not _errors(row)
    assert row.score == TOTAL, [(t["name"], t["output"]) for t in row.tests if t["score"] < t["max_score"]]


def test_at_least_two_correct_submissions():
    assert len(SUBMISSIONS) >= 2


# ---------------------------------------------------------------------------------------------
# Mutants: exact scores, only their own stage, a feedback phrase, hidden checks data-free
# ---------------------------------------------------------------------------------------------

def test_enough_mutants_over_every_stage():
    assert len(MUTANTS) >= 15
    stages = {CS21.problem(p).stage for m in MUTANTS for p in m["problems"]}
    assert stages == {s.number for s in CS21.core_stages}


@pytest.mark.parametrize("mutant", MUTANTS, ids=[m["name"] for m in MUTANTS])
def test_mutant(rows, mutant):
    row = rows[f"mutant-{mutant['name']}"]
    assert not _errors(row) and not row.error
    assert row.score == pytest.approx(mutant["score"], abs=1e-4), _lost(row)
    lost = _lost(row)
    assert sorted(lost) == mutant["problems"]
    assert len({CS21.problem(p).stage for p in lost}) == 1, f"{mutant['name']} loses points in two stages: {lost}"
    feedback = " ".join(t["output"] for t in row.tests if t["score"] < t["max_score"]).lower()
    assert mutant["phrase"].lower() in feedback, feedback[:2000]


_DATA = re.compile(r"\[\d+, \d|\{'|Ran:|Your program printed")


def test_hidden_feedback_shows_no_data(rows):
    """A hidden check's failure says what it covers, never the call, the dice or the output."""
    shown = []
    for name, row in rows.items():
        for test in row.tests:
            if test.get("visibility") == "hidden" and test["score"] < test["max_score"] and _DATA.search(test["output"]):
                shown.append((name, test["name"], test["output"]))
    assert not shown, shown[:3]


@pytest.mark.parametrize("kind", sorted(DO_NOTHING))
def test_doing_nothing_scores_zero(rows, kind):
    """No points for nothing: functions that return None, 0, False or [], raise, or only ask."""
    row = rows[f"nothing-{kind}"]
    assert not _errors(row) and not row.error
    earned = [(t["name"], t["score"]) for t in row.tests if t["score"] > 0]
    assert earned == [] and row.score == 0, earned


def test_public_checks_pass_on_correct_programs_and_start_nowhere_on_the_starter():
    """`grade --public` (the same checks as check.py and the notebooks): every problem passes for
    the reference and both other styles (spacing is free, as the handout says); the starter has
    started none."""
    from autograder.grading.public import grade_public

    for path in [CS21.reference, *SUBMISSIONS]:
        statuses = {t.problem: t.status for t in grade_public(path, "cs21").tests}
        assert set(statuses.values()) == {"passed"}, (path.name, statuses)
    starter = grade_public(CS21.starter, "cs21").tests
    assert starter and {t.status for t in starter} == {"not started"}


def test_sample_class(rows):
    """The demo's class (samples.toml): the two correct ones full marks, the starter 0, a single
    bug loses points in its stage only, the student who wrote problem 1 gets exactly its points."""
    scores = {name[len("sample-"):]: row.score for name, row in rows.items() if name.startswith("sample-")}
    assert sorted(scores) == ["ada", "ben", "cho", "dev", "eve", "fay"]
    assert scores["ada"] == scores["ben"] == TOTAL and scores["fay"] == 0
    assert TOTAL - CS21.stage_points(1) < scores["cho"] < TOTAL
    assert TOTAL - CS21.stage_points(2) < scores["dev"] < TOTAL
    assert scores["eve"] == CS21.problem(1).points
    assert not any(_errors(rows[f"sample-{name}"]) for name in scores)


# ---------------------------------------------------------------------------------------------
# One source of truth
# ---------------------------------------------------------------------------------------------

def test_rules_data_agrees_with_the_reference():
    ref = _load_reference()
    rules, protocol = CS21.extra["rules"], CS21.extra["protocol"]
    assert ref.SLOTS == rules["slots"] and ref.UPPER_SLOTS == rules["upper_slots"]
    assert (ref.NUM_DICE, ref.NUM_FACES, ref.LETTERS, ref.REROLLS_PER_ROUND, ref.NUM_ROUNDS) == (
        rules["dice"], rules["faces"], rules["letters"], rules["rerolls_per_round"], rules["rounds"])
    assert {"Full Hse": ref.FULL_HOUSE_POINTS, "Sm Strt": ref.SMALL_STRAIGHT_POINTS,
            "Lg Strt": ref.LARGE_STRAIGHT_POINTS, "Yahtzee": ref.YAHTZEE_POINTS} == rules["fixed_scores"]
    assert (ref.UPPER_BONUS_THRESHOLD, ref.UPPER_BONUS_POINTS) == (
        rules["upper_bonus"]["threshold"], rules["upper_bonus"]["points"])
    assert ref.YAHTZEE_BONUS_POINTS == rules["yahtzee_bonus"]["points"]
    assert ref.SMALL_STRAIGHTS == rules["small_straights"] and ref.LARGE_STRAIGHTS == rules["large_straights"]
    assert rules["five_of_a_kind_is_full_house"] is True and ref.fullHouse([5, 5, 5, 5, 5]) == 25
    assert (ref.REROLL_PROMPT, ref.REROLL_REFUSED, ref.SLOT_PROMPT, ref.SLOT_UNKNOWN, ref.SLOT_USED) == (
        protocol["reroll_prompt"], protocol["reroll_refused"], protocol["slot_prompt"],
        protocol["slot_unknown"], protocol["slot_used"])


def test_reference_doctests_pass():
    result = doctest.testmod(_load_reference(), optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 55 and result.failed == 0


def test_seed_api_names_are_all_there():
    names = {f for p in CS21.problems for f in p.functions} | {"main"}
    seed = {"fullHouse", "hasAtLeastN", "hasExactlyN", "threeOfAKind", "fourOfAKind", "smallStraight",
            "largeStraight", "yahtzee", "sumDice", "sumOfN", "roll", "reroll", "showdice", "showscores", "main"}
    assert seed <= names
    ref = _load_reference()
    assert all(callable(getattr(ref, name)) for name in names)


def test_generated_files_are_current():
    from autograder.authoring.build import build_files

    problems, _ = build_files(check=True, names=["cs21"])
    assert problems == []
    assert (ROOT / "solution" / "cs21.py").read_bytes() == (FOLDER / "reference.py").read_bytes()


ECHO = """
import builtins, json, random, runpy, sys
answers = iter(json.loads(sys.argv[2]))
def echo(prompt=""):
    answer = next(answers)
    print(prompt + answer)          # as a terminal shows it: the prompt, then the answer typed
    return answer
builtins.input = echo
random.seed(int(sys.argv[1]))
path, sys.argv = sys.argv[3], sys.argv[3:]
runpy.run_path(path, run_name="__main__")
"""


def sample_transcript(seed: int, answers: list[str], argv: list[str] = ()) -> str:
    """What `python cs21.py ARGV` prints after random.seed(SEED), typed ANSWERS echoed."""
    done = subprocess.run([sys.executable, "-c", ECHO, str(seed), json.dumps(answers), str(CS21.reference), *argv],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return done.stdout


def handout_sample(title: str) -> tuple[dict, str]:
    """The (arguments, transcript) of the handout's sample under <!-- SAMPLE title {json} -->."""
    text = CS21.handout.read_text(encoding="utf-8")
    match = re.search(r"<!-- SAMPLE " + re.escape(title) + r" (?P<args>\{.*?\}) -->\n```text\n(?P<body>.*?)```",
                      text, re.DOTALL)
    assert match, f"the handout has no sample {title!r}"
    return json.loads(match["args"]), match["body"]


@pytest.mark.parametrize("title", ["round", "game"])
def test_handout_samples_are_what_the_reference_prints(title):
    args, body = handout_sample(title)
    assert sample_transcript(args["seed"], args["answers"], args.get("argv", [])) == body


def test_promise_table_is_the_kits():
    """cs21's promises are the kit's promise table (autograder/authoring/promises.py, promises.toml):
    every problem has a promise, every entry names collected checks, the handout's table is current.
    tests/test_promises.py also checks, for every course, that every check keeps some promise."""
    assert "promises" not in CS21.extra, "the old [[promises]] regex tables are gone from assignment.toml"
    assert promises.promises_file(CS21).is_file()
    handout = CS21.handout.read_text(encoding="utf-8")
    assert promises.update(CS21, handout) == (handout, [])
    found = promises.load_promises(CS21)
    checks = promises.collected_checks(CS21)
    assert len(checks) == 142
    assert [c for c in checks if not any(promises.matches(e, c) for p in found for e in p.checks)] == []


# ---------------------------------------------------------------------------------------------
# The kit's verbs for this course
# ---------------------------------------------------------------------------------------------

def test_gradescope_bundle_holds_this_assignment(tmp_path):
    out = tmp_path / "cs21.zip"
    done = subprocess.run([sys.executable, "-m", "autograder", "gradescope", str(out), "--assignment", "cs21"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    with zipfile.ZipFile(out) as archive:
        names = archive.namelist()
        run = archive.read("run_autograder").decode()
    assert "cs21" in run
    assert "autograder/assignments/cs21/assignment.toml" in names
    assert any(n.startswith("autograder/assignments/cs21/suites/test_stage4") for n in names)
    assert not [n for n in names if n.startswith(("autograder/assignments/yahtzee/", "autograder/assignments/pytzee/"))]
    from tests.test_gradescope import run_autograder

    data, _ = run_autograder(out, tmp_path / "gs", {"cs21.py": CS21.reference.read_text(encoding="utf-8")})
    assert data["score"] == TOTAL and sum(t["max_score"] for t in data["tests"]) == TOTAL


def test_release_bundle_for_this_course(tmp_path):
    """`release --assignment cs21`: the starter, the handout, check.py (it passes on the reference,
    or the release refuses) and the stage notebooks, with no solution in them."""
    from autograder.authoring.release import build_release

    out, _ = build_release(tmp_path / "bundle", stage=4, names=["cs21"])
    files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert {"cs21/cs21.py", "cs21/check.py", "cs21/handout-cs21.md"} <= set(files)
    assert [f for f in files if f.startswith("cs21/notebooks/")] == [
        f"cs21/notebooks/cs21_stage{n}.ipynb" for n in (1, 2, 3, 4)]
    assert (out / "cs21" / "cs21.py").read_text(encoding="utf-8") == CS21.starter.read_text(encoding="utf-8")


def test_scenario_plan_reproduces_and_verifies_the_seeded_games():
    """plan.py (`scenarios --assignment cs21`): the committed seeded games are what it finds from
    seed 100, and their covers (re-rolls, the upper bonus, a Yahtzee) still hold."""
    from autograder.authoring.scenarios import load_plan

    plan = load_plan(CS21)
    committed = CS21.scenarios_dir / plan.FILE
    assert plan.verify(CS21.reference, committed) == ([], len(plan.PLAN))
    text, count = plan.generate(CS21.reference, 100)
    assert text.rstrip("\n") == committed.read_text(encoding="utf-8").rstrip("\n") and count == len(plan.PLAN)
