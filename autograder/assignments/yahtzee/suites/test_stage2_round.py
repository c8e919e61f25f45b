"""Stage 2: one round.  Showing dice, reading keep answers, re-rolling, asking, playing a round.

Every expected value comes from the reference on the same call, script and injected dice.
Injected dice: random.randint returns the scenario's values in order (then spare dice, so a
program that rolls too many can finish and be told what it did).
"""

from __future__ import annotations

import functools

import pytest

from autograder.assignments.yahtzee.suites import round_checks as r
from autograder.assignments.yahtzee.suites.common import (
    CATEGORIES,
    PROTOCOL,
    ROUND_TIMEOUT,
    SPARE_DICE,
    SUITE,
    describe,
    flat,
    scorecard,
)
from autograder.engine.charge import stopped_aspect, written
from autograder.engine.checks import could_pass_by_doing_nothing, reference_ok
from autograder.engine.feedback import Fail
from autograder.engine.replay import random_calls, shown_calls
from autograder.engine.suite import hint_for, returned_value

DATA = SUITE.load("round")
FORMAT = DATA["format_dice"]
PARSE = DATA["parse_keep"]
REROLL = DATA["reroll"]
ASK_KEEP = DATA["ask_keep"]
FIND = DATA["find_category"]
ASK_CATEGORY = DATA["ask_category"]
ROUNDS = [case for case in DATA["play_round"] if case.get("problem", 12) == 12]


def _same_value(student, reference, case, func, *args, **kwargs):
    """Fail unless the student's FUNC(*ARGS) returns what the reference returns; the outcome."""
    ran = functools.partial(describe, func, args)   # (the call's text only where a failure shows it)
    expected = reference_ok(reference.call(func, *args, **kwargs), ran).value
    could_pass_by_doing_nothing(expected)
    outcome = student.call_or_skip(func, *args, **kwargs)
    got = returned_value(outcome, ran, short=f"{func}(...)")
    if got != expected:
        ran = ran()
        raise Fail(f"Called {ran}. Returned {got!r}, but expected {expected!r} ({case['why']}).",
                   hidden=f"{func} returned the wrong value: {case['why']}.",
                   ran=ran, expected=expected, got=got, hint=hint_for(case, got))
    return outcome


def _silent_reasks(events) -> int:
    """How many times the program asked again without printing anything since the last answer
    (the handout: an invalid answer gets a short message, then the same question)."""
    silent, answered, said = 0, False, False
    for event in events or ():
        if event and event[0] == "in":
            if answered and not said:
                silent += 1
            answered, said = True, False
        elif event and event[0] == "out" and len(event) > 1 and str(event[1]).strip():
            said = True
    return silent


def _check_message(outcome, ref, func: str, ran: str) -> None:
    """Fail when FUNC asked again after an invalid answer without saying what was wrong."""
    if ref.inputs_asked > 1 and _silent_reasks(outcome.events):
        raise Fail(f"Called {ran}: after an invalid answer, {func} asked again without a message.",
                   hidden=f"{func} asked again without a message after an invalid answer.", ran=ran,
                   show_values=False, hint="Print a short message saying what was wrong, then ask the same question.")


# --- Problem 7 ---------------------------------------------------------------------------------

@pytest.mark.parametrize("case", SUITE.cases(FORMAT, problem=7))
def test_format_dice(student, reference, case):
    """format_dice"""
    try:
        _same_value(student, reference, case, "format_dice", case["dice"])
    except Fail as fail:
        got = fail.got
        if isinstance(got, str) and ("[" in got or "," in got) and not fail.hint:
            fail.hint = "Show the values separated by single spaces, e.g. `Dice: 3 1 4 1 5`, not a Python list."
        raise


# --- Problem 8 ---------------------------------------------------------------------------------

@pytest.mark.parametrize("case", SUITE.cases(PARSE, problem=8))
def test_parse_keep(student, reference, case):
    """parse_keep"""
    text = case["text"]
    if case.get("invalid"):
        ran = describe("parse_keep", [text])
        could_pass_by_doing_nothing(raises=True)
        outcome = student.call_or_skip("parse_keep", text)
        if outcome.status == "exception" and (outcome.error or {}).get("type") == "ValueError":
            return
        if outcome.status == "ok":
            raise Fail(f"Called {ran}. Returned {outcome.value!r}, but expected it to raise ValueError "
                       f"({case['why']}).",
                       hidden=f"parse_keep returned a value where it must raise ValueError: {case['why']}.",
                       ran=ran, got=outcome.value, expected="ValueError", hint=case.get("hint"))
        returned_value(outcome, ran, short="parse_keep(...)")
        raised = f"parse_keep raised {(outcome.error or {}).get('type')} where ValueError was expected"
        raise Fail(f"{raised}: {ran}.", hidden=f"{raised}.", ran=ran, show_values=False,
                   hint="Raise ValueError for an invalid answer (ask_keep catches exactly that).")
    try:
        outcome = _same_value(student, reference, case, "parse_keep", text)
    except Fail as fail:
        if not fail.hint and isinstance(fail.got, list) and "," in text:
            fail.hint = "Positions may be separated by commas: treat commas like spaces."
        raise
    printed = [line for line in (outcome.stdout or "").splitlines() if line.strip() and not line.startswith("DEBUG:")]
    if outcome.inputs_asked or printed:                  # it reads and prints nothing
        what = "asked for input" if outcome.inputs_asked else "printed something"
        raise Fail(f"parse_keep({text!r}) returned the right positions but {what}.", hidden=f"parse_keep {what}.",
                   ran=describe("parse_keep", [text]), show_values=False,
                   hint="parse_keep only reads its argument: ask_keep does the asking and the messages.")


# --- Problem 9 ---------------------------------------------------------------------------------

def _fill_right_to_left(dice, keep, values):
    out = list(dice)
    rerolled = [p for p in range(1, 6) if p not in keep]
    for pos, value in zip(reversed(rerolled), values):
        out[pos - 1] = value
    return out


@pytest.mark.parametrize("case", SUITE.cases(REROLL, problem=9))
def test_reroll(student, reference, case):
    """reroll"""
    dice, keep = list(case["dice"]), list(case["keep"])
    injected = PROTOCOL.with_spare_dice(flat(case["rolls"]))
    ran = describe("reroll", [dice, keep])
    ref = reference_ok(reference.call("reroll", dice, keep, dice=injected), ran)
    outcome = student.call_or_skip("reroll", dice, keep, dice=injected, timeout=ROUND_TIMEOUT)
    try:
        got = returned_value(outcome, ran, short="reroll(...)")
    except Fail as stopped:     # (its line: a round stopped there is not charged again, engine/charge.py)
        stopped.aspect = stopped_aspect(outcome)
        raise
    want_rolled, rolled = ref.dice_used, outcome.dice_used
    ran_with = f"{ran} with roll_dice returning {flat(case['rolls'])}"
    if rolled != want_rolled:
        if rolled == 5 and want_rolled < 5:
            cause = "kept dice were re-rolled"
            hint = "Roll only the dice that are not kept: roll_dice(number of unkept dice), once."
        elif rolled > want_rolled:
            cause = "it rolled more dice than the unkept ones"
            hint = "Call roll_dice once, for the unkept dice only."
        else:
            cause = "it rolled fewer dice than the unkept ones"
            hint = "Every die that is not kept is rolled again."
        others = random_calls(outcome)
        called = f" It called {shown_calls(others)}: every die comes from roll_dice." if others else ""
        raise Fail(f"Called {ran}: {cause} (rolled {rolled} dice where {want_rolled} were expected).{called}",
                   hidden=f"reroll: {cause} ({case['why']}).",
                   ran=ran_with, expected=f"{want_rolled} dice rolled", got=f"{rolled} dice rolled",
                   hint=hint)
    if got != ref.value:
        hint = None
        if got == _fill_right_to_left(dice, keep, flat(case["rolls"])):
            hint = ("Re-rolled values were placed in the wrong positions: the first new value goes to the "
                    "leftmost re-rolled position (RNG contract rule 2).")
        elif isinstance(got, list) and len(got) == 5 and any(got[p - 1] != dice[p - 1] for p in keep):
            hint = "A kept die changed: the positions in keep must stay as they are."
        raise Fail(f"Called {ran_with}. Returned {got!r}, but expected {ref.value!r}.",
                   hidden=f"reroll returned the wrong dice: {case['why']}.",
                   ran=ran_with, expected=ref.value, got=got, hint=hint)
    after = (outcome.args_after or [None])[0]
    if after != dice:
        raise Fail(f"Called {ran}: afterwards the list passed in was {after!r}; reroll must not change it.",
                   hidden="reroll changed the list it was given.", ran=ran, expected=dice, got=after,
                   hint="Build and return a new list (e.g. start from list(dice)); leave DICE as it was.")


# --- Problem 10 --------------------------------------------------------------------------------

@pytest.mark.parametrize("case", SUITE.cases(ASK_KEEP, problem=10))
def test_ask_keep(student, reference, case):
    """ask_keep"""
    stdin = list(case["stdin"])
    ran = f"ask_keep() with the answers {stdin}"
    ref = reference_ok(reference.call("ask_keep", stdin=stdin, dice=SPARE_DICE), ran)
    outcome = student.call_or_skip("ask_keep", stdin=stdin, dice=SPARE_DICE, timeout=ROUND_TIMEOUT)
    if outcome.dice_used:
        raise Fail(f"ask_keep rolled dice (given the answers {stdin}): a re-prompt must not roll dice.",
                   hidden="ask_keep rolled dice: a re-prompt must not roll dice.", ran=ran, show_values=False,
                   hint="ask_keep only asks; after an invalid answer it asks again and rolls nothing.")
    if (outcome.status != "ok" or outcome.value != ref.value or outcome.inputs_asked != ref.inputs_asked) \
            and _as_own_parse_keep(student, stdin, outcome):
        return                          # parse_keep's bug: charged in its own checks (problem 8)
    got = returned_value(outcome, ran, short="ask_keep()", hint=case.get("hint"))
    if got != ref.value or outcome.inputs_asked != ref.inputs_asked:
        if outcome.inputs_asked < ref.inputs_asked:
            what = "it accepted an invalid answer"
        else:
            what = "it returned the wrong positions"
        raise Fail(f"Called {ran}: {what}. Returned {got!r} after {outcome.inputs_asked} answer(s); "
                   f"expected {ref.value!r} after {ref.inputs_asked}.",
                   hidden=f"ask_keep: {what} ({case['why']}).",
                   ran=ran, expected=ref.value, got=got,
                   hint=case.get("hint") or (got is None and "After an invalid answer, ask again and return what the "
                                             "new answer gives: a call of ask_keep() needs its `return` too.") or None)
    _check_message(outcome, ref, "ask_keep", ran)


def _as_own_parse_keep(student, stdin: list[str], outcome) -> bool:
    """Whether ask_keep answered as the student's OWN (written) parse_keep would make it: the first
    answer it does not refuse with ValueError, after as many questions, or asking on when it refuses
    them all (a parse_keep bug costs points once, in problem 8)."""
    if outcome.status not in ("ok", "input_exhausted") or not written(getattr(student, "source", None) or "",
                                                                         ["ask_keep", "parse_keep"]):
        return False                    # (a crash is ask_keep's own: no call made to find out)
    for asked, answer in enumerate(stdin, 1):
        own = student.call_or_skip("parse_keep", answer)
        if own.status == "exception" and (own.error or {}).get("type") == "ValueError":
            continue
        return own.status == "ok" and outcome.status == "ok" and outcome.value == own.value \
            and outcome.inputs_asked == asked
    return outcome.status == "input_exhausted"


@pytest.mark.parametrize("case", SUITE.cases(FIND, problem=10))
def test_find_category(student, reference, case):
    """find_category"""
    try:
        _same_value(student, reference, case, "find_category", case["text"])
    except Fail as fail:
        if not fail.hint and fail.got is None and fail.expected is not None:
            fail.hint = ("Names forgive case and spacing: compare normalize_name(text) with "
                         "normalize_name(category).")
        raise


# --- Problem 11 --------------------------------------------------------------------------------

@pytest.mark.parametrize("case", SUITE.cases(ASK_CATEGORY, problem=11))
def test_ask_category(student, reference, case):
    """ask_category"""
    card = scorecard(case.get("filled"), case.get("bonus", 0))
    allowed = case.get("allowed") or [c for c in CATEGORIES if card[c] is None]
    stdin = list(case["stdin"])
    ran = f"{describe('ask_category', [card, allowed])}; the answers {stdin}"
    ref = reference_ok(reference.call("ask_category", card, allowed, stdin=stdin, dice=SPARE_DICE), ran)
    outcome = student.call_or_skip("ask_category", card, allowed, stdin=stdin, dice=SPARE_DICE,
                   timeout=ROUND_TIMEOUT)
    got = returned_value(outcome, ran, short="ask_category(...)", hint=case.get("hint"))
    if got != ref.value:
        if isinstance(got, str) and got in card and card[got] is not None:
            what = "it accepted a box that is already filled"
        elif isinstance(got, str) and got in card and got not in allowed:
            what = "it accepted a box that is not allowed"
        elif outcome.inputs_asked < ref.inputs_asked:
            what = "it accepted an answer it should refuse"
        else:
            what = "it returned the wrong category"
        raise Fail(f"Called {ran}: {what}. Returned {got!r}; expected {ref.value!r}.",
                   hidden=f"ask_category: {what} ({case['why']}).",
                   ran=ran, expected=ref.value, got=got, hint=case.get("hint"))
    if outcome.dice_used:
        raise Fail("ask_category rolled dice; asking must not roll.", ran=ran, show_values=False)
    _check_message(outcome, ref, "ask_category", ran)
    after = (outcome.args_after or [None])[0]
    if after != card:
        raise Fail("ask_category changed the scorecard; it only asks (play_round writes the points).",
                   ran=ran, expected=card, got=after)


# --- Problem 12 --------------------------------------------------------------------------------

# Every check of this stage runs with the reference's stage-1 functions in place of the student's
# (a scoring bug costs points once, in stage 1); this one integration check runs play_round with
# the student's own score, so a round that only works with the reference's helpers loses it.
# The Yahtzee bonus a round leaves on the scorecard is stage 4's rule (problem 19), not compared here.
@pytest.mark.parametrize("case", SUITE.cases(ROUNDS, problem=12))
def test_play_round(student, reference, case):
    """play_round"""
    r.check_round(student, reference, case, bonus_rule=False)


@pytest.mark.problem(12)
@pytest.mark.points(1)
@pytest.mark.visibility("hidden")
@pytest.mark.own_functions
def test_play_round_own_functions(student, reference):
    """Integration: play_round with your own stage 1 functions"""
    r.check_round(student, reference, ROUNDS[2], bonus_rule=False)
