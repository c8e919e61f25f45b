"""Stage 1: the fifteen category functions and the dispatcher, one call at a time, against the reference.

(No own_functions check here: stage-1 functions call no function of another stage.)"""

import pytest

from autograder.assignments.yatzy.suites.common import (
    ASSIGNMENT,
    data_free,
    params,
    problem_of,
    reference_versions,
    scenarios,
)
from autograder.engine.checks import expect_same
from autograder.engine.feedback import Fail

CASES = scenarios("scoring")["case"]
# score() dispatches to the category functions, which problems 1-6 grade on their own
CATEGORY_FUNCTIONS = tuple(f for p in ASSIGNMENT.problems if p.stage == 1 for f in p.functions if f != "score")


def _hint(case: dict):
    def hint(got, expected):
        return case.get("hint") if "hint_when" in case and got == case["hint_when"] else None
    return hint


@pytest.mark.parametrize("case", params(CASES, lambda case: problem_of(case["call"][0]),
                                        id_key=lambda case: f"{case['call'][0]}, {case['why']}"))
def test_category(student, reference, case):
    """Scoring"""
    func, *args = case["call"]
    try:
        with reference_versions(student, CATEGORY_FUNCTIONS if func == "score" else ()):
            expect_same(student, reference, func, *args, hint=_hint(case), why=case["why"])
    except Fail as fail:
        if not case.get("public"):      # hidden checks say what they cover, not their data
            raise data_free(fail, func, case["why"]) from None
        raise

