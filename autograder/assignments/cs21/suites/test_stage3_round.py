"""Stage 3: one round.  slotScore by calls; chooseSlot and playRound with scripted answers
and injected dice; expected values from the reference on the same input."""

import pytest

from autograder.assignments.cs21.suites.common import (
    GAME_TIMEOUT,
    SPARE_DICE,
    check_run,
    check_value,
    params,
    scenarios,
    scorecard,
)

SLOT_SCORES = [case for case in scenarios("scoring")["case"] if case["call"][0] == "slotScore"]
DATA = scenarios("round")
OWN = 1.0       # the points of the integration check of problem 13


@pytest.mark.parametrize("case", params(SLOT_SCORES, lambda case: 11))
def test_slot_score(student, reference, case):
    """Call"""
    check_value(student, reference, case)


@pytest.mark.parametrize("case", params(DATA["choose"], lambda case: 12))
def test_choose_slot(student, reference, case):
    """chooseSlot"""
    card = scorecard(case.get("filled"))
    check_run(student, reference, "chooseSlot", [card], case, stdin=list(case["answers"]),
              dice=list(SPARE_DICE), ran=_described("chooseSlot", case))


def _described(func: str, case: dict) -> str:
    filled = case.get("filled")
    return f"{func}(scores)" + (f" with the slots {filled} used" if filled else " with every slot open")


def _round(student, reference, case):
    card = scorecard(case.get("filled"))
    check_run(student, reference, "playRound", [card], case, stdin=list(case["answers"]),
              dice=list(case["dice"]) + SPARE_DICE, timeout=GAME_TIMEOUT, ran=_described("playRound", case),
              shown_dice=list(case["dice"]))


@pytest.mark.parametrize("case", params(DATA["round"], lambda case: 13))
def test_play_round(student, reference, case):
    """playRound"""
    _round(student, reference, case)


@pytest.mark.problem(13)
@pytest.mark.points(OWN)
@pytest.mark.visibility("hidden")
@pytest.mark.own_functions
def test_play_round_own_functions(student, reference):
    """Integration: playRound with your own stage 1 and 2 functions"""
    _round(student, reference, DATA["round"][3])
