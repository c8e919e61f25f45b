"""Stage 1: the scoring functions, one call at a time, against the reference."""

import pytest

from autograder.assignments.yahtzee.suites.common import data_free, params, problem_of, scenarios
from autograder.engine.checks import expect_raises, expect_same
from autograder.engine.feedback import Fail

DATA = scenarios("scoring")
CASES = DATA["case"] + [dict(case, invalid=True) for case in DATA["invalid"]]


def _problem(case: dict) -> int:
    return problem_of(case["call"][0], stage=1)


def _hint(case: dict):
    def hint(got, expected):
        if "hint_when" in case and got == case["hint_when"]:
            return case.get("hint")
        return None
    return hint


@pytest.mark.parametrize("case", params(CASES, _problem))
def test_scoring(student, reference, case):
    """Scoring"""
    func, *args = case["call"]
    try:
        if case.get("invalid"):
            expect_raises(student, func, *args, error="ValueError")
        else:
            expect_same(student, reference, func, *args, hint=_hint(case), why=case["why"])
    except Fail as fail:
        if not case.get("public"):      # hidden checks say what they cover, not their data
            raise data_free(fail, func, case) from None
        raise
