"""Stage 1: the scoring functions, one call at a time, against the reference."""

import pytest

from autograder.assignments.yahtzee.suites.common import SUITE
from autograder.engine.charge import written
from autograder.engine.checks import expect_raises, expect_same, right_with_reference
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
        return
    try:
        expect_same(student, reference, func, *args, hint=_hint(case), why=case["why"],
                    then=lambda outcome: _check_pure(outcome, func, args))
    except Fail as failed:
        if func != "score" or not _box_function_bug(student, reference, *args, got=failed.got):
            raise


def _box_function_bug(student, reference, category, dice, got) -> bool:
    """Whether score(CATEGORY, DICE) returned GOT because the box's own function (problems 1-5)
    gives GOT where the reference's gives another value: the dispatcher is right, and the box
    function's bug is charged in its own problem, once (its checks hold every box's edge cases)."""
    box = BOX_FUNCTIONS.get(category) if isinstance(category, str) else None
    if box is None or type(got) is not int or not written(getattr(student, "source", None) or "", ["score", box[0]]):
        return False                    # (a constant or unwritten function is never excused)
    func, *extra = box
    own = student.call(func, list(dice), *extra)
    ref = reference.call(func, list(dice), *extra)
    if not (own.status == "ok" and type(own.value) is int and own.value == got and ref.status == "ok"
            and ref.value != got):
        return False
    # (the box's answer was asked after score's, in the same life: a program that remembers what
    # score said can make its box say it again, round 11; so the dispatcher proves itself too)
    expected = reference.call("score", category, list(dice)).value
    return right_with_reference(student, [func], "score", category, list(dice), expected=expected)


# The box functions score() dispatches to (the handout's Problem 6): category -> (function, extra args).
BOX_FUNCTIONS = {**{name: ("score_upper", face) for face, name in enumerate(
                     ["Ones", "Twos", "Threes", "Fours", "Fives", "Sixes"], 1)},
                 "Three of a Kind": ("score_of_a_kind", 3), "Four of a Kind": ("score_of_a_kind", 4),
                 "Full House": ("score_full_house",), "Small Straight": ("score_small_straight",),
                 "Large Straight": ("score_large_straight",), "Yahtzee": ("score_yahtzee",),
                 "Chance": ("score_chance",)}


def _check_pure(outcome, func: str, args: list) -> None:
    """Stage 1's functions print nothing, read nothing and never change their arguments (the
    handout); lines starting with DEBUG: are the student's to print.  A right value with one of
    these is the check's sole difference (Fail(sole=)): a function that sorts its dice in place, or
    prints them, does it in every check, and is charged in its problem's first (charge.py)."""
    printed = [line for line in (outcome.stdout or "").splitlines()
               if line.strip() and not line.startswith("DEBUG:")]
    what = None
    if outcome.args_after is not None and list(outcome.args_after) != list(args):
        what, hint = "changed the list it was given", "Work on a copy (sorted(dice), set(dice)); leave DICE as it was."
    elif printed:
        what, hint = "printed something", "Scoring functions return their points and print nothing."
    elif outcome.inputs_asked:
        what, hint = "asked for input", "Scoring functions read nothing: everything they need is in their arguments."
    if what:    # (the value right: this is the check's only difference, charged once a problem)
        raise Fail(f"{func}(...) returned the right value but {what}.", hidden=f"{func} {what}.",
                   ran=f"{func}(...)", show_values=False, hint=hint, sole=f"{func} {what}")
