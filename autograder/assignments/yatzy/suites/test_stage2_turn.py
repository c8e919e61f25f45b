"""Stage 2: a die generator, a new player, reading which dice to keep, rolling, one turn.

Functions that take a Player (roll, play_turn) are called through the given helpers
(try_roll, try_turn ...: always the reference's copy), which build the player with the
student's new_player; each check compares what came back, and for a turn also the protocol
lines printed, with the reference on the same answers and dice."""

import pytest

from autograder.assignments.yatzy.suites.common import (
    CALL_TIMEOUT,
    SUITE,
    call,
    helper_call,
    not_returned,
    own_functions_until,
    read_lines,
    reference_ok,
    reference_versions,
)
from autograder.engine.checks import could_pass_by_doing_nothing, expect_same
from autograder.engine.divergence import first_line_difference, sole_difference
from autograder.engine.feedback import Fail, describe_call, ordinal, show
from autograder.engine.replay import shown_calls, silent_refusals

TURN_PARTS = ("die", "new_pad", "new_player", "parse_keep", "ask_keep", "roll")   # graded in problems 7-10


def _request(case: dict) -> dict:
    return {"stdin": case.get("answers"), "seed": case.get("seed"), "dice": case.get("dice"),
            "timeout": CALL_TIMEOUT}


def _ran(helper: str, args: list, case: dict) -> str:
    text = describe_call(helper, args)
    if case.get("answers") is not None:
        text += f" with the answers {case['answers']}"
    if case.get("dice") is not None:
        text += f" and the dice {case['dice']}"
    if case.get("seed") is not None:
        text += f" after random.seed({case['seed']})"
    return text


def _other_random(outcome) -> set[str]:
    """The functions of random other than randint that OUTCOME called (random.seed included)."""
    return {"seed" if event[0] == "seed" else str(event[1]) for event in outcome.events or ()
            if event and (event[0] == "seed" or (event[0] == "random" and len(event) > 1))}


def compare(student, reference, helper: str, args: list, case: dict, *, under: tuple, short: str,
            hint=None, reference_for: tuple[str, ...] = ()) -> None:
    """Fail unless HELPER(*ARGS) returns what the reference's does, with the same input asked.
    SHORT names the call in the feedback; a hidden check names it without its arguments."""
    hidden_short = short.split("(")[0] + "(...)" + short.split(")", 1)[1] if "(" in short else short
    ran = _ran(helper, args, case)
    expected = reference_ok(reference.call(helper, *args, **_request(case)), ran)
    outcome = helper_call(student, helper, *args, under=under, reference_for=reference_for, **_request(case))
    if outcome.status != "ok":
        fail = not_returned(outcome, ran, short, hint=hint)
        fail.hidden = fail.hidden.replace(short, hidden_short)
        raise fail
    others = _other_random(outcome) - _other_random(expected)
    if others:      # (before the value: what another random function gives is not the dice given)
        raise Fail(f"{short} called {shown_calls(sorted(others))}: every face comes from "
                   f"random.randint(1, 6), nothing else of random (the RNG contract) ({case['why']}).",
                   hidden=f"{hidden_short} called another random function than random.randint ({case['why']}).",
                   ran=ran, hint=hint, show_values=False)
    if outcome.value != expected.value:
        raise Fail(f"{short}: got {show(outcome.value)}, but expected {show(expected.value)} ({case['why']}).",
                   hidden=f"{hidden_short} gave the wrong result ({case['why']}).", ran=ran, hint=hint,
                   show_values=False)
    if case.get("answers") is not None and outcome.inputs_asked != expected.inputs_asked:
        text = (f"{short} asked for input {outcome.inputs_asked} time(s), but the reference asks "
                f"{expected.inputs_asked} time(s) for these answers ({case['why']}).")
        raise Fail(text, hidden=f"{hidden_short} asked for input more or fewer times than expected ({case['why']}).",
                   ran=ran, hint=hint, show_values=False)


@pytest.mark.parametrize("case", SUITE.cases("turn", "a_die", problem=7))
def test_die(student, reference, case):
    """A die"""
    hint = "die() must be a generator function: `while True: yield random.randint(1, 6)`."
    compare(student, reference, "try_die", [case["count"]], case, under=("die",),
            short=f"die() asked {case['count']} time(s) with next()", hint=hint)


@pytest.mark.parametrize("case", SUITE.cases("turn", "player", problem=8))
def test_new_player(student, reference, case):
    """A new player"""
    hint = ("new_player(name) returns Player(name, new_pad(), [five die() generators]); "
            "new_pad() maps every category, in order, to None.")
    compare(student, reference, "try_player", [case["name"]], case, under=("new_player", "new_pad"),
            short=f"new_player({case['name']!r})", hint=hint, reference_for=("die",))


@pytest.mark.problem(8)
def test_new_pad_order(student, reference):
    """new_pad: every category, in the order of the turns, with None"""
    expected = reference_ok(reference.call("new_pad"), "new_pad()").value
    got = expect_same(student, reference, "new_pad", why="every category with None")
    if list(got) != list(expected):
        raise Fail(f"new_pad() has the categories in the order {list(got)}, but the pad follows the order "
                   f"of the turns: {list(expected)}.", show_values=False)


@pytest.mark.parametrize("case", SUITE.cases("turn", "keep", problem=9))
def test_parse_keep(student, reference, case):
    """Reading a keep answer"""
    expect_same(student, reference, "parse_keep", case["text"], why=case["why"],
                hint=(lambda got, expected: case.get("hint")))


@pytest.mark.parametrize("case", SUITE.cases("turn", "ask", problem=9))
@pytest.mark.weight(2)
def test_ask_keep(student, reference, case):
    """Asking which dice to keep"""
    ran = _ran("ask_keep", [], case)
    expected = reference_ok(reference.call("ask_keep", **_request(case)), ran)
    with reference_versions(student, ("parse_keep",)):
        outcome = call(student, "ask_keep", **_request(case))
    if outcome.status != "ok":
        raise not_returned(outcome, ran, "ask_keep()")
    if outcome.value != expected.value or outcome.inputs_asked != expected.inputs_asked:
        raise Fail(f"ask_keep() returned {show(outcome.value)} after {outcome.inputs_asked} answer(s), but "
                   f"expected {show(expected.value)} after {expected.inputs_asked} ({case['why']}).",
                   hidden=f"ask_keep() did not return the first valid answer's positions ({case['why']}).",
                   ran=ran, show_values=False,
                   hint="Ask again (input()) after every invalid answer; return parse_keep's list.")
    if any(e and e[0] == "roll" for e in outcome.events or ()):
        raise Fail("ask_keep() rolled dice: asking never rolls.", show_values=False)
    silent = silent_refusals(outcome.events, expected.events)
    if silent:
        raise Fail(f"ask_keep() asked again after the invalid answer {case['answers'][silent[0] - 1]!r} without "
                   f"printing a message first ({case['why']}).",
                   hidden=f"ask_keep() asked again after an invalid answer without a message ({case['why']}).",
                   ran=ran, show_values=False, hint="Print a short message saying what was wrong, then ask again.")


@pytest.mark.parametrize("case", SUITE.cases("turn", "rolls", problem=10))
def test_roll(student, reference, case):
    """Rolling a player's dice"""
    compare(student, reference, "try_roll", list(case["args"]), case, under=("roll",),
            short="roll(player, faces, keep)", hint=case.get("hint"), reference_for=("new_player", "new_pad", "die"))


def _turn_lines(stdout: str) -> list:
    return [line for line in read_lines(stdout) if line.kind in ("turn", "dice", "scored")]


@pytest.mark.parametrize("case", SUITE.cases("turn", "turn", problem=11))
def test_play_turn(student, reference, case):
    """One turn"""
    check_turn(student, reference, case)


def check_turn(student, reference, case: dict, *, own: bool = False) -> None:
    args = [case["name"], case["category"], case.get("scored", {})]
    short = f"play_turn(player, {case['category']!r})"
    ran = _ran("try_turn", args, case)
    expected = reference_ok(reference.call("try_turn", *args, **_request(case)), ran)
    could_pass_by_doing_nothing(expected.value["points"])
    outcome = helper_call(student, "try_turn", *args, under=("play_turn",), **_request(case),
                          reference_for=() if own else TURN_PARTS)
    if outcome.status != "ok":
        raise not_returned(outcome, ran, short,
                           hint="Roll three times at most: ask to keep after the 1st and 2nd roll only.")
    want, got = _turn_lines(expected.stdout), _turn_lines(outcome.stdout)
    index = first_line_difference(got, want)
    if index is not None and index < len(want):            # (lines after the reference's: not read)
        line, have = want[index], got[index] if index < len(got) else None
        rolls = sum(1 for w in want[:index] if w.kind == "dice")
        where = f"after the {ordinal(rolls)} roll" if rolls else "at the start of the turn"
        # a turn that differs in one kind of line only, one way (its Scored line worded otherwise),
        # and returns and writes what the reference does: the problem's other turns with that same
        # difference are charged once (engine/charge.excuse_same_difference), as P17's games are
        sole = sole_difference(got, want) if outcome.value == expected.value else None
        raise Fail(f"{short}: {where}, expected the line {line.text!r}, but your turn printed "
                   f"{'nothing more' if have is None else repr(have.text)} ({case['why']}).",
                   hidden=f"{short}: a line the grader reads differs from the reference's {where} "
                          f"({case['why']}).",
                   ran=ran, show_values=False, output=outcome.stdout,
                   hint="Print 'Player: NAME', then 'Dice: ...' after every roll, then "
                        "'Scored N points in CATEGORY.'", sole=sole)
    if outcome.value != expected.value:
        raise Fail(f"{short}: returned {outcome.value['points']!r} with the pad {outcome.value['pad']}, but "
                   f"expected {expected.value['points']!r} with the pad {expected.value['pad']} ({case['why']}).",
                   hidden=f"{short} returned or wrote on the pad the wrong points ({case['why']}).",
                   ran=ran, show_values=False,
                   hint="Write the points on player.pad[category] (only that category) and return them.")


@pytest.mark.problem(11)
@pytest.mark.weight(2)
@pytest.mark.visibility("hidden")
@pytest.mark.own_functions
def test_play_turn_own_functions(student, reference):
    """Integration: a turn with your own functions of stages 1 and 2"""
    own_functions_until(student, 2)
    check_turn(student, reference, SUITE.load("turn")["turn"][0], own=True)
