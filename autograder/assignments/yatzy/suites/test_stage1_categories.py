"""Stage 1: the fifteen category functions and the dispatcher, one call at a time, against the reference.

(No own_functions check here: stage-1 functions call no function of another stage.)"""

import pytest

from autograder.assignments.yatzy.suites.common import (
    ASSIGNMENT,
    SUITE,
    not_returned,
    reference_ok,
    reference_versions,
)
from autograder.engine.checks import could_pass_by_doing_nothing, expect_same
from autograder.engine.feedback import Fail

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



# score() sends every category to its function (P6): one throw per category that scores there, and
# (but for the straights and the full house, whose points are their sum) in no other category the
# same; none of them a scoring case's call, so a hidden check asks nothing a public one reads.  A
# dispatcher that loses or misroutes a category fails here, in its own problem, not in the games of
# later stages (tests/corpus/courses23).
DISPATCH = {"Ones": [1, 5, 3, 6, 2], "Twos": [2, 5, 3, 6, 1], "Threes": [3, 5, 2, 6, 1], "Fours": [4, 1, 5, 2, 6],
            "Fives": [5, 1, 3, 6, 2], "Sixes": [6, 2, 5, 1, 3], "Pair": [4, 4, 4, 1, 2], "Two Pairs": [5, 3, 3, 5, 2],
            "Three of a kind": [2, 2, 2, 2, 5], "Four of a kind": [3, 3, 3, 3, 3], "Small straight": [4, 2, 5, 1, 3],
            "Large straight": [3, 6, 2, 5, 4], "Full house": [6, 3, 6, 3, 6], "Chance": [2, 6, 4, 1, 5],
            "Yatzy": [4, 4, 4, 4, 4]}


@pytest.mark.parametrize("case", SUITE.cases([{"problem": 6, "why": "score, the dispatcher: every category"}]))
def test_dispatcher(student, reference, case):
    """Scoring"""
    with reference_versions(student, CATEGORY_FUNCTIONS):
        for category, dice in DISPATCH.items():
            expect_same(student, reference, "score", category, list(dice), why=f"the dispatcher: {category}")


# Dice that score in the problem's category (a real answer) and are sorted neither way, so that a
# function that sorts (or reverses) its argument in place is caught changing it (tests/test_honest5.py).
PURE_DICE = {1: [5, 2, 5, 1, 5], 2: [5, 2, 5, 2, 5], 3: [5, 5, 1, 5, 5], 4: [4, 6, 2, 5, 3], 5: [5, 2, 2, 5, 5],
             6: [5, 2, 5, 1, 5]}
PURE = [{"problem": p.number, "why": ", ".join(p.functions), "weight": 0.5} for p in ASSIGNMENT.stage_problems(1)]


@pytest.mark.parametrize("case", SUITE.cases(PURE))
def test_pure(student, reference, case):
    """Pure: prints nothing, reads nothing, changes no argument"""
    dice = PURE_DICE[case["problem"]]
    real = False
    for func in ASSIGNMENT.problem(case["problem"]).functions:
        args = ["Pair", list(dice)] if func == "score" else [list(dice)]
        ran = f"{func}({', '.join(repr(a) for a in args)})"
        expected = reference_ok(reference.call(func, *args), ran).value
        real = real or bool(expected)
        with reference_versions(student, CATEGORY_FUNCTIONS if func == "score" else ()):
            outcome = student.call(func, *args)
        if outcome.status != "ok":
            raise not_returned(outcome, ran, f"{func}(...)")
        # Wrong points are the scoring checks' to charge, once: here they fail only a function with no
        # right answer anywhere (no points for purity to a function that does nothing).
        if outcome.value != expected and not _answers_right(student, reference, func):
            raise Fail(f"{ran} returned the wrong points, and no scoring case of {func} with a real answer "
                       "gets its points: purity counts once one does.",
                       hidden=f"{func} returned the wrong points, and no scoring case of {func} with a real "
                              "answer gets its points: purity counts once one does.", ran=ran, show_values=False)
        printed = [line for line in (outcome.stdout or "").splitlines() if line.strip() and not line.startswith("DEBUG:")]
        problems = []
        if printed:
            problems.append("printed something")
        if outcome.inputs_asked:
            problems.append("asked for input")
        if outcome.args_after is not None and outcome.args_after != args:
            problems.append("changed its argument (the list of dice)")
        if problems:
            raise Fail(f"{ran} {' and '.join(problems)}: a category function only returns its points.",
                       hidden=f"{func} {' and '.join(problems)}: a category function only returns its points.",
                       ran=ran, show_values=False,
                       hint="Work on a copy (sorted(dice) makes a new list); print and ask nothing.")
    could_pass_by_doing_nothing(real)      # all zeros: counts only once a real answer of the problem passes


def _hidden_calls(cases: list[dict]) -> list[list]:
    """The scoring cases' calls a hidden check may ask: the hidden ones, and each public one with its
    dice reversed (a request of its own: a hidden check asks nothing a public check reads)."""
    calls = []
    for case in cases:
        name, *args = case["call"]
        call = [name, *args[:-1], list(reversed(args[-1]))] if case.get("public") else case["call"]
        if call not in calls:
            calls.append(call)
    return calls


HIDDEN_SCORING = _hidden_calls(SUITE.load("scoring")["case"])


def _answers_right(student, reference, func: str) -> bool:
    """Whether FUNC returns the reference's points, not 0, on some scoring case (HIDDEN_SCORING)."""
    for name, *args in HIDDEN_SCORING:
        if name != func:
            continue
        want = reference.call(name, *args)
        if want.status != "ok" or not want.value:
            continue
        with reference_versions(student, CATEGORY_FUNCTIONS if func == "score" else ()):
            got = student.call(name, *args)
        if got.status == "ok" and got.value == want.value:
            return True
    return False      # all zeros: counts only once a real answer of the problem passes
