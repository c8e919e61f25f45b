"""Stage 1: scoring the slots.  Each check plays a short game with chosen dice and compares
the final score with the reference's on the same game."""

import pytest

from autograder.assignments.pytzee.suites.common import SUITE, game_from_case, play_and_check, stage_cases

CASES = stage_cases("game", 1)


@pytest.mark.parametrize("case", SUITE.cases(CASES))
def test_slot(student, reference, case):
    """Scoring"""
    play_and_check(student, reference, game_from_case(case), hint=case.get("hint"),
                   hint_when=case.get("hint_when"), same_as=case.get("same_as"))
