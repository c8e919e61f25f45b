"""Stage 3: the single-player game.  initialize_game, get_option_choice, print_score_info and
check_end_game from chosen states, then whole seeded games of YahtzeeGame().play() with
scripted answers (re-rolls, the score sheet on request, bad answers everywhere, a flood of
them, a new game after Enter), compared line by line with the reference and by the dice
rolled (the RNG contract).  A game ends when its script runs out: that is not charged.  A
difference that comes from a stage 1 or 2 method already charged there is not charged again."""

import pytest

from autograder.assignments.swe3006.suites.common import params
from autograder.assignments.swe3006.suites.games import cases, run_case

CASES = {c["id"]: c for c in cases(3)}


@pytest.mark.parametrize("case", params(list(CASES.values())))
def test_game(student, reference, case):
    """The game"""
    run_case(student, reference, CASES[case["id"]])
