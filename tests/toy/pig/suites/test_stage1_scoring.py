"""Stage 1: turn_score and parse_choice, one call at a time, against the reference."""

import pytest

from autograder.engine.checks import expect_same
from autograder.engine.suite import Suite

suite = Suite(__file__)


@pytest.mark.parametrize("case", suite.cases("scoring", "case", problem=lambda case: suite.problem_of(case["call"][0])))
def test_scoring(student, reference, case):
    """Scoring"""
    func, *args = case["call"]
    expect_same(student, reference, func, *args, why=case["why"])
