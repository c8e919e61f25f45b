"""The cases of stages 3 and 4: the game's methods from a chosen state, and whole games."""

from __future__ import annotations

from autograder.assignments.swe3006.suites.common import (
    ASSIGNMENT,
    CLASS,
    GAME_TIMEOUT,
    START,
    Call,
    Compare,
    GraderFault,
    check_call,
    of_kind,
    protocol_lines,
    scenarios,
    substitution,
)
from autograder.engine.charge import stopped_aspect, written
from autograder.engine.checks import could_pass_by_doing_nothing, explain
from autograder.engine.feedback import Fail

METHODS = scenarios("methods")
GAMES = scenarios("games")
STATE = ("game_mode", "current_round", "current_player", "dice_combination", "recorded_score_sheet")


def game_script(case: dict) -> list[str]:
    """The answers of a whole game: the mode, then the players' turns alternating, then the end."""
    script = list(case["mode"])
    players = case["players"]
    for turn in range(len(players[0])):
        for player_turns in players:
            answers = list(player_turns[turn])
            if turn == 0 and player_turns is players[0] and case.get("flood"):
                answers = [case["flood_answer"]] * case["flood"] + answers
            script += answers
    return script + list(case.get("end", []))


def method_call(kind: str, case: dict) -> tuple[Call, Compare]:
    state = dict(case.get("state", {}))
    if kind == "init":
        return Call("initialize_game", state=state, stdin=list(case["answers"])), Compare(attributes=STATE)
    if kind == "option":
        return Call("get_option_choice", state=state, stdin=list(case["answers"])), Compare(value=True)
    if kind == "info":
        return Call("print_score_info", state=state), Compare()
    # the new game's reset is problem 10's (check_end_game calls initialize_game); the two
    # players' end (problem 13) is about the lines
    return (Call("check_end_game", state=state, stdin=list(case["answers"])),
            Compare(value=True, attributes=STATE if case["problem"] == 10 else ()))


GAME_LINES = ("round", "dice", "warn", "row", "header", "mode_prompt", "option_prompt", "reroll_prompt",
              "keep_prompt", "category_prompt", "current", "game_over", "final", "new_game")


def game_call(case: dict) -> tuple[Call, Compare]:
    """A whole game; problem 12's games (the alternation) leave the end's scores and winner to
    problem 13's."""
    kinds = GAME_LINES if case["problem"] == 12 else ()
    return (Call("play", stdin=game_script(case), seed=case["seed"], timeout=GAME_TIMEOUT),
            Compare(kinds=kinds, rolls=True, attributes=STATE))


def cases(stage: int) -> list[dict]:
    """Every case of STAGE as {"problem", "id", "public", "hint", "kind", "case"}."""
    found = []
    for kind in ("init", "option", "info", "end"):
        for case in METHODS.get(kind, []):
            found.append({"problem": case["problem"], "id": f"{_method(kind)}: {case['id']}",
                          "public": bool(case.get("public")), "integration": bool(case.get("integration")),
                          "kind": kind, "case": case})
    for case in GAMES["game"]:
        found.append({"problem": case["problem"], "id": f"a game: {case['id']}", "public": bool(case.get("public")),
                      "integration": bool(case.get("integration")), "kind": "game", "case": case})
    found.append({"problem": 11, "id": "python swe3006.py plays the game", "public": True, "kind": "script",
                  "points": 1, "case": GAMES["game"][0]})
    return sorted((c for c in found if ASSIGNMENT.problem(c["problem"]).stage == stage), key=lambda c: c["problem"])


def _method(kind: str) -> str:
    return {"init": "initialize_game", "option": "get_option_choice", "info": "print_score_info",
            "end": "check_end_game"}[kind]


def run_case(student, reference, item: dict) -> None:
    case = item["case"]
    if item["kind"] == "script":
        script_check(student, reference, case)
        return
    call, compare = game_call(case) if item["kind"] == "game" else method_call(item["kind"], case)
    check_call(student, reference, call, item["problem"], compare, hint=case.get("hint"),
               own=item.get("integration", False))


def script_check(student, reference, case: dict) -> None:
    """`python swe3006.py` plays a game: the file ends with the handout's main guard.  The run is
    compared with the student's YahtzeeGame().play() on the same script, not with the
    reference's (a bug the game checks charge costs nothing here), and must play at least one
    round.  Both run with problem 11's substitution (the reference's methods of the other stages;
    in the script from its main guard on: harness targets.script_parts), so a bug of an earlier
    stage is charged there only.  A run exactly like the
    student's own play() that plays no round (an earlier stage's bug stops the game before
    round 1) but shows play() ran (a line the grader reads, the same exception) passes when
    play() is written, as a check a do-nothing program could pass: it counts once a game check
    of problem 11 passes (no points for nothing)."""
    script = game_script(case)
    want = reference.script(stdin=script, seed=case["seed"], timeout=GAME_TIMEOUT)
    if want.status != "input_exhausted":
        raise GraderFault(f"the reference did not play as a script: {want.status} {want.message}")
    with student.substituting(substitution(student, 11)):
        got = student.script(stdin=script, seed=case["seed"], timeout=GAME_TIMEOUT)
    own_game = game_call(case)[0].run(student, 11)      # (the same substitution: Call.run)
    played = protocol_lines(got.stdout)
    as_own = got.status == own_game.status and played == protocol_lines(own_game.stdout)
    seen = played or (got.status == "exception" and stopped_aspect(got) == stopped_aspect(own_game))  # not silence
    if as_own and seen and not of_kind(played, "round") and written(student.source, ASSIGNMENT.problem(11).functions):
        could_pass_by_doing_nothing(raises=True)
        return
    if got.status not in ("ok", "input_exhausted") and (got.status != own_game.status or not of_kind(played, "round")):
        raise Fail(explain(got, "python swe3006.py"), show_values=False)
    if not of_kind(played, "round") or not as_own:
        raise Fail("`python swe3006.py` should play the game (as YahtzeeGame().play() does): end the file "
                   "with\nif __name__ == \"__main__\":\n    YahtzeeGame().play()", show_values=False)


# The lines a public game's self-check compares (its hidden check compares every line and the state).
PUBLIC_GAME_LINES = ["Round", "Current dice", "[WARN]", "Current score", "Game Over", "Final score", "Player"]


def public_game(key: str, case: dict) -> dict | None:
    """A public case as check.py and the notebooks play it (assignment.toml [public_scenarios.game]
    script; notebooks.checks), from the call its hidden check makes: a [[game]] with the script and
    seed of game_call, ended like a closed input, as the grader ends it; a method's case
    (methods.toml: method_call; turn.toml and scoring.toml: units.UNIT_CALLS) from the same state,
    arguments, answers and seed, comparing the lines, the value and the attributes its hidden check
    compares; a scoring [[case]] compares the categories it is about."""
    from autograder.assignments.swe3006.suites.units import UNIT_CALLS, unit_problem

    if key == "game":
        return {"call": f"{CLASS}().play()", "answers": game_script(case), "seed": case["seed"],
                "until_eof": True, "lines": PUBLIC_GAME_LINES}
    setup = [f"game = {CLASS}()"]
    if key == "case" and "dice" in case and "categories" in case:
        setup += [f"game.{name} = {value!r}" for name, value in dict(START, dice_combination=list(case["dice"])).items()]
        wanted = list(case["categories"])
        expr = ("list(game.calculate_score())" if wanted == ["*order"] else
                f"{{name: game.calculate_score()[name] for name in {wanted!r}}}")
        return {"setup": setup, "expr": expr, "problem": case["problem"]}
    if key in ("init", "option", "info", "end"):
        call, compare = method_call(key, case)
        problem = case["problem"]
    elif key in UNIT_CALLS:
        call, compare, _ = UNIT_CALLS[key][0](case)
        problem = unit_problem(key, case)
    else:
        return None
    setup += [f"game.{name} = {value!r}" for name, value in dict(START, **(call.state or {})).items()]
    # what its hidden check compares, the lines read as the grader reads them (protocol_read: the
    # course's [protocol] patterns, free spacing equal), the value, the attributes after the call
    kinds = [kind for kind in PROTOCOL if not compare.kinds or kind in compare.kinds]
    setup.append(f"protocol = {[(kind, PROTOCOL[kind]) for kind in kinds]!r}")
    run = (f"run_scripted(lambda: game.{call.method}({', '.join(repr(arg) for arg in call.args)}), "
           f"answers={list(call.stdin or ())!r}, seed={0 if call.seed is None else call.seed!r}, until_eof=True, "
           "strict=False)")
    parts = (["run[0]"] if compare.value else []) + ["protocol_read(run[1], protocol)"] + \
        [f"game.{name}" for name in compare.attributes]
    compared = (["the value returned"] if compare.value else []) + ["the lines the grader reads"] + \
        ([f"then the attributes {', '.join(compare.attributes)}"] if compare.attributes else [])
    return {"setup": setup, "expr": f"(lambda run: [{', '.join(parts)}])({run})", "problem": problem,
            "ran": f"{call.describe()}; compared: {', '.join(compared)}"}


# The grader's line kinds, in its grammar's order (a line is the first kind it matches: common.GRAMMAR)
PROTOCOL = {kind: pattern for kind, pattern in ASSIGNMENT.extra["protocol"].items()
            if isinstance(pattern, str) and kind != "prompt"}
