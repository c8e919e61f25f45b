"""Stage 1: the fifteen category functions and the dispatcher, one call at a time, against the reference.

(No own_functions check here: stage-1 functions call no function of another stage.)"""

import pytest

from autograder.assignments.yatzy.suites.common import ASSIGNMENT, SUITE, reference_versions
from autograder.engine.checks import expect_same

# score() dispatches to the category functions, which problems 1-6 grade on their own
CATEGORY_FUNCTIONS = tuple(f for p in ASSIGNMENT.problems if p.stage == 1 for f in p.functions if f != "score")


def _hint(case: dict):
    def hint(got, expected):
        return case.get("hint") if "hint_when" in case and got == case["hint_when"] else None
    return hint


@pytest.mark.parametrize("case", SUITE.cases("scoring", "case", problem=lambda case: SUITE.problem_of(case["call"][0]),
                                             id=lambda case: f"{case['call'][0]}, {case['why']}"))
def test_category(student, reference, case):
    """Scoring"""
    func, *args = case["call"]
    with reference_versions(student, CATEGORY_FUNCTIONS if func == "score" else ()):
        expect_same(student, reference, func, *args, hint=_hint(case), why=case["why"])
