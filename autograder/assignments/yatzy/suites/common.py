"""Helpers of the Yatzy suites: scenario data, points, calls through the given helpers, and the
replay of a several-player game read with the protocol of assignment.toml.

Expected values always come from the reference on the same input: nothing here knows a die.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest

from autograder.engine.bounds import number
from autograder.engine.checks import could_pass_by_doing_nothing, explain, reference_ok
from autograder.engine.divergence import first_line_difference
from autograder.engine.feedback import Fail, ordinal, show
from autograder.engine.grammar import Line, LineGrammar
from autograder.engine.suite import Suite, reference_versions  # noqa: F401 (the suites import it from here)

SUITE = Suite(__file__)
ASSIGNMENT = SUITE.assignment
RULES = SUITE.rules
PROTOCOL = ASSIGNMENT.extra["protocol"]
CATEGORIES: list[str] = list(RULES["categories"])
HELPERS: list[str] = list(RULES["helpers"])
ALL_FUNCTIONS = sorted({f for p in ASSIGNMENT.problems for f in p.functions})
CALL_TIMEOUT = 3.0          # one call, one turn (the reference needs milliseconds)
GAME_TIMEOUT = 6.0          # one whole game of several players


# ---------------------------------------------------------------------------------------
# Calls
# ---------------------------------------------------------------------------------------

def call(student, func: str, *args, under: tuple[str, ...] = (), **kwargs):
    """student.call, remembering endless loops in the program's timeout memory: once FUNC (or a
    function UNDER test through it) ran out of time, later checks that need it are skipped with a
    reason instead of waiting again.  (Not [calls]: which functions a call runs depends on the
    substitution of the stage, so the check says what it has under test.)"""
    for name in (func, *under):
        if name in student.timed_out:
            pytest.skip(f"can't check: {name} did not finish in time in an earlier check")
    outcome = student.call(func, *args, **kwargs)
    if outcome.status == "timeout":
        student.timed_out.update(under or (func,))
    return outcome


def helper_call(student, helper: str, *args, under: tuple[str, ...] = (), reference_for: tuple[str, ...] = (),
                **kwargs):
    """Call the given helper HELPER (try_turn, ...) in the student's program, always the
    reference's copy of it (the student's may be edited or missing); it calls the student's
    functions of the stage being graded, the reference's of the others (charge once) and the
    reference's REFERENCE_FOR (functions of the same stage that another problem grades: a
    total_score bug is not charged again in the ranking).  In an own_functions check (no
    substitution) it calls the student's functions everywhere."""
    missing = [name for name in under if name not in student.functions]
    if missing and student.functions:
        raise Fail(f"Your file has no function `{missing[0]}`.", show_values=False)
    base = student.substitute or {"names": [], "keep": ALL_FUNCTIONS}
    if student.substitute is None:
        reference_for = ()
    with student.substituting({"names": sorted(set(base["names"]) | set(HELPERS) | set(reference_for)),
                               "keep": [name for name in base["keep"] if name not in reference_for]}):
        return call(student, helper, *args, under=under, **kwargs)


def own_functions_until(student, stage: int) -> None:
    """For an own_functions check of STAGE: the student's own functions of stages 1..STAGE,
    the reference's of later stages (a later stage's bug is charged there, not here)."""
    later = sorted({f for p in ASSIGNMENT.problems if p.stage > stage for f in p.functions})
    mine = sorted({f for p in ASSIGNMENT.problems if p.stage <= stage for f in p.functions})
    student.substitute = {"names": later, "keep": mine} if later else None


def describe_pad_call(func: str, pad: dict) -> str:
    """FUNC(pad) with the pad told as what was played (a whole pad repr is too long to read)."""
    played = {k: v for k, v in pad.items() if v is not None}
    return f"{func}(pad), where pad = new_pad() with {played}" if played else f"{func}(new_pad())"


def expect_same_on_pad(student, reference, func: str, pad: dict, *, why: str, hint=None):
    """Fail unless FUNC(PAD) returns what the reference's returns (the call told by describe_pad_call)."""
    ran = describe_pad_call(func, pad)
    expected = reference_ok(reference.call(func, pad), ran).value
    could_pass_by_doing_nothing(expected)
    outcome = student.call(func, pad)
    if outcome.status != "ok":
        raise not_returned(outcome, ran, f"{func}(pad)")
    got = outcome.value
    if got != expected or type(got) is not type(expected):
        raise Fail(f"Called {ran}. Returned {show(got)}, but expected {show(expected)} ({why}).",
                   hidden=f"{func} returned the wrong value ({why}).", ran=ran,
                   hint=hint(got, expected) if hint else None, show_values=False)
    return got


def not_returned(outcome, ran: str, short: str, *, hint: str | None = None) -> Fail:
    """Fail saying why the student's call did not return: the detailed text, and the data-free
    one a hidden check shows (grader text only: nothing the program chose)."""
    status = outcome.status
    error = outcome.error or {}
    hidden = None
    if status == "input_exhausted":
        text = f"{short} asked for more input than the answers given (does it accept every valid answer?)"
    elif status == "dice_exhausted":
        text = f"{short} rolled more dice than it should (see the RNG contract)"
    elif status == "timeout":
        text, hint = f"{short} did not finish in time (an endless loop?)", None
    elif status == "output_limit":
        text, hint = f"{short} printed far too much (an endless loop that prints?)", None
    elif error.get("type") == "NotImplementedError":
        text, hint = f"{short} is not written yet", None
    else:
        text = explain(outcome, short)
        hidden = f"{short} {outcome.hidden_message or 'did not return normally'}"
    output = None if status in ("no_function", "syntax_error") else outcome.stdout
    return Fail(text.rstrip(".") + ".", hidden=(hidden or text).rstrip(".") + ".", ran=ran, hint=hint,
                show_values=False, output=output)


# ---------------------------------------------------------------------------------------
# Reading a game: the protocol's line grammar
# ---------------------------------------------------------------------------------------

LINE_KINDS = ("order", "round", "turn", "dice", "scored", "results", "result")


_INTEGER = re.compile(r"-?\d+")


def _normal(kind: str, match: re.Match) -> tuple:
    """A line's fields: the order's names and the dice as tuples, numbers as ints (not names).
    A field is a number only when it is one (`-?\\d+`, read by bounds.number): "²" or "--5" passes
    str.isdigit() after lstrip("-") but int() raises on it (redteam6: a program's category "²"
    made the grader's own check raise)."""
    groups = match.groupdict()
    if kind == "order":
        return (tuple(name.strip() for name in groups["names"].split(",")),)
    if kind == "dice":
        return (tuple(number(face) for face in groups["dice"].split()),)
    return tuple(number(v) if k not in ("name", "player") and _INTEGER.fullmatch(v) else v.strip()
                 for k, v in groups.items())


# Prompts run into the next printed text when input is not echoed: a protocol line is also
# found after the last prompt on a line (tails).
GRAMMAR = LineGrammar.of(PROTOCOL, LINE_KINDS, tails=True, normal=_normal)


def read_lines(stdout: str) -> list[Line]:
    """The protocol lines of STDOUT, in order."""
    return GRAMMAR.read(stdout)


def show_line(line: Line | None) -> str:
    return "nothing (the game ended)" if line is None else repr(line.text)


@dataclass
class Where:
    round: int | None = None
    category: str | None = None
    player: str | None = None
    place: int | None = None     # the player's place in the playing order, 1 first
    roll: int = 0


def position(lines: list[Line], index: int, order: tuple = ()) -> Where:
    """Which round, player and roll line INDEX of LINES belongs to."""
    where = Where()
    for line in lines[:index]:
        if line.kind == "order":
            order = line.fields[0]
        elif line.kind == "round":
            where = Where(round=line.fields[0], category=line.fields[1])
        elif line.kind == "turn":
            where.player, where.roll = line.fields[0], 0
            where.place = order.index(where.player) + 1 if where.player in order else None
        elif line.kind == "dice":
            where.roll += 1
        elif line.kind == "results":
            where = Where(category="results")
    return where


def describe_where(where: Where, *, hidden: bool) -> str:
    if where.category == "results":
        return "In the results"
    if where.round is None:
        return "Before the first round"
    text = f"In round {where.round} ({where.category})"
    if where.player is not None:
        who = f"the {ordinal(where.place)} player's turn" if hidden and where.place else f"{where.player}'s turn"
        text += f", {who}"
        if where.roll:
            text += f", after the {ordinal(where.roll)} roll"
    return text


WHAT = {
    "order": "the playing order line 'Order: ...'",
    "round": "the round line 'Round N: CATEGORY'",
    "turn": "the turn line 'Player: NAME'",
    "dice": "the dice line 'Dice: ...'",
    "scored": "the score line 'Scored N points in CATEGORY.'",
    "results": "the line 'Results:'",
    "result": "a results line 'N. NAME: TOTAL'",
}


def first_divergence(got: list[Line], expected: list[Line], *, hidden: bool) -> str | None:
    """None when GOT has EXPECTED's protocol lines; else one sentence naming where the game first
    went another way (round, category, player and roll), and what differs (data only when not HIDDEN)."""
    found = divergence(got, expected, hidden=hidden)
    return found[0] if found else None


def divergence(got: list[Line], expected: list[Line], *, hidden: bool) -> tuple[str, str] | None:
    """(the sentence of first_divergence, the kind of line expected there), or None."""
    index = first_line_difference(got, expected)
    if index is None:
        return None
    if index < len(expected):
        want = expected[index]
        have = got[index] if index < len(got) else None
        # a line that starts a round or a turn is told as part of it ("In round 2 (Twos), Bo's turn")
        where = describe_where(position(expected, index + (want.kind in ("round", "turn"))), hidden=hidden)
        if hidden:
            if have is None:
                return f"{where}: your game ended early; the next line expected is {WHAT[want.kind]}.", want.kind
            if have.kind != want.kind:
                return f"{where}: expected {WHAT[want.kind]}, but your game printed another kind of line.", want.kind
            return f"{where}: {WHAT[want.kind]} differs from the reference's.", want.kind
        return f"{where}: expected {want.text!r}, but your game printed {show_line(have)}.", want.kind
    extra = got[len(expected)]
    return ("After the results your game printed more protocol lines" +
            ("." if hidden else f", starting with {extra.text!r}.")), "result"


HINTS = {
    "order": "Right after start, shuffle the players once and print 'Order: ' and their names.",
    "round": "Play the fifteen categories in order, one round each, announced as 'Round N: CATEGORY'.",
    "turn": "In each round every player takes one turn, in playing order; a turn starts with 'Player: NAME'.",
    "dice": "Roll with roll(): the first roll all five dice, a re-roll only the dice not kept, left to right; "
            "print the dice after every roll.",
    "scored": "Score the dice in the category of the round with score(category, dice).",
    "results": "After the last round print 'Results:', then 'N. NAME: TOTAL' per player, winner first.",
    "result": "After the last round print 'Results:', then 'N. NAME: TOTAL' per player, winner first.",
}


def rng_calls(outcome) -> tuple[int, int, list[str], bool]:
    """(shuffles, dice rolled, other random functions called, whether a roll came before the shuffle)."""
    shuffles, rolls, others, early = 0, 0, [], False
    for event in outcome.events or ():
        if not event:
            continue
        if event[0] == "seed" and "seed" not in others:
            others.append("seed")
        elif event[0] == "roll":
            rolls += 1
        elif event[0] == "random" and len(event) > 1:
            if event[1] == "shuffle":
                shuffles += 1
                early = early or rolls > 0
            elif event[1] not in others:
                others.append(str(event[1]))
    return shuffles, rolls, others, early
