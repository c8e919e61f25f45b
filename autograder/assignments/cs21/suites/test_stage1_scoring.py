"""Stage 1: the dice predicates and sums, one call at a time, against the reference."""

import pytest

from autograder.assignments.cs21.suites.common import ASSIGNMENT, check_value, params, problem_of, scenarios

CASES = [case for case in scenarios("scoring")["case"]
         if ASSIGNMENT.problem(problem_of(case["call"][0])).stage == 1]


@pytest.mark.parametrize("case", params(CASES))
def test_scoring(student, reference, case):
    """Scoring"""
    check_value(student, reference, case)
