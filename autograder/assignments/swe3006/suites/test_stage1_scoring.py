"""Stage 1: calculate_score (and is_straight through it) on chosen dice, compared category by
category with the reference's scores."""

import pytest

from autograder.assignments.swe3006.suites.common import params
from autograder.assignments.swe3006.suites.units import stage_units

UNITS = {u.id: u for u in stage_units(1)}


@pytest.mark.parametrize("case", params([{"problem": u.problem, "id": u.id, "public": u.public, "integration": u.integration}
                                         for u in UNITS.values()]))
def test_scoring(student, reference, case):
    """Scoring"""
    UNITS[case["id"]].run(student, reference)
