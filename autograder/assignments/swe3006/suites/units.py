"""The unit cases of stages 1 and 2, run by the stage suites as graded checks."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from autograder.assignments.swe3006.suites.common import (
    ASSIGNMENT,
    CATEGORIES,
    WARNINGS,
    Call,
    Compare,
    check_call,
    reference_run,
    scenarios,
    score_aspect,
    stopped,
)
from autograder.engine.charge import stopped_aspect
from autograder.engine.checks import could_pass_by_doing_nothing, explain
from autograder.engine.feedback import Fail, show

SCORING = scenarios("scoring")
TURN = scenarios("turn")


@dataclass
class Unit:
    problem: int
    id: str
    public: bool
    run: Callable          # (student, reference) -> None, raises Fail
    integration: bool = False   # an own_functions check: the student's own methods of every stage


def _score(case: dict) -> Callable:
    call = Call("calculate_score", state={"dice_combination": list(case["dice"])})

    def run(student, reference):
        expected = reference_run(reference, call).value
        outcome = call.run(student, case["problem"])
        if outcome.status != "ok":
            raise Fail(explain(outcome, "calculate_score()"),
                       hidden=stopped(outcome, call, hidden=True), ran=call.describe(), hint=case.get("hint"),
                       show_values=False, output=outcome.stdout, aspect=stopped_aspect(outcome))
        got = outcome.value
        dice = case["dice"]
        if case["categories"] == ["*order"]:
            keys = list(got) if isinstance(got, dict) else None
            if keys != CATEGORIES:
                raise Fail(f"calculate_score() with dice {dice} returned the keys {show(keys)}, but expected "
                           f"{CATEGORIES}.", hidden="calculate_score does not return the 13 categories in order.",
                           hint=case.get("hint"), show_values=False, aspect="the categories in order")
            return
        for name in case["categories"]:
            want = expected[name]
            have = got.get(name, "<missing>") if isinstance(got, dict) else "<not a dict>"
            if have != want or type(have) is not type(want):
                raise Fail(f"Called calculate_score() with dice_combination = {dice}. {name} is {show(have)}, "
                           f"but expected {show(want)}.",
                           hidden=f"calculate_score gives a wrong {name} score for a hidden roll.",
                           hint=case.get("hint"), show_values=False, aspect=score_aspect(name))
        could_pass_by_doing_nothing(expected[case["categories"][0]] or None)
    return run


def _input_call(case: dict) -> tuple[Call, Compare, str]:
    answers = [case.get("flood_answer", "")] * case.get("flood", 0) + list(case["answers"])
    numeric = bool(case.get("numeric"))
    call = Call("get_valid_input", ([] if numeric else list(case["valid"]), WARNINGS[case["warning"]],
                                    case["prompt"], numeric), stdin=answers)
    return call, Compare(value=True), "each bad answer: an empty line, the [WARN] line, the prompt again"


def _roll_call(case: dict) -> tuple[Call, Compare, str]:
    call = Call("rolling_phase", stdin=list(case["answers"]), seed=case["seed"])
    return call, Compare(rolls=True, attributes=("dice_combination",)), ""


def _roll_dices_call(case: dict) -> tuple[Call, Compare, str]:
    kept = {int(position): value for position, value in case.get("kept", {}).items()}   # position -> value
    call = Call("roll_dices", (kept,), seed=case["seed"])
    return call, Compare(value=True, rolls=True), "kept_dices maps positions 1-5 to values"


def _straight_call(case: dict) -> tuple[Call, Compare, str]:
    call = Call("is_straight", (set(case["dice_set"]), case["small"]))
    wrong = score_aspect("Small Straight" if case["small"] else "Large Straight")   # where a table shows it
    return call, Compare(value=True, aspect=wrong), "dice_set is a set of dice values"


def _table_call(case: dict) -> tuple[Call, Compare, str]:
    return Call("print_score_table", (dict(case["sheet"]),)), Compare(kinds=("header", "row")), \
        "one row per category, in order"


def _record_call(case: dict) -> tuple[Call, Compare, str]:
    state = {"dice_combination": list(case["dice"]), "recorded_score_sheet": [dict(s) for s in case["sheets"]],
             "current_player": case.get("player", 1), "game_mode": case.get("mode", 1)}
    return Call("recording_phase", state=state, stdin=list(case["answers"])), \
        Compare(attributes=("recorded_score_sheet",)), ""


# turn.toml's and scoring.toml's kinds of case -> (the call and what its check compares, the problem
# of every case of the kind when its cases do not say it): the graded checks and the public ones
# (games.public_game) are made of the same calls
UNIT_CALLS: dict[str, tuple[Callable[[dict], tuple[Call, Compare, str]], int | None]] = {
    "straight": (_straight_call, 2), "input": (_input_call, None), "roll_dices": (_roll_dices_call, 5),
    "roll": (_roll_call, 5), "table": (_table_call, 6), "record": (_record_call, 7)}


def unit_problem(kind: str, case: dict) -> int:
    return UNIT_CALLS[kind][1] or case["problem"]


def _made(kind: str) -> Callable:
    def make(case: dict) -> Callable:
        call, compare, why = UNIT_CALLS[kind][0](case)
        return _checked(call, case, compare, why=why)
    return make


def _checked(call: Call, case: dict, compare: Compare, why: str = "") -> Callable:
    def run(student, reference):
        check_call(student, reference, call, case["problem"], compare, why=why, hint=case.get("hint"),
                   own=bool(case.get("integration")))
    return run


def _units() -> list[Unit]:
    def unit(case: dict, make: Callable, problem: int | None = None) -> Unit:
        case = dict(case, problem=problem or case["problem"])
        return Unit(case["problem"], case["id"], bool(case.get("public")), make(case), bool(case.get("integration")))
    units = [unit(c, _score) for c in SCORING["case"]]
    for kind, (_, problem) in UNIT_CALLS.items():
        units += [unit(c, _made(kind), problem) for c in (SCORING if kind == "straight" else TURN)[kind]]
    return units


UNITS = _units()


def stage_units(stage: int) -> list[Unit]:
    return [u for u in UNITS if ASSIGNMENT.problem(u.problem).stage == stage]
