"""Stage 2: one turn.  get_valid_input with scripted answers (the [WARN] re-prompts, a flood of
bad answers), roll_dices and rolling_phase with a seed (the RNG contract, keeping by position,
at most two re-rolls), print_score_table, recording_phase (a failure that comes from
calculate_score is charged in stage 1 only)."""

import pytest

from autograder.assignments.swe3006.suites.common import params
from autograder.assignments.swe3006.suites.units import stage_units

UNITS = {u.id: u for u in stage_units(2)}


@pytest.mark.parametrize("case", params([{"problem": u.problem, "id": u.id, "public": u.public, "integration": u.integration}
                                         for u in UNITS.values()]))
def test_turn(student, reference, case):
    """One turn"""
    UNITS[case["id"]].run(student, reference)
