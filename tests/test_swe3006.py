"""The SWE3006 assignment (a YahtzeeGame class, one or two players) graded end to end: the
reference, the starter, a do-nothing class, two correct programs in other styles and the
single-bug mutants of autograder/assignments/swe3006/mutants.toml with their exact scores,
all in ONE grading session (grade_stream); then grade-all and the Gradescope bundle on a few.
"""

from __future__ import annotations

import csv
import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from autograder import toml as tomllib  # the one TOML shim
from autograder.assignment import load_assignment
from autograder.authoring.samples import sample_files
from autograder.engine import reporters
from autograder.grading.grade import grade_stream

ROOT = Path(__file__).resolve().parent.parent
SPEC = load_assignment("swe3006")
REFERENCE = SPEC.root / "reference.py"
SUBMISSIONS = sorted((ROOT / "tests" / "submissions" / "swe3006").glob("*.py"))
MUTANTS = tomllib.loads((SPEC.root / "mutants.toml").read_text(encoding="utf-8"))["mutant"]
SAMPLES = tomllib.loads((SPEC.root / "samples.toml").read_text(encoding="utf-8"))["sample"]
DO_NOTHING = '''
class YahtzeeGame:
    def __init__(self):
        self.game_mode = 1
        self.current_round = 1
        self.current_player = 1
        self.dice_combination = []
        self.recorded_score_sheet = []

    def calculate_score(self):
        return {}

    def is_straight(self, dice_set, is_small):
        return False

    def get_valid_input(self, valid_cond, error_message, prompt, is_numeric_list):
        return [] if is_numeric_list else ""

    def roll_dices(self, kept_dices):
        return []

    def rolling_phase(self):
        pass

    def print_score_table(self, score_sheet):
        pass

    def recording_phase(self):
        pass

    def initialize_game(self):
        pass

    def get_option_choice(self):
        return "1"

    def print_score_info(self):
        pass

    def check_end_game(self):
        return False

    def play(self):
        pass
'''


def mutate(source: str, mutant: dict) -> str:
    for edit in mutant["edits"]:
        count = source.count(edit["find"])
        assert count == 1, f"{mutant['name']}: the edit's find text occurs {count} times in the reference"
        source = source.replace(edit["find"], edit["replace"])
    return source


@pytest.fixture(scope="module")
def programs(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("swe3006")
    reference = REFERENCE.read_text(encoding="utf-8")
    paths = {"reference": SPEC.solution, "starter": SPEC.starter}
    paths.update({f"submission:{p.stem}": p for p in SUBMISSIONS})
    (folder / "do_nothing").mkdir()
    paths["do-nothing"] = folder / "do_nothing" / "swe3006.py"
    paths["do-nothing"].write_text(DO_NOTHING, encoding="utf-8")
    for mutant in MUTANTS:
        path = folder / mutant["name"] / "swe3006.py"
        path.parent.mkdir()
        path.write_text(mutate(reference, mutant), encoding="utf-8")
        paths[f"mutant:{mutant['name']}"] = path
    for sample in SAMPLES:                  # those that are a mutant or the starter are graded as such
        if not _same_as(sample):
            path = folder / "samples" / sample["name"] / "swe3006.py"
            path.parent.mkdir(parents=True)
            path.write_bytes(sample_files(SPEC)[f"{sample['name']}.py"])
            paths[f"sample:{sample['name']}"] = path
    return paths


def _same_as(sample: dict) -> str | None:
    """The graded program a sample only differs from in its header: a mutant with the same
    edits, or the starter."""
    if sample.get("base") == "starter" and not sample.get("edits") and "header" not in sample:
        return "starter"
    return next((f"mutant:{m['name']}" for m in MUTANTS if m["edits"] == sample.get("edits")), None)


@pytest.fixture(scope="module")
def reports(programs) -> dict:
    """name -> GradeReport, every program graded in one session."""
    from autograder.engine.program import Program

    names = list(programs)
    got: list = []
    original = Program._variant_of
    substituting: list = []

    def spy(self, request):                 # see test_no_request_substitutes
        if request.substitute:
            substituting.append((request, self.also))     # (also: a retry's, engine/instage.py)
        return original(self, request)
    Program._variant_of = spy
    try:
        grade_stream(iter([programs[n] for n in names]), got.append, "swe3006")
    finally:
        Program._variant_of = original
    assert len(got) == len(names)
    SUBSTITUTING.extend(substituting)
    return dict(zip(names, got))


SUBSTITUTING: list = []


def test_checks_substitute_the_other_stages_methods(reports):
    """Charge once by construction: the checks of every stage that calls another stage's methods
    ask for the reference's methods of the other stages ("YahtzeeGame.method", the engine's method
    substitution), each keeping its own stage's methods, in a sandbox that holds no line of those."""
    from autograder.engine.lent import own_later
    from autograder.engine.program import reference_without

    kept = {tuple(r.substitute["keep"]) for r, also in SUBSTITUTING if also is None}
    # a failed check that ran beside the later stages' reference is run again with them kept as the
    # student's own (pass 23, engine/lent.py): those runs keep more (before pass 23, none of these)
    reference = REFERENCE.read_text(encoding="utf-8")
    confirming = {tuple(sorted(set(SPEC.substitution(stage)["keep"]) | own_later(SPEC, stage, reference)))
                  for stage in (2, 3)}
    stages = {tuple(SPEC.substitution(stage)["keep"]) for stage in (2, 3, 4)}     # (stage 3's keeps stage 4's)
    # stage 1's scoring calls no method of another stage: its checks need no substitution sandbox
    assert kept - (confirming - stages) == stages
    for request, _ in SUBSTITUTING:
        assert all(name.startswith("YahtzeeGame.") for name in request.substitute["names"])
    # a retry (engine/instage.py) keeps them but the failed problems' it takes from the reference too,
    # or, retrying a check of the student's own methods, every method but those
    every = {SPEC.qualified(f) for p in SPEC.problems for f in p.functions}
    for request, (drop, _, control) in ((r, also) for r, also in SUBSTITUTING if also is not None):
        keep = set(request.substitute["keep"])       # (its control run: the student's own versions, same life)
        assert drop and not keep & drop and (drop.isdisjoint(request.substitute["names"]) if control
                                             else drop <= set(request.substitute["names"]))
        assert keep == every - drop or any(keep == set(SPEC.substitution(stage)["keep"]) - drop for stage in (2, 3, 4))
    without = reference_without(REFERENCE.read_text(encoding="utf-8"), SPEC.substitution(3)["keep"])
    assert "def play(" not in without and "def calculate_score(" in without


def _lost(report) -> list[int]:
    return sorted(p for p, (got, top) in report.problem_scores().items() if got < top - 1e-6)


def _errors(report) -> list[str]:
    return [f"{t.name}: {t.output}" for t in report.tests if t.status == "error"]


# ---------------------------------------------------------------------------------------
# The table, the rules, the generated files
# ---------------------------------------------------------------------------------------

def test_points_add_up(reports):
    got: dict[int, float] = {}
    for test in reports["reference"].tests:
        got[test.problem] = round(got.get(test.problem, 0) + test.max_score, 4)
    assert got == {p.number: p.points for p in SPEC.problems}
    assert SPEC.total_points == 100


def test_solution_is_a_copy_of_the_reference_and_the_rules_match_it():
    assert SPEC.solution.read_text(encoding="utf-8") == REFERENCE.read_text(encoding="utf-8")
    namespace: dict = {"__name__": "swe3006_reference"}
    exec(compile(REFERENCE.read_text(encoding="utf-8"), str(REFERENCE), "exec"), namespace)
    rules, protocol = SPEC.extra["rules"], SPEC.extra["protocol"]
    assert namespace["CATEGORIES"] == rules["categories"]
    assert namespace["NUM_ROUNDS"] == rules["rounds"] and namespace["NUM_DICE"] == rules["dice"]
    assert {k: namespace[f"{k.upper().replace(' ', '_')}_POINTS"] for k in rules["fixed"]} == rules["fixed"]
    for key, message in protocol["warnings"].items():
        assert namespace[f"{key.upper()}_ERROR"] == message
    for name in ("MODE_PROMPT", "OPTION_PROMPT"):
        first = namespace[name].splitlines()[0]
        assert any(re.match(p, first) for k, p in protocol.items() if k.endswith("_prompt")), first
    for name in ("REROLL_PROMPT", "KEEP_PROMPT", "CATEGORY_PROMPT", "NEW_GAME"):
        assert any(re.match(p, namespace[name]) for p in protocol.values() if isinstance(p, str)), name


def test_generated_files_are_up_to_date():
    from autograder.assignments.swe3006 import sample
    from autograder.authoring.build import build

    assert build(check=True, names=["swe3006"]) == []
    text = SPEC.handout.read_text(encoding="utf-8")
    assert sample.render(text) == text, "the handout's sample game drifted: python -m autograder.assignments.swe3006.sample"
    assert "Current dice combination: [" in text and "[WARN] Invalid input." in text


# ---------------------------------------------------------------------------------------
# Correct programs, the starter, a do-nothing class
# ---------------------------------------------------------------------------------------

def test_reference_full_marks(reports):
    report = reports["reference"]
    assert not _errors(report) and not report.error
    assert report.score == pytest.approx(100), _lost(report)


@pytest.mark.parametrize("path", SUBMISSIONS, ids=[p.stem for p in SUBMISSIONS])
def test_correct_programs_in_other_styles_full_marks(reports, path):
    report = reports[f"submission:{path.stem}"]
    assert not _errors(report)
    assert report.score == pytest.approx(100), [(t.name, t.output) for t in report.tests if t.score < t.max_score]
    assert not [t for t in report.tests if "Not charged" in t.output]


def test_starter_scores_zero_cleanly(reports):
    report = reports["starter"]
    assert not report.error and not _errors(report)
    assert report.score == 0
    for test in report.tests:
        assert test.status == "failed", (test.name, test.status)
        assert "took too long" not in test.output, test.output
        assert "not written yet" in test.output, (test.name, test.output)


def test_a_class_that_does_nothing_scores_zero(reports):
    report = reports["do-nothing"]
    assert not _errors(report)
    assert report.score == 0, [(t.name, t.output) for t in report.tests if t.score]


# ---------------------------------------------------------------------------------------
# Single-bug mutants: exact scores, only their own stage, the bug named
# ---------------------------------------------------------------------------------------

def test_enough_mutants_over_every_stage():
    assert len(MUTANTS) >= 15
    assert len({m["name"] for m in MUTANTS}) == len(MUTANTS)
    stages = {SPEC.problem(p).stage for m in MUTANTS for p in m["problems"]}
    assert stages == {s.number for s in SPEC.core_stages}
    for mutant in MUTANTS:
        assert {"name", "why", "edits", "phrase", "problems", "score"} <= set(mutant), mutant["name"]
        assert len({SPEC.problem(p).stage for p in mutant["problems"]}) == 1, f"{mutant['name']} crosses stages"


@pytest.mark.parametrize("mutant", MUTANTS, ids=[m["name"] for m in MUTANTS])
def test_mutant(reports, mutant):
    report = reports[f"mutant:{mutant['name']}"]
    lost = _lost(report)
    summary = f"{mutant['name']}: score {report.score:.4f}, lost points in problems {lost}"
    assert not _errors(report), summary
    assert lost == sorted(mutant["problems"]), summary
    assert report.score == pytest.approx(mutant["score"], abs=1e-3), summary
    text = reporters.to_text(report)
    assert mutant["phrase"].lower() in text.lower(), f"{summary}; the feedback never says {mutant['phrase']!r}"


def test_hidden_feedback_has_no_data(reports):
    for name, report in reports.items():
        for test in report.tests:
            if test.visibility != "hidden" or test.status == "passed":
                continue
            for leak in ("Ran:", "Expected:", "Got:", "Your program printed", "random.seed"):
                assert leak not in test.output, (name, test.name, test.output)
            assert not re.search(r"\[\d", test.output), (name, test.name, test.output)


@pytest.mark.parametrize("sample", SAMPLES, ids=[s["name"] for s in SAMPLES])
def test_sample_class(reports, sample):
    """samples.toml: each sample student's score."""
    report = reports[_same_as(sample) or f"sample:{sample['name']}"]
    assert not _errors(report)
    assert report.score == pytest.approx(sample["score"], abs=1e-3), (sample["name"], report.score)


def _integration_ids() -> set[str]:
    """The own_functions checks' case ids (`integration = true` in the scenarios)."""
    found = set()
    for name in ("turn", "games"):
        for table in tomllib.loads((SPEC.scenarios_dir / f"{name}.toml").read_text(encoding="utf-8")).values():
            found.update(case["id"] for case in table if isinstance(case, dict) and case.get("integration"))
    return found


def test_later_stages_run_the_references_methods(reports):
    """Charge once by construction: with the reference's calculate_score set on the student's
    class, no check of stages 2-4 sees a stage-1 bug but the one integration check per stage (the
    student's own methods), which is not charged again (its note names problem 1's failed check)."""
    integration = _integration_ids()
    assert len(integration) == 3
    report = reports["mutant:upper-counts-not-sums"]
    excused = {t.test_id.split("[", 1)[1].rstrip("]").split(": ", 1)[-1] for t in report.tests
               if "Not charged" in t.output}
    assert excused == integration
    # logic copied into recording_phase cannot be substituted: its checks name a score's aspect
    # ("score: Twos"), which P1's failures show too, and engine/charge.py charges it once
    inlined = reports["mutant:inlined-scoring-with-upper-counts"]
    notes = [t for t in inlined.tests if "Not charged" in t.output]
    assert {t.problem for t in notes} == {7, 11, 12}
    assert all(t.score == t.max_score and "P1" in t.output and "stage 1" in t.output for t in notes)
    by_charge = [t for t in notes if t.output.startswith('Not charged: stems from P1 "Scoring: ')]
    assert {t.problem for t in by_charge} == {7} and len(by_charge) == 4
    # the same program with the copy called by its name: the reference's scoring runs, nothing differs
    assert not [t for t in reports["mutant:upper-counts-not-sums"].tests
                if t.problem == 7 and t.output.startswith("Not charged: stems from")]


def test_aspects_name_what_differed_in_the_graders_words():
    """What engine/charge.py matches across stages (no sandbox: the suite's line reading and
    aspects on hand-made text)."""
    from autograder.assignments.swe3006.suites.common import attribute_aspect, line_aspect, protocol_lines

    ref = protocol_lines("Round 1\n  |  Twos   |   4 |\nCurrent score: 4\n")
    assert [line.kind for line in ref] == ["round", "row", "current"]
    assert protocol_lines("Round 1\n| Twos | 4 |\nCurrent score: 4") == ref        # spacing, bars free
    assert line_aspect(protocol_lines("Round 1\n| Twos | 2 |\n"), ref, 1) == "score: Twos"
    assert line_aspect(protocol_lines("Round 1\nCurrent dice combination: [1, 2, 3, 4, 5]\n"), ref, 1) == \
        "row line: printed a dice line"
    assert line_aspect(protocol_lines("Round 1\n"), ref, 1) == "row line missing"
    assert line_aspect(protocol_lines("Round 2\n"), ref, 0) == "round line differs"
    sheet = protocol_lines("| Aces | - |\n| Twos | 4 |\n")        # what a sheet holds, whichever category
    assert line_aspect(protocol_lines("| Aces | 3 |\n"), sheet, 0) == \
        "a sheet: a category not recorded shown with a score"
    assert line_aspect(protocol_lines("| Aces | - |\n| Twos | - |\n"), sheet, 1) == "a sheet: a recorded category shown as -"
    assert attribute_aspect("recorded_score_sheet", [{"Twos": 2}], [{"Twos": 4}]) == "score: Twos"
    assert attribute_aspect("recorded_score_sheet", [{"Aces": 2}], [{"Twos": 4}]) == "attribute: recorded_score_sheet"
    assert attribute_aspect("current_round", 3, 2) == "attribute: current_round"


def test_a_method_two_stages_grade_is_charged_once_by_its_aspect(reports):
    """play is graded in stages 3 and 4 (P11, P12) and leads to the two players' end (P13,
    [[stems]]): sheet-then-roll's P11 bug shows in a P13 game as the same first difference (a dice
    line where the round line belongs), which engine/charge.py does not charge again."""
    report = reports["mutant:sheet-then-roll"]
    by_charge = [t for t in report.tests if t.output.startswith('Not charged: stems from P11 "The game: ')]
    assert [t.problem for t in by_charge] == [13] and all(t.score == t.max_score for t in by_charge)
    assert "(stage 3)" in by_charge[0].output


def test_an_inlined_copy_of_an_earlier_method_is_charged_once(reports):
    """initialize_game asking for the mode with its own copy of get_valid_input's loop, with the
    same bug (no [WARN] tag): its check fails the way P3's do and is not charged again, so the
    program scores exactly what the bug costs in get_valid_input alone."""
    inlined, alone = reports["mutant:inlined-input-loop-without-warn-tag"], reports["mutant:warn-without-tag"]
    notes = [t for t in inlined.tests if t.output.startswith('Not charged: stems from P3 "One turn: ')]
    assert {t.problem for t in notes} == {8}
    assert inlined.score == pytest.approx(alone.score, abs=1e-9)


def test_an_earlier_stages_bug_is_not_charged_again(reports):
    """A stage-1 bug shows in the tables of every later game: those checks say where it comes from."""
    report = reports["mutant:upper-counts-not-sums"]
    excused = [t for t in report.tests if "Not charged" in t.output]
    assert excused and all(t.stage > 1 and t.score == t.max_score for t in excused)
    assert all('P1 Scoring: ' in t.output and "stage 1" in t.output for t in excused)


# ---------------------------------------------------------------------------------------
# grade-all and the Gradescope bundle
# ---------------------------------------------------------------------------------------

def test_grade_all_a_class(programs, tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    for student, key in (("ann", "reference"), ("bob", "starter"), ("cid", "mutant:no-tie")):
        (folder / f"{student}.py").write_text(programs[key].read_text(encoding="utf-8"), encoding="utf-8")
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "autograder", "grade-all", str(folder), "--assignment", "swe3006",
                           "--out", str(out), "--jobs", "1"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    with (out / "grades.csv").open(encoding="utf-8") as handle:
        rows = {row["id"]: row for row in csv.DictReader(handle)}
    no_tie = next(m for m in MUTANTS if m["name"] == "no-tie")
    assert float(rows["ann"]["total"]) == pytest.approx(100)
    assert float(rows["bob"]["total"]) == 0
    assert float(rows["cid"]["total"]) == pytest.approx(no_tie["score"], abs=0.01)   # the CSV: 2 decimals


def test_gradescope_bundle_grades_the_reference(tmp_path):
    from autograder.platforms.gradescope import build_bundle

    bundle = tmp_path / "swe3006.zip"
    names = build_bundle(bundle, "swe3006")
    assert "autograder/assignments/swe3006/reference.py" in names
    assert not [n for n in names if "/assignments/yahtzee/" in n or "/assignments/pytzee/" in n]
    top = tmp_path / "gs" / "autograder"
    source, submission, results = top / "source", top / "submission", top / "results"
    for path in (source, submission, results):
        path.mkdir(parents=True)
    with zipfile.ZipFile(bundle) as archive:
        archive.extractall(source)
    (source / "run_autograder").chmod(0o755)
    (submission / "swe3006.py").write_text(REFERENCE.read_text(encoding="utf-8"), encoding="utf-8")
    env = dict(os.environ, AUTOGRADER_ROOT=str(top), AUTOGRADER_PYTHON=sys.executable)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env.pop("PYTHONPATH", None)
    done = subprocess.run([str(source / "run_autograder")], cwd=top, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    data = json.loads((results / "results.json").read_text(encoding="utf-8"))
    assert data["score"] == pytest.approx(100)
    assert sum(t["max_score"] for t in data["tests"]) == pytest.approx(100)


def test_release_bundle(tmp_path):
    """The student bundle: the starter, the handout, check.py (the public checks: docstring
    examples of the methods) and the released stage's notebook, with no solution line of the
    released stage or later."""
    from autograder.authoring.release import build_release

    out, notes = build_release(tmp_path / "release", 1, ["swe3006"])
    folder = Path(out) / "swe3006"
    files = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
    assert files == ["check.py", "handout-swe3006.md", "notebooks/swe3006_stage1.ipynb", "swe3006.py"]
    assert (folder / "swe3006.py").read_text(encoding="utf-8") == SPEC.starter.read_text(encoding="utf-8")
    done = subprocess.run([sys.executable, "check.py", str(SPEC.solution)], cwd=folder, capture_output=True,
                          text=True, timeout=120)
    every = len(SPEC.problems)         # the notebooks' public checks: every problem has some
    assert f"{every} of {every} problems pass" in done.stdout, done.stdout + done.stderr
    done = subprocess.run([sys.executable, "check.py", "swe3006.py"], cwd=folder, capture_output=True,
                          text=True, timeout=120)
    assert f"0 of {every} problems pass" in done.stdout, done.stdout + done.stderr


def test_scenario_plan_reproduces_and_verifies_the_games():
    """scenarios/games.toml is plan.py's output (seed 1), every game reaches its end with the
    reference and the tie game ties (`python -m autograder scenarios --assignment swe3006 --check`)."""
    from autograder.authoring.scenarios import load_plan

    plan = load_plan(SPEC)
    committed = SPEC.scenarios_dir / plan.FILE
    text, count = plan.generate(SPEC.reference, 1)
    assert text == committed.read_text(encoding="utf-8"), "games.toml drifted from plan.py"
    problems, checked = plan.verify(SPEC.reference, committed)
    assert problems == [] and checked == count == 9


def test_public_checks_pass_for_the_correct_programs():
    """grade --public (the methods' docstring examples, run in the sandbox) passes every program
    that gets full marks, and fails the starter."""
    from autograder.grading.grade import grade

    for path in SUBMISSIONS:
        report = grade(path, "swe3006", public_only=True)
        assert report.tests and all(t.status == "passed" for t in report.tests), (path.name, report.tests)
    report = grade(SPEC.starter, "swe3006", public_only=True)
    assert report.tests and not any(t.status == "passed" for t in report.tests)
