"""Self-validation of the Yahtzee grader (the stage suites, the scenarios, the CLI).

The reference must score full marks on every stage; the starter 0 without a grader error;
correct solutions written differently (tests/submissions/yahtzee/) full marks; points per
problem must match the problem table; public scenarios are visible checks and hidden ones
hidden; the scenario generator's covers still hold; one grade takes well under a second.
"""

from __future__ import annotations

import json
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from autograder import toml as tomllib  # the one TOML shim
from autograder.assignment import load_assignment
from autograder.assignments.yahtzee import plan as scenario_plan
from autograder.grading.grade import grade

ROOT = Path(__file__).resolve().parent.parent
SPEC = load_assignment("yahtzee")
SOLUTION = ROOT / "solution" / "yahtzee.py"
STARTER = ROOT / "starter" / "yahtzee.py"
SUBMISSIONS = sorted((ROOT / "tests" / "submissions" / "yahtzee").glob("*.py"))
SCENARIOS = SPEC.scenarios_dir


@cache
def graded(path: str, stage: str = "all", public_only: bool = False):
    return grade(path, "yahtzee", stage=stage, public_only=public_only)


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "autograder", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)


def scenario(name: str) -> dict:
    return tomllib.loads((SCENARIOS / f"{name}.toml").read_text(encoding="utf-8"))


# --- the reference, the starter, other correct solutions -----------------------------------------

def test_reference_full_marks_in_total():
    report = graded(str(SOLUTION))
    failing = [(t.name, t.output) for t in report.tests if t.status != "passed"]
    assert not failing
    assert report.score == pytest.approx(100)
    assert report.max_score == pytest.approx(100)


@pytest.mark.parametrize("stage", [1, 2, 3, 4])
def test_reference_full_marks_per_stage(stage):
    report = graded(str(SOLUTION), str(stage))
    assert report.tests
    assert all(t.stage == stage for t in report.tests)
    assert report.score == pytest.approx(SPEC.stage_points(stage))
    assert report.max_score == pytest.approx(SPEC.stage_points(stage))


def test_starter_scores_zero_without_grader_errors():
    report = graded(str(STARTER))
    assert report.score == 0
    assert not [t.name for t in report.tests if t.status == "error"]
    assert not [t.name for t in report.tests if "took too long" in t.output]
    assert report.max_score == pytest.approx(100)


@pytest.mark.parametrize("path", SUBMISSIONS, ids=[p.stem for p in SUBMISSIONS])
def test_other_correct_solutions_full_marks(path):
    report = graded(str(path))
    failing = [(t.name, t.output) for t in report.tests if t.status != "passed"]
    assert not failing
    assert report.score == pytest.approx(100)


def test_at_least_three_other_solutions():
    assert len(SUBMISSIONS) >= 3


# --- points and visibility -----------------------------------------------------------------------

def test_points_per_problem_match_the_table():
    report = graded(str(SOLUTION))
    per_problem = {number: top for number, (_, top) in report.problem_scores().items()}
    table = {p.number: p.points for p in SPEC.problems if not SPEC.is_optional(p.stage)}   # stage 5: test_stage5
    assert set(per_problem) == set(table)
    for number, points in table.items():
        assert per_problem[number] == pytest.approx(points, abs=1e-6), f"problem {number}"


def test_about_a_third_of_each_problems_checks_public():
    report = graded(str(SOLUTION))
    for problem in SPEC.problems:
        if SPEC.is_optional(problem.stage):
            continue                    # stage 5: its own test (test_stage5.py)
        tests = [t for t in report.tests if t.problem == problem.number]
        public = [t for t in tests if t.visibility == "visible"]
        assert public, f"problem {problem.number} has no public check"
        assert len(public) < len(tests), f"problem {problem.number} has no hidden check"
        if problem.stage > 1:
            assert 0.15 <= len(public) / len(tests) <= 0.55, (problem.number, len(public), len(tests))


def _param(test_id: str) -> str:
    return test_id[test_id.index("[") + 1:-1] if "[" in test_id else ""


# (scenario file, table, test function, the test's id for a case)
SCENARIO_TESTS = [
    ("round", "format_dice", "test_format_dice", lambda c: c["why"]),
    ("round", "parse_keep", "test_parse_keep", lambda c: c["why"]),
    ("round", "reroll", "test_reroll", lambda c: c["why"]),
    ("round", "ask_keep", "test_ask_keep", lambda c: c["why"]),
    ("round", "find_category", "test_find_category", lambda c: c["why"]),
    ("round", "ask_category", "test_ask_category", lambda c: c["why"]),
    ("round", "play_round", "test_play_round", lambda c: c["why"]),
    ("scorecard", "final_score", "test_final_score", lambda c: c["why"]),
    ("scorecard", "format_scorecard", "test_format_scorecard", lambda c: c["why"]),
    ("bonus", "upper_bonus", "test_upper_bonus", lambda c: c["why"]),
    ("bonus", "is_joker", "test_joker_helpers", lambda c: f"is_joker: {c['why']}"),
    ("bonus", "yahtzee_bonus", "test_joker_helpers", lambda c: f"yahtzee_bonus: {c['why']}"),
    ("bonus", "joker_categories", "test_joker_helpers", lambda c: f"joker_categories: {c['why']}"),
    ("bonus", "joker_score", "test_joker_helpers", lambda c: f"joker_score: {c['why']}"),
    ("bonus", "play_round", "test_joker_round", lambda c: c["why"]),
    ("bonus", "final_score", "test_final_score_bonuses", lambda c: c["why"]),
    ("bonus", "format_scorecard", "test_format_scorecard_bonuses", lambda c: c["why"]),
]


def test_public_scenarios_are_visible_and_hidden_ones_hidden():
    report = graded(str(SOLUTION))
    by_id: dict[tuple[str, str], str] = {}
    for test in report.tests:
        func = test.test_id.split("::")[-1].split("[")[0]
        by_id[(func, _param(test.test_id))] = test.visibility
    for file, table, func, ident in SCENARIO_TESTS:
        for case in scenario(file)[table]:
            key = (func, ident(case))
            assert key in by_id, f"no check for {file}.toml [{table}] {case['why']!r}"
            assert by_id[key] == ("visible" if case.get("public") else "hidden"), key
    game_checks = [t for t in report.tests if "game" in t.test_id.split("::")[-1] and "[" in t.test_id]
    games = {game["name"]: game for game in scenario("games")["game"]}
    assert game_checks
    for test in game_checks:
        game = games[_param(test.test_id)]
        assert test.visibility == ("visible" if game.get("public") else "hidden"), test.test_id


def test_hidden_check_names_hold_no_data():
    report = graded(str(SOLUTION))
    for test in report.tests:
        if test.visibility == "hidden" and test.stage > 1:
            assert "[" not in test.name and "=" not in test.name and '"' not in test.name, test.name


# --- scenarios ------------------------------------------------------------------------------------

def _upper(filled: dict) -> int:
    return sum(filled.get(c, 0) for c in ("Ones", "Twos", "Threes", "Fours", "Fives", "Sixes"))


def test_stage3_cards_hold_no_bonus():
    """A student who has not reached stage 4 must be able to pass stage 3."""
    for table in ("final_score", "format_scorecard"):
        for case in scenario("scorecard")[table]:
            assert _upper(case["filled"]) < 63, case["why"]
            assert case.get("bonus", 0) == 0, case["why"]


def test_stage3_games_hold_no_bonus_and_no_joker():
    for game in scenario("games")["game"]:
        if game["stage"] == 3:
            assert not {"upper_bonus", "joker", "yahtzee_bonus"} & set(game["covers"]), game["name"]


def test_stage2_rounds_hold_no_joker():
    """Stage-2 rounds never meet the Joker rule: the Yahtzee box is open in all of them."""
    for case in scenario("round")["play_round"]:
        assert "Yahtzee" not in case.get("filled", {}), case["why"]


def test_games_cover_every_rule():
    covers = set()
    for game in scenario("games")["game"]:
        covers |= set(game["covers"])
    for rule in ("yahtzee_bonus", "joker_forced_upper", "joker_lower", "joker_upper_zero", "joker_box_zero",
                 "joker_full_value", "upper_63", "upper_62", "short_game", "invalid_keep", "invalid_category",
                 "used_category", "keep_all_first_roll", "two_rerolls"):
        assert rule in covers, rule
    games = scenario("games")["game"]
    assert 6 <= len(games) <= 10
    assert any(g["public"] for g in games if g["stage"] == 3)
    assert any(g["public"] for g in games if g["stage"] == 4)


def test_committed_scenarios_still_cover_what_they_say():
    ref = scenario_plan.Reference(SOLUTION)
    assert scenario_plan.check(ref, SCENARIOS / "games.toml") == []


def test_scenarios_verb_writes_a_fresh_set(tmp_path):
    result = cli("scenarios", "--assignment", "yahtzee", "--out", str(tmp_path), "--start-seed", "7000")
    assert result.returncode == 0, result.stderr
    fresh = tomllib.loads((tmp_path / "games.toml").read_text(encoding="utf-8"))["game"]
    committed = scenario("games")["game"]
    assert [g["name"] for g in fresh] == [g["name"] for g in committed]
    assert all(g["seed"] >= 7000 for g in fresh)
    assert cli("scenarios", "--check", "--out", str(tmp_path)).returncode == 0


def test_a_fresh_scenario_set_grades_the_reference_full_marks(tmp_path, monkeypatch):
    assert cli("scenarios", "--out", str(tmp_path), "--start-seed", "9000").returncode == 0
    monkeypatch.setenv("AUTOGRADER_SCENARIOS_DIR", str(tmp_path))
    result = cli("grade", str(SOLUTION), "--stage", "3", "--format", "json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["score"] == pytest.approx(25)


# --- the command line -----------------------------------------------------------------------------

def test_public_run_ends_with_the_honest_line():
    result = cli("grade", str(STARTER), "--public")
    assert result.returncode == 0, result.stderr
    last = result.stdout.strip().splitlines()[-1]
    assert last.endswith("hidden checks run at grading"), last
    assert "public checks" in last
    report = graded(str(SOLUTION), "all", True)
    assert report.hidden_not_run > 0
    assert all(t.visibility == "visible" for t in report.tests)


def test_gradescope_json_for_the_reference():
    result = cli("grade", str(SOLUTION), "--format", "gradescope")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["score"] == pytest.approx(100)
    assert {"name", "score", "max_score", "visibility", "output"} <= set(data["tests"][0])


def test_exit_status():
    assert cli("grade", str(STARTER), "--stage", "1").returncode == 0
    assert cli("grade", str(ROOT / "no" / "such" / "file.py")).returncode == 2


def test_syntax_error_names_the_line(tmp_path):
    source = SOLUTION.read_text(encoding="utf-8").splitlines()
    line = next(i for i, text in enumerate(source) if text.startswith("def format_dice"))
    source[line] = source[line].replace("):", ")")
    path = tmp_path / "yahtzee.py"
    path.write_text("\n".join(source) + "\n", encoding="utf-8")
    report = graded(str(path), "2")
    assert report.score == 0
    assert f"line {line + 1}" in (report.error + " ".join(t.output for t in report.tests))
    # Pass 22: a hidden check says the file did not load, in grader words; it said "Its usual
    # feedback would repeat text your program chose (an exception's name or message)" (the
    # compiler's "expected ':'" was counted as the program's text), which is not what happened.
    said = {(t.visibility, t.output) for t in report.tests}
    assert said == {("visible", report.error),
                    ("hidden", "Your file did not load, so this check could not run (the top of this feedback says why).")}
    assert report.error == f"Your file has a syntax error on line {line + 1}: expected ':' (checked with Python {sys.version_info[0]}.{sys.version_info[1]})"


def test_misspelled_function_gets_did_you_mean(tmp_path):
    source = SOLUTION.read_text(encoding="utf-8").replace("def parse_keep(", "def parse_kepe(")
    source = source.replace("return parse_keep(text)", "return parse_kepe(text)")
    path = tmp_path / "yahtzee.py"
    path.write_text(source, encoding="utf-8")
    report = graded(str(path), "2")
    outputs = " ".join(t.output for t in report.tests if t.problem == 8)
    assert "did you mean" in outputs and "parse_kepe" in outputs


@pytest.mark.parametrize("renamed, hint", [("qqq_helper", None), ("score_smal_straight", "score_smal_straight")])
def test_did_you_mean_never_names_another_function_of_the_handout(tmp_path, renamed, hint):
    """A missing score_small_straight is not a misspelt score_large_straight (graded as itself,
    problem 5's other function): the hint is dropped, or the next close name (a real misspelling)."""
    source = SOLUTION.read_text(encoding="utf-8").replace("def score_small_straight(", f"def {renamed}(")
    path = tmp_path / "yahtzee.py"
    path.write_text(source, encoding="utf-8")
    report = graded(str(path), "1")
    outputs = [t.output for t in report.tests if "no function `score_small_straight`" in t.output]
    assert outputs and not any("score_large_straight" in text for text in outputs)
    if hint is None:
        assert not any("did you mean" in text for text in outputs)
    else:
        assert any(f"did you mean `{hint}`" in text for text in outputs)


def test_a_grade_never_runs_the_same_game_twice(monkeypatch):
    """Speed is measured by `make bench`, not here; what a test can pin down is the work: the
    suites must not repeat a request (e.g. replay the same seeded game for every check)."""
    from autograder.engine import program

    seen: list[str] = []
    original = program.Program.run

    def counting_run(self, request):
        if self.label == "your program" and request.fresh:
            seen.append(json.dumps(request.__dict__, sort_keys=True, default=str))
        return original(self, request)

    monkeypatch.setattr(program.Program, "run", counting_run)
    report = grade(str(SUBMISSIONS[0]), "yahtzee")
    assert report.score == pytest.approx(100)
    repeated = {key for key in seen if seen.count(key) > 1}
    assert not repeated, f"{len(repeated)} fresh requests ran more than once"
