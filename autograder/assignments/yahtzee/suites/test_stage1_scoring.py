"""Stage 1: the scoring functions, one call at a time, against the reference."""

import pytest

from autograder.assignments.yahtzee.suites.common import SUITE
from autograder.engine.checks import expect_raises, expect_same
from autograder.engine.feedback import Fail

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
        expect_same(student, reference, func, *args, hint=_hint(case), why=case["why"],
                    then=lambda outcome: _check_pure(outcome, func, args))


def _check_pure(outcome, func: str, args: list) -> None:
    """Stage 1's functions print nothing, read nothing and never change their arguments (the
    handout); lines starting with DEBUG: are the student's to print."""
    printed = [line for line in (outcome.stdout or "").splitlines()
               if line.strip() and not line.startswith("DEBUG:")]
    what = None
    if outcome.args_after is not None and list(outcome.args_after) != list(args):
        what, hint = "changed the list it was given", "Work on a copy (sorted(dice), set(dice)); leave DICE as it was."
    elif printed:
        what, hint = "printed something", "Scoring functions return their points and print nothing."
    elif outcome.inputs_asked:
        what, hint = "asked for input", "Scoring functions read nothing: everything they need is in their arguments."
    if what:
        raise Fail(f"{func}(...) returned the right value but {what}.", hidden=f"{func} {what}.",
                   ran=f"{func}(...)", show_values=False, hint=hint)
