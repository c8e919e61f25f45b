"""The Pytzee assignment graded end to end: the reference, the starter, correct submissions
written in other ways, and known-wrong mutants of the reference with their exact scores.

Every grading runs in a pool of two warm processes (one sandbox each), once per module.
"""

from __future__ import annotations

import contextlib
import functools
import io
import random
import statistics
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from types import SimpleNamespace
from unittest import mock

import pytest
from helpers.cost import grade_timed, warm_up
from helpers.programs import assert_printed_in_order, load

from autograder import toml as tomllib  # the one TOML shim
from autograder.assignment import load_assignment
from autograder.authoring.edits import apply_edits
from autograder.engine.program import DEFAULT_WALL_S
from autograder.engine.trials import TRIAL_FLOOR_S

ROOT = Path(__file__).resolve().parent.parent
PYTZEE = load_assignment("pytzee")
SOLUTION = PYTZEE.solution
STARTER = PYTZEE.starter
SUBMISSIONS = sorted((ROOT / "tests" / "submissions" / "pytzee").glob("*.py"))
MUTANTS = tomllib.loads((PYTZEE.mutants).read_text(encoding="utf-8"))["mutant"]
GAMES = tomllib.loads((PYTZEE.scenarios_dir / "games.toml").read_text(encoding="utf-8"))
TOTAL = PYTZEE.total_points
# What a grade may cost against the reference's in the same run (never an absolute time: the
# machine is shared): the CPU time of the grade's whole process tree (the grader and its sandboxes,
# helpers/cost.py's "tree"), which the machine's load does not stretch.  (Before pass 19 it was
# the grader's CPU and its runs' time less their CPU waits and a timeout's collection; those failed
# at load 8-19: a starved grader collects every answer late.)
CPU_RATIO = 3          # a failing check renders more (a diff, a trace), a timeout starts a new life
RUNS_FLOOR_S = 0.25    # plus this for a program's own slowness that is not a bug (a wasteful loop)
FIXED_SLACK = 1.25     # plus its timeouts (a trial, the run again at the full limit; a trial charged
#                        short), each spending at most its limit of CPU: up to a quarter more (a timer fires late)
SLOW_CONTROL = "slow-control"     # the reference, 20 ms of CPU slower in every score_slot call: over budget
# The reference's grade, its cost measured three times in the run (first, in the middle, last): the
# budgets' anchor is their median.  One grade's tree CPU moved 0.21-0.30 s between runs at load 6-17
# (a mutant's with it), so an anchor measured once, at a quiet moment of a loaded run, made every
# later grade look dear (pass 22).
ANCHORS = ("reference", "reference:middle", "reference:last")
_SLOW = """

import time as _time
_score_slot = score_slot


def score_slot(slot, dice):
    end = _time.process_time() + 0.02
    while _time.process_time() < end:
        pass
    return _score_slot(slot, dice)
"""


@pytest.fixture(scope="module")
def reports(tmp_path_factory) -> dict[str, dict]:
    """name -> GradeReport.to_dict() for the reference, the starter, the submissions, the mutants,
    each with what its grade cost ("cost": helpers/cost.grade_timed's measures)."""
    tmp = tmp_path_factory.mktemp("pytzee-mutants")
    reference = SOLUTION.read_text(encoding="utf-8")
    jobs = {"reference": str(SOLUTION), "starter": str(STARTER)}
    jobs.update({f"submission:{path.stem}": str(path) for path in SUBMISSIONS})
    for mutant in MUTANTS:
        path = tmp / mutant["name"] / "pytzee.py"
        path.parent.mkdir()
        path.write_text(apply_edits(reference, mutant["edits"]), encoding="utf-8")
        jobs[f"mutant:{mutant['name']}"] = str(path)
    slow = tmp / SLOW_CONTROL / "pytzee.py"
    slow.parent.mkdir()
    slow.write_text(reference + _SLOW, encoding="utf-8")
    jobs[SLOW_CONTROL] = str(slow)
    names = list(jobs)          # the reference's cost measured thrice, at the start, middle and end (ANCHORS)
    names.insert(len(names) // 2, ANCHORS[1])
    names.append(ANCHORS[2])
    timed = functools.partial(grade_timed, assignment="pytzee", limits=None, report=True)
    with ProcessPoolExecutor(2, initializer=warm_up, initargs=(str(SOLUTION), "pytzee", None)) as pool:
        results = pool.map(timed, names, [jobs.get(name, str(SOLUTION)) for name in names])
        return {r["name"]: {**r.pop("report"), "cost": r} for r in results}


def _lost(report: dict) -> dict[int, float]:
    lost: dict[int, float] = {}
    for test in report["tests"]:
        if test["score"] < test["max_score"]:
            lost[test["problem"]] = lost.get(test["problem"], 0) + test["max_score"] - test["score"]
    return lost


def _errors(report: dict) -> list[str]:
    return [f"{t['name']}: {t['status']} {t['output']}" for t in report["tests"] if t["status"] == "error"]


# ---------------------------------------------------------------------------------------
# The reference, the starter, correct submissions
# ---------------------------------------------------------------------------------------

def test_points_per_problem_match_the_table(reports):
    got = {}
    for test in reports["reference"]["tests"]:
        got[test["problem"]] = round(got.get(test["problem"], 0) + test["max_score"], 4)
    assert got == {p.number: p.points for p in PYTZEE.problems}
    assert TOTAL == 90


def test_reference_full_marks(reports):
    report = reports["reference"]
    assert not _errors(report) and not report["error"]
    assert report["score"] == TOTAL, _lost(report)


def test_starter_scores_zero_cleanly(reports):
    report = reports["starter"]
    assert not report["error"], report["error"]
    assert report["score"] == 0
    for test in report["tests"]:
        assert test["status"] == "failed", test
        assert "took too long" not in test["output"] and "time limit" not in test["output"], test
        assert "not written yet" in test["output"], test["output"]


@pytest.mark.parametrize("path", SUBMISSIONS, ids=[p.stem for p in SUBMISSIONS])
def test_correct_submission_full_marks(reports, path):
    report = reports[f"submission:{path.stem}"]
    assert not _errors(report)
    assert report["score"] == TOTAL, [(t["name"], t["output"]) for t in report["tests"] if t["score"] < t["max_score"]]


def test_at_least_two_correct_submissions():
    assert len(SUBMISSIONS) >= 2


def _anchor(reports: dict[str, dict]) -> float:
    """The reference's grade's tree CPU in this run: the median of its three (ANCHORS)."""
    return statistics.median(reports[name]["cost"]["tree"] for name in ANCHORS)


def _allowed(report: dict, reference: float) -> float:
    """What REPORT's grade may cost: CPU_RATIO x the reference's grade's CPU in the same run (REFERENCE), a
    floor, its timeouts at their limits, and the runs the sandbox made again because the machine
    starved the first (helpers/cost.py "again": each at most its limit; counted, not timed)."""
    got = report["cost"]
    _, again, short = map(sum, zip(*got["trials"]))
    timeouts = again * (TRIAL_FLOOR_S + DEFAULT_WALL_S) + short * TRIAL_FLOOR_S
    return CPU_RATIO * reference + RUNS_FLOOR_S + FIXED_SLACK * (timeouts + got["again"][1])


def _over_budget(report: dict, reference: float) -> list[str]:
    """What REPORT's grade cost beyond its budget (_allowed; REFERENCE: the anchor, _anchor)."""
    got = report["cost"]
    _, again, short = map(sum, zip(*got["trials"]))
    allowed = _allowed(report, reference)
    if got["tree"] > allowed:
        return [f"its grade's CPU {got['tree']:.2f} s > {allowed:.2f} s ({CPU_RATIO} x the reference's {reference:.2f} s;"
                f" {again} run again at the full limit, {short} trials charged short,"
                f" {got['again'][0]} run again after the machine starved them)"]
    return []


def test_grading_cost(reports):
    """No submission costs much more to grade than the reference, its timeouts aside (each at
    most a trial and one run at the full limit): a grade that ran a timeout again, charged a
    proved endless loop in full or ran its scenarios twice would; the slow control (the reference,
    spinning 20 ms more in a function every scenario calls) is over its budget, so the budget can
    fail.  CPU time, not the wall clock, against the reference's cost in the same run (_anchor),
    and a run the machine starved made again counted at its limit: at any load."""
    assert [reports[name]["score"] for name in ANCHORS] == [TOTAL] * 3
    reference = _anchor(reports)
    for name, r in sorted(reports.items(), key=lambda kv: -kv[1]["cost"]["tree"])[:8]:
        print("TREE", name, round(r["cost"]["tree"], 3), round(r["cost"]["tree"] / reference, 2), r["cost"]["trials"],
              r["cost"]["again"], round(_allowed(r, reference), 3))
    print("TREE reference", [round(reports[name]["cost"]["tree"], 3) for name in ANCHORS])
    slow = {name: over for name, r in reports.items()
            if name != SLOW_CONTROL and name not in ANCHORS and (over := _over_budget(r, reference))}
    assert not slow
    assert _over_budget(reports[SLOW_CONTROL], reference)
    assert reports[SLOW_CONTROL]["score"] == TOTAL


# ---------------------------------------------------------------------------------------
# Mutants
# ---------------------------------------------------------------------------------------

def test_enough_mutants():
    assert len([m for m in MUTANTS if m["score"] < TOTAL]) >= 15


@pytest.mark.parametrize("mutant", MUTANTS, ids=[m["name"] for m in MUTANTS])
def test_mutant(reports, mutant):
    report = reports[f"mutant:{mutant['name']}"]
    assert not _errors(report), _errors(report)
    assert not report["error"], report["error"]
    lost = _lost(report)
    assert sorted(lost) == sorted(mutant["problems"]), lost
    assert report["score"] == pytest.approx(mutant["score"], abs=1e-6), lost
    failed = [t for t in report["tests"] if t["score"] < t["max_score"]]
    for test in failed:
        assert "took too long" not in test["output"], test
        if test["visibility"] == "hidden":       # no dice, answers, expected score or output
            for leak in ("Ran:", "the dice:", "expected ", "printed (end)"):
                assert leak not in test["output"], test
    if mutant["phrase"]:
        phrase = mutant["phrase"].lower()
        assert any(phrase in (t["name"] + "\n" + t["output"]).lower() for t in failed), \
            [(t["name"], t["output"]) for t in failed]


# ---------------------------------------------------------------------------------------
# The reference played both ways, and the UMBC sample run
# ---------------------------------------------------------------------------------------

def _load_reference():
    return load(SOLUTION, "pytzee_reference_under_test")


def _play_in_process(rounds, answers, dice=None, seed=None) -> str:
    module = _load_reference()
    rolls = iter(dice or [])
    out = io.StringIO()
    patches = [mock.patch("builtins.input", side_effect=list(answers))]
    if dice is not None:
        patches.append(mock.patch.object(random, "randint", side_effect=lambda a, b: next(rolls)))
    with contextlib.ExitStack() as stack, contextlib.redirect_stdout(out):
        for patch in patches:
            stack.enter_context(patch)
        if seed is not None:
            random.seed(seed)
        module.play_game(rounds)
    return out.getvalue()


def test_reference_reproduces_the_umbc_sample_run():
    sample = next(case for case in GAMES["seeded"] if case["seed"] == 17)
    out = _play_in_process(sample["rounds"], sample["commands"], seed=17)
    assert out.rstrip().splitlines()[-1] == "Your final score was 92"


def test_reference_plays_the_same_called_and_as_a_script():
    """Every game of games.toml: play_game(n) and `python pytzee.py` end with the same score."""
    from autograder.assignments.pytzee.suites.common import game_from_case, read_final_score, run
    from autograder.engine.program import Program
    program = Program(SOLUTION.read_text(encoding="utf-8"), "pytzee.py", hidden_paths=[str(ROOT)])
    try:
        for case in GAMES["game"]:
            game = game_from_case(case)
            called, script = run(program, game, "call"), run(program, game, "script")
            assert called.status == script.status == "ok", (case["why"], called.status, script.status)
            assert read_final_score(called, finished=True).value == read_final_score(script, finished=True).value
    finally:
        program.close()


# ---------------------------------------------------------------------------------------
# The grader's own helpers
# ---------------------------------------------------------------------------------------

def _outcome(stdout="", value=None, status="ok"):
    return SimpleNamespace(stdout=stdout, value=value, status=status, events=[], inputs_asked=0)


@pytest.mark.parametrize("stdout, value, finished, expected", [
    ("Your score is: 3\nYour final score was 92\n", None, True, 92),
    ("FINAL SCORE: 92 (bonus 35 included)\n", None, True, 92),
    ("Final total = 92\n", None, True, 92),
    ("Game over. Score: 40\n", None, True, 40),
    ("Scorecard: 1's 2's\nthanks\n", 77, True, 77),
    ("Final Score: 18\nPlay again? ", None, False, 18),
    ("Your score is: 0\n", None, False, None),          # crashed mid-game: no final line
    ("Scorecard:\n", None, True, None),
])
def test_read_final_score(stdout, value, finished, expected):
    from autograder.assignments.pytzee.suites.common import read_final_score
    assert read_final_score(_outcome(stdout, value), finished=finished).value == expected


def test_planned_answers_always_fit_their_roll():
    """Seeded games answer each roll with a slot it fits, so strict programs play them too."""
    from autograder.assignments.pytzee.suites.common import _fit, plan_commands
    rng = random.Random(5)
    for _ in range(200):
        rolls = [[rng.randint(1, 6) for _ in range(5)] for _ in range(13)]
        commands = plan_commands(rolls)
        assert len(commands) == 13
        used = [c for c in commands if c != "skip"]
        assert len(used) == len(set(used))
        for dice, command in zip(rolls, commands):
            assert command == "skip" or _fit(command, dice) > 0


def test_cli_grades_and_never_hangs():
    """The worst case: a program that hangs in many games is still graded by the command, with
    its exact score.  What its grade costs is test_grading_cost's (the same mutant, its runs less
    their CPU waits, against the reference's in the same run); the timeout here is only the hang
    guard, long enough for a loaded machine (a wall-clock bound flaked at load 16)."""
    mutant = next(m for m in MUTANTS if m["name"] == "endless-loop")
    with contextlib.ExitStack() as stack:
        import tempfile
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        path = folder / "pytzee.py"
        path.write_text(apply_edits(SOLUTION.read_text(encoding="utf-8"), mutant["edits"]), encoding="utf-8")
        done = subprocess.run([sys.executable, "-m", "autograder", "grade", "--assignment", "pytzee", str(path)],
                              cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert f"Score: {mutant['score']} / 90" in done.stdout, done.stdout[-2000:]


def test_handout_sample_run_is_the_references():
    """The short transcript in the handout (autograder/assignments/pytzee/handout.md) is what the reference prints (lines shown
    as `...` are cut)."""
    from autograder.engine.program import Program
    text = PYTZEE.handout.read_text(encoding="utf-8")
    block = text.split("## A sample run", 1)[1].split("```", 2)[1]
    shown = [line for line in block.strip("\n").splitlines() if line.strip() != "..."]
    module = _load_reference()
    prompts = (module.ROUNDS_PROMPT, module.SEED_PROMPT, module.COMMAND_PROMPT)
    answers = [line[len(p):] for line in shown for p in prompts if line.startswith(p)]
    assert answers[:2] == ["3", "17"] and len(answers) == 6
    program = Program(SOLUTION.read_text(encoding="utf-8"), "pytzee.py", hidden_paths=[str(ROOT)])
    try:
        outcome = program.script(stdin=answers)
    finally:
        program.close()
    assert outcome.status == "ok", outcome.message
    assert_printed_in_order(shown, outcome.stdout.splitlines())


def test_spare_answers_are_the_graders_not_the_games(tmp_path):
    """The handout's spare `skip` after an answer its roll does not fit comes from the grader
    (derived from the reference's run), not from the game files: with every trailing spare
    removed from games.toml, the program that refuses EVERY answer its roll does not fit (and
    asks again) still gets full marks, and the reference too."""
    import json
    import os

    text = (PYTZEE.scenarios_dir / "games.toml").read_text(encoding="utf-8")
    stripped, removed = [], 0
    for game in GAMES["game"]:
        commands = list(game["commands"])
        while len(commands) > len(game["dice"]) and commands[-1] == "skip":
            commands.pop()
            removed += 1
        stripped.append(commands)
    assert removed >= 20
    for game, commands in zip(GAMES["game"], stripped):    # rewrite each game's commands line in place
        old = "commands = " + json.dumps(game["commands"]).replace('", "', '", "')
        text = text.replace(f"why = {json.dumps(game['why'])}\ndice = {json.dumps(game['dice'])}\n{old}",
                            f"why = {json.dumps(game['why'])}\ndice = {json.dumps(game['dice'])}\n"
                            f"commands = {json.dumps(commands)}", 1)
    games = tomllib.loads(text)
    assert [g["commands"] for g in games["game"]] == stripped, "every game's commands rewritten"
    (tmp_path / "games.toml").write_text(text, encoding="utf-8")
    env = dict(os.environ, AUTOGRADER_SCENARIOS_DIR=str(tmp_path))
    refusing = ROOT / "tests" / "submissions" / "pytzee" / "refuses_every_misfit.py"
    for path in (refusing, SOLUTION):
        done = subprocess.run([sys.executable, "-m", "autograder", "grade", "--assignment", "pytzee", str(path),
                               "--format", "json"], cwd=ROOT, capture_output=True, text=True, timeout=300, env=env)
        assert done.returncode == 0, done.stderr
        report = json.loads(done.stdout)
        assert report["score"] == TOTAL, [(t["name"], t["output"]) for t in report["tests"]
                                          if t["score"] < t["max_score"]]
