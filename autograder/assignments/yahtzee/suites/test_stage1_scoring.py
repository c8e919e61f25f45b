"""Stage 1: the scoring functions, one call at a time, against the reference."""

import pytest

from autograder.assignments.yahtzee.suites.common import SUITE
from autograder.engine.checks import expect_raises, expect_same

DATA = SUITE.load("scoring")
CASES = DATA["case"] + [dict(case, invalid=True) for case in DATA["invalid"]]


def _hint(case: dict):
    def hint(got, expected):
        if "hint_when" in case and got == case["hint_when"]:
            return case.get("hint")
        return None
    return hint


@pytest.mark.parametrize("case", SUITE.cases(CASES, problem=lambda case: SUITE.problem_of(case["call"][0], stage=1)))
def test_scoring(student, reference, case):
    """Scoring"""
    func, *args = case["call"]
    if case.get("invalid"):
        expect_raises(student, func, *args, error="ValueError", why=case["why"])
    else:
        expect_same(student, reference, func, *args, hint=_hint(case), why=case["why"])
