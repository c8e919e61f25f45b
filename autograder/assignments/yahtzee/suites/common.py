"""Helpers shared by the Yahtzee stage suites: scenario data, points and problem lookup."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from autograder.assignment import load_assignment

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ASSIGNMENT = load_assignment("yahtzee")
SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"


def scenarios(name: str) -> dict:
    """Load scenarios/NAME.toml (inputs only: expected values come from the reference)."""
    return tomllib.loads((SCENARIOS / f"{name}.toml").read_text(encoding="utf-8"))


def problem_of(function: str, stage: int | None = None) -> int:
    for problem in ASSIGNMENT.problems:
        if function in problem.functions and (stage is None or problem.stage == stage):
            return problem.number
    raise KeyError(f"no problem lists {function}")


def params(cases: list[dict], problem_key, id_key=lambda case: case["why"]) -> list:
    """pytest.params for CASES, splitting each problem's points evenly over its cases."""
    counts: dict[int, int] = {}
    for case in cases:
        counts[problem_key(case)] = counts.get(problem_key(case), 0) + 1
    out = []
    given: dict[int, float] = {}
    seen: dict[int, int] = {}
    for case in cases:
        problem = problem_key(case)
        seen[problem] = seen.get(problem, 0) + 1
        total = ASSIGNMENT.problem(problem).points
        if seen[problem] == counts[problem]:      # the last case takes the rounding remainder
            points = round(total - given.get(problem, 0), 4)
        else:
            points = round(total / counts[problem], 4)
        given[problem] = given.get(problem, 0) + points
        marks = [pytest.mark.problem(problem), pytest.mark.points(points)]
        if not case.get("public"):
            marks.append(pytest.mark.visibility("hidden"))
        out.append(pytest.param(case, marks=marks, id=id_key(case)))
    return out


# ---------------------------------------------------------------------------------------------
# Helpers of the stage 2-4 suites
# ---------------------------------------------------------------------------------------------

CATEGORIES = ["Ones", "Twos", "Threes", "Fours", "Fives", "Sixes", "Three of a Kind", "Four of a Kind",
              "Full House", "Small Straight", "Large Straight", "Yahtzee", "Chance"]
BONUS_KEY = "Yahtzee Bonus"
# Dice after the scripted ones: a program that rolls too many can still finish and be told so.
SPARE_DICE = [1, 2, 4, 5, 6, 3, 6, 1, 2, 4, 5, 3, 1, 6, 2]


def scenarios_dir() -> Path:
    """Where the scenario files are read: AUTOGRADER_SCENARIOS_DIR (a fresh hidden set written by
    `python -m autograder scenarios --out DIR`) overrides the committed files it holds."""
    return Path(os.environ.get("AUTOGRADER_SCENARIOS_DIR") or SCENARIOS)


def load_scenarios(name: str) -> dict:
    """scenarios/NAME.toml, or the same file from AUTOGRADER_SCENARIOS_DIR when it has one."""
    override = scenarios_dir() / f"{name}.toml"
    path = override if override.is_file() else SCENARIOS / f"{name}.toml"
    return tomllib.loads(path.read_text(encoding="utf-8"))


def scorecard(filled: dict | None = None, bonus: int = 0) -> dict:
    """A scorecard with the FILLED boxes set and the others open (None)."""
    filled = filled or {}
    unknown = set(filled) - set(CATEGORIES)
    if unknown:
        raise ValueError(f"scenario names unknown categories {sorted(unknown)}")
    card = {category: filled.get(category) for category in CATEGORIES}
    card[BONUS_KEY] = bonus
    return card


def flat(rows) -> list:
    out = []
    for row in rows or []:
        out.extend(row if isinstance(row, list) else [row])
    return out


def share(problem: int, checks: int) -> float:
    """The points of one of CHECKS equal checks of PROBLEM (the suites choose counts that divide)."""
    return round(ASSIGNMENT.problem(problem).points / checks, 4)


def case_params(cases: list[dict], problem: int, points: float, id_key=lambda case: case["why"]) -> list:
    """pytest.params for CASES of PROBLEM, POINTS each; hidden unless the case says public."""
    out = []
    for case in cases:
        marks = [pytest.mark.problem(problem), pytest.mark.points(points)]
        if not case.get("public"):
            marks.append(pytest.mark.visibility("hidden"))
        out.append(pytest.param(case, marks=marks, id=id_key(case)))
    return out


def hint_for(case: dict, got) -> str | None:
    """The case's hint when GOT is the recognised mistake (or always, without hint_when)."""
    if "hint" not in case:
        return None
    if "hint_when" in case:
        return case["hint"] if got == case["hint_when"] else None
    return case["hint"]


def reference_ok(outcome, ran: str):
    """The reference's outcome of RAN, or a GraderFault: expected values must exist."""
    from autograder.engine.checks import GraderFault

    if outcome.status != "ok":
        raise GraderFault(f"the reference failed on {ran}: {outcome.status} {outcome.message} {outcome.error}")
    return outcome


def student_value(outcome, ran: str, *, hidden: bool, short: str, hint: str | None = None):
    """What the student's call returned, or Fail saying why it did not return (data-free when HIDDEN)."""
    from autograder.engine.checks import explain
    from autograder.engine.feedback import Fail

    if outcome.status == "ok":
        return outcome.value
    shown = short           # the call itself is on the Ran: line (public checks only)
    if outcome.status == "input_exhausted":
        text = f"{shown} {outcome.message}" if outcome.message else f"{shown} asked for more input than given"
        if hidden:
            text = f"{short} asked for more input than the answers given"
    elif outcome.status == "timeout":
        text = f"{shown} did not finish in time (an endless loop?)"
    elif hidden and outcome.status == "exception":
        error = outcome.error or {}
        if error.get("type") == "NotImplementedError":
            text = f"{short} is not written yet"
        else:
            text = f"{short} {outcome.hidden_message}"     # grader text only: no name the program chose
    else:
        text = explain(outcome, shown)
    raise Fail(text, ran=ran, hint=hint, show_values=False,
               output=outcome.stdout if outcome.status not in ("no_function", "syntax_error") else None)


def data_free(fail, func: str, case: dict):
    """FAIL with a summary that says what the hidden CASE covers, not its data (no call, no values)."""
    text = fail.summary
    why = case.get("why", "")
    if "not written yet" in text:
        summary = f"{func} is not written yet."
    elif "no function" in text:
        summary = text.split(";")[0].split(":")[0].rstrip(".") + "."
    elif "expected it to raise" in text or "; expected " in text:
        summary = f"{func} must raise ValueError here ({why})."
    elif "Returned" in text:
        summary = f"{func} returned the wrong value ({why})."
    else:
        summary = f"{func} did not return normally ({why})."
    fail.summary = summary
    fail.args = (summary,)
    return fail


ROUND_TIMEOUT = 3.0     # seconds for one round or one question (the reference needs milliseconds)
GAME_TIMEOUT = 5.0      # seconds for one whole game
CALLS = {"play_game": ("play_round", "ask_keep", "ask_category", "reroll"),
         "play_round": ("ask_keep", "ask_category", "reroll")}


def call(student, func: str, *args, **kwargs):
    """student.call, remembering endless loops: once FUNC (or a function it calls) ran out of
    time, later checks that need it are skipped with a reason instead of waiting again."""
    slow = student.__dict__.setdefault("_yahtzee_timeouts", set())
    for name in (func, *CALLS.get(func, ())):
        if name in slow:
            pytest.skip(f"can't check: {name} did not finish in time in an earlier check")
    outcome = student.call(func, *args, **kwargs)
    if outcome.status == "timeout":
        slow.add(func)
    return outcome


def describe(func: str, args: list | tuple = ()) -> str:
    """FUNC(args) as the student would type it; a scorecard argument is shown as `card`, with its
    filled boxes after the call (a whole scorecard repr is too long to read)."""
    from autograder.engine.feedback import describe_call

    shown, cards = [], []
    for arg in args:
        if isinstance(arg, dict) and set(CATEGORIES) <= set(arg):
            cards.append(arg)
            shown.append("card")
        else:
            shown.append(arg)
    text = describe_call(func, [_Raw(a) if a == "card" and cards else a for a in shown])
    for card in cards[:1]:
        filled = {k: v for k, v in card.items() if k in CATEGORIES and v is not None}
        text += (f", where card = new_scorecard() with {filled}" if filled else ", where card = new_scorecard()")
        if card.get(BONUS_KEY):
            text += f" and card[{BONUS_KEY!r}] = {card[BONUS_KEY]}"
    return text


class _Raw:
    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return self.text
