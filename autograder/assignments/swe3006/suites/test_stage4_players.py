"""Stage 4: two players.  The round line names the player, the players alternate for 26 turns
with a sheet each, and the end shows both final scores and the winner, or a tie: from chosen
states (print_score_info, check_end_game) and in whole seeded two-player games."""

import pytest

from autograder.assignments.swe3006.suites.common import params
from autograder.assignments.swe3006.suites.games import cases, run_case

CASES = {c["id"]: c for c in cases(4)}


@pytest.mark.parametrize("case", params(list(CASES.values())))
def test_players(student, reference, case):
    """Two players"""
    run_case(student, reference, CASES[case["id"]])
