"""Stage 2: roll, reroll by letters, showdice, showscores.

Dice are injected into random.randint in order (then spare dice, so a program that rolls too
many can finish and be told so), or the RNG is seeded; expected values come from the reference.
"""

import pytest

from autograder.assignments.cs21.suites.common import (
    CALL_TIMEOUT,
    SPARE_DICE,
    check_run,
    not_normal,
    other_random,
    params,
    reference_ok,
    same_printing,
    scenarios,
)
from autograder.engine.checks import could_pass_by_doing_nothing
from autograder.engine.feedback import show
from autograder.engine.replay import dice_rolled, shown_calls
from autograder.engine.suite import Fail

DATA = scenarios("rolling")
OWN = 1.0       # the points of the integration check of problem 10


@pytest.mark.parametrize("case", params(DATA["rolls"], lambda case: 7))
def test_roll(student, reference, case):
    """roll"""
    if "dice" in case:
        kwargs = {"dice": list(case["dice"]) + SPARE_DICE}
        ran = f"roll() with random.randint returning {case['dice']}"
    else:
        kwargs = {"seed": case["seed"]}
        ran = f"roll() after random.seed({case['seed']})"
    expected = reference_ok(reference.call("roll", **kwargs), ran).value
    outcome = student.call_or_skip("roll", timeout=CALL_TIMEOUT, **kwargs)
    if outcome.status != "ok":
        raise not_normal(outcome, "roll", ran)
    others = other_random(outcome)
    got = outcome.value
    if others or got != expected or dice_rolled(outcome) != 5:
        summary = f"Called {ran}. Returned {show(got)}, but expected {show(expected)} ({case['why']})."
        if others:
            summary += f" It called {shown_calls(others)}."
        elif dice_rolled(outcome) != 5:
            summary += f" It called random.randint {dice_rolled(outcome)} times, not 5."
        raise Fail(summary, hidden=f"roll returned other dice than the RNG contract gives ({case['why']}).",
                   ran=ran, hint=case.get("hint") or "roll calls random.randint(1, 6) once per die, "
                   "A to E, and returns the five values as a list.", show_values=False)


@pytest.mark.parametrize("case", params(DATA["rerolls"], lambda case: 8))
def test_reroll(student, reference, case):
    """reroll"""
    dice = list(case["dice"])
    answers = list(case["answers"])
    seeded = "seed" in case                 # a seeded case rolls real random numbers: the RNG contract
    injected = None if seeded else list(case["rolls"]) + SPARE_DICE
    reference_after = reference.call("reroll", dice, stdin=answers, dice=injected, seed=case.get("seed")).args_after
    if reference_after and reference_after[0] == dice:
        could_pass_by_doing_nothing()           # nothing re-rolled: a reroll that only asks passes
    try:
        check_run(student, reference, "reroll", [dice], case, stdin=answers, dice=injected, seed=case.get("seed"),
                  compare_value=False, shown_dice=None if seeded else list(case["rolls"]))
    except Fail as fail:
        outcome = student.call("reroll", dice, stdin=answers, dice=injected, seed=case.get("seed"),
                               timeout=CALL_TIMEOUT)
        if (outcome.status == "ok" and reference_after and outcome.value == reference_after[0]
                and (outcome.args_after or [None])[0] != reference_after[0]):
            fail.hint = ("reroll changes dielist in place (dielist[i] = random.randint(1, 6)); a new list "
                         "returned is lost, because main ignores what reroll returns.")
        raise


@pytest.mark.parametrize("case", params(DATA["shown_dice"], lambda case: 9))
def test_showdice(student, reference, case):
    """showdice"""
    same_printing(student, reference, "showdice", [list(case["dice"])], case)


@pytest.mark.parametrize("case", params(DATA["shown_scores"], lambda case: 10))
def test_showscores(student, reference, case):
    """showscores"""
    same_printing(student, reference, "showscores", [list(case["dice"])], case)


@pytest.mark.problem(10)
@pytest.mark.points(OWN)
@pytest.mark.visibility("hidden")
@pytest.mark.own_functions
def test_showscores_own_functions(student, reference):
    """Integration: showscores with your own stage 1 functions"""
    same_printing(student, reference, "showscores", [[5, 5, 5, 5, 5]],
                  {"why": "five of a kind, with your own scoring functions"})
