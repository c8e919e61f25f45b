"""Stage 5 (optional): the strategy contest.  1,000 seeded games played with the student's
choose_keep and choose_category, in their sandbox, graded by the mean score against thresholds."""

from __future__ import annotations

import pytest

from autograder.assignments.yahtzee.suites.common import (
    SUITE,
    describe,
    scorecard,
)
from autograder.coach import contest, leaderboard
from autograder.engine.checks import explain
from autograder.engine.feedback import Fail
from autograder.engine.sandbox import Limits
from autograder.engine.suite import returned_value

DATA = SUITE.load("strategy")
SEEDS = contest.game_seeds(DATA["key"], DATA["first_seed"], DATA["games"])     # (secret: the key)
KEEP_PROBLEM, BOX_PROBLEM, PLAY_PROBLEM = 22, 21, 23
# The whole contest: 39 batched calls; the strategy gets this much CPU for all 1,000 games.
CONTEST_LIMITS = dict(wall_s=30.0, cpu_s=60)
BATCH_TIMEOUT = 30.0


class ContestStopped(Exception):
    """The student's program could not play the games at all (the message says why)."""


def run_contest(student) -> contest.ContestResult:
    """Play the games once per student (the checks of this stage share the result)."""
    try:
        return student.memo("contest", lambda: _play(student))
    except ContestStopped as stopped:
        raise Fail(f"The games could not be played: {stopped}", show_values=False) from None


def _play(student) -> contest.ContestResult:
    for name in ("choose_keep", "choose_category"):
        if name not in student.functions:
            raise ContestStopped(f"your file has no function `{name}`.")
    program = student.derived(contest.DRIVER, Limits(**CONTEST_LIMITS))

    def batch(kind: str):
        def decide(positions):
            outcome = program.call(contest.DRIVER_FUNCTION, kind, [list(p) for p in positions],
                                   fresh=False, timeout=BATCH_TIMEOUT)
            if outcome.status != "ok" or not isinstance(outcome.value, list):
                what = "choose_keep" if kind == "keep" else "choose_category"
                raise ContestStopped(explain(outcome, f"{what}, on {len(positions)} positions at once"))
            return outcome.value
        return decide

    try:
        return contest.play_games(batch("keep"), batch("category"), SEEDS)
    finally:
        program.close()


def _summary(result: contest.ContestResult) -> str:
    from autograder.coach import solver

    baselines = contest.baseline_means(SEEDS)
    return leaderboard.mean_sentence(
        result.mean, result.scores, f"always-Chance {baselines['always-Chance']:.2f}, greedy "
        f"{baselines['greedy']:.2f}; the ceiling, optimal play's expected score: {solver.optimum():.2f}.")


# -- P21, P22: legal answers ----------------------------------------------------------------

@pytest.mark.parametrize("case", SUITE.cases(DATA["category"], problem=BOX_PROBLEM))
def test_category_is_allowed(student, case):
    """choose_category returns an allowed box"""
    card = scorecard(case.get("filled"))
    dice = list(case["dice"])
    ran = describe("choose_category", [dice, card])
    got = returned_value(student.call_or_skip("choose_category", dice, card), ran,
                        short="choose_category")
    allowed = contest.allowed_boxes(dice, card)
    if not isinstance(got, str) or contest.kit().find_category(got) not in allowed:
        raise Fail(f"Called {ran}. Returned {got!r}, but it must return one of {', '.join(allowed)} "
                   f"({case['why']}).", ran=ran, show_values=False)


@pytest.mark.parametrize("case", SUITE.cases(DATA["keep"], problem=KEEP_PROBLEM))
def test_keep_is_positions(student, case):
    """choose_keep returns positions 1..5 to keep"""
    card = scorecard(case.get("filled"))
    dice = list(case["dice"])
    ran = describe("choose_keep", [dice, case["rolls_left"], card])
    got = returned_value(student.call_or_skip("choose_keep", dice, case["rolls_left"], card), ran, short="choose_keep")
    if contest._legal_keep(got if not isinstance(got, tuple) else list(got)) is None:
        raise Fail(f"Called {ran}. Returned {got!r}, but it must return a list of distinct positions "
                   f"from 1 to 5 ({case['why']}).", ran=ran, show_values=False)


def _legal_in_games(student, what: str) -> None:
    result = run_contest(student)
    if what in result.first_illegal:
        raise Fail(f"In the {len(result.scores)} games, {what} made {result.illegal[what]} illegal "
                   f"choice(s); the grader replaced each and played on. The first {what} "
                   f"{result.first_illegal[what]}.", show_values=False)


@pytest.mark.problem(BOX_PROBLEM)
@pytest.mark.visibility("hidden")
def test_categories_legal_in_every_game(student):
    """choose_category is legal in every game"""
    _legal_in_games(student, "choose_category")


@pytest.mark.problem(KEEP_PROBLEM)
@pytest.mark.visibility("hidden")
def test_keeps_legal_in_every_game(student):
    """choose_keep is legal in every game"""
    _legal_in_games(student, "choose_keep")


# -- P23: the mean score against the thresholds ------------------------------------------------

def threshold(tier: dict) -> float:
    from autograder.coach import solver

    if "beat" in tier:
        return contest.baseline_means(SEEDS)[tier["beat"]]
    return solver.optimum() - tier["within"]


@pytest.mark.parametrize("tier", SUITE.cases(DATA["tier"], problem=PLAY_PROBLEM, hidden=False))
def test_mean_score(student, tier, record_property):
    """Mean score of 1,000 games"""
    result = run_contest(student)
    needed = threshold(tier)
    said = _summary(result) + "\n" + contest.histogram_line(result.scores)      # the feedback page plots it
    record_property("feedback", said)
    if "beat" in tier and not result.mean > needed:
        raise Fail(leaderboard.beat_failed(tier["beat"], needed) + said, show_values=False)
    if "within" in tier and result.mean < needed:
        raise Fail(leaderboard.within_failed(tier["within"], needed) + said, show_values=False)
