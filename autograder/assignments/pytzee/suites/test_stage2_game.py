"""Stage 2: extra pytzees, the bonus, used slots, skip, the synonyms and the whole game."""

import pytest

from autograder.assignments.pytzee.suites.common import (
    SUITE,
    attempt,
    check_rolls,
    game_from_case,
    play_and_check,
    reference_score,
    reference_versions,
    rolls_twice,
    seeded_game,
    stage_cases,
    timed_out,
    why_not,
)
from autograder.engine.feedback import Fail

GAMES = [case for case in stage_cases("game", 2) if case["problem"] != 14]
WHOLE_GAMES = [case for case in stage_cases("game", 2) if case["problem"] == 14] + stage_cases("seeded", 2)
USED_SLOT = next(case for case in SUITE.load("games")["game"] if case["problem"] == 11 and case.get("public"))


@pytest.mark.parametrize("case", SUITE.cases(GAMES))
def test_rule(student, reference, case):
    """Rules"""
    # upper_bonus (problem 10) reads the whole card: its bug would change the final score of every
    # other rule's game, so those play the reference's (called by its name; an inlined bonus stays yours)
    with reference_versions(student, ("upper_bonus",) if case["problem"] != 10 else ()):
        play_and_check(student, reference, game_from_case(case), hint=case.get("hint"),
                       hint_when=case.get("hint_when"), same_as=case.get("same_as"))


@pytest.mark.parametrize("case", SUITE.cases(WHOLE_GAMES))
def test_game(student, reference, case):
    """The game"""
    # a whole game: one difference in several of them is charged once (common.game_sole)
    if "dice" in case:
        play_and_check(student, reference, game_from_case(case), hint=case.get("hint"),
                       hint_when=case.get("hint_when"), run_name=case["why"])
        return
    game = seeded_game(reference, case)
    if case.get("check") == "rolls":
        check_rolls(student, reference, game, hint=case.get("hint"), run_name=case["why"])
    else:
        play_and_check(student, reference, game, hint=case.get("hint"), run_name=case["why"])


def _refused_with_message(events, answer_index: int) -> bool:
    """Whether, after the ANSWER_INDEX-th answer, the program asked again in the same turn
    (no roll in between) and printed some text first, or asked with a different prompt."""
    seen, said, prompt = -1, False, None
    for event in events or ():
        kind = event[0]
        if kind == "in":
            seen += 1
            if seen == answer_index:
                prompt = event[1] if len(event) > 1 else ""
            elif seen == answer_index + 1:
                again = event[1] if len(event) > 1 else ""
                return said or (bool(str(again).strip()) and again != prompt)
        elif seen == answer_index:
            if kind == "roll":
                return False
            if kind == "out" and str(event[1]).strip():
                said = True
    return False


@pytest.mark.problem(11)
@pytest.mark.points(1)
def test_used_slot_message(student, reference):
    """Used slot: a message before asking again"""
    game = game_from_case(USED_SLOT)
    reference_score(reference, game)
    refused = 1                                     # the second answer, "count 2", is refused
    first = None
    for mode in ("call", "script"):
        att = attempt(student, game, mode)
        att = rolls_twice(student, game, att) or att      # an extra roll per turn is graded in P14
        first = first or att
        offset = 2 if mode == "script" else 0       # the rounds and the seed come first
        if _refused_with_message(att.outcome.events, refused + offset):
            return
        if timed_out(att):
            break
    if first.outcome.status not in ("ok", "input_exhausted"):
        raise Fail(why_not(first, game, -1, hidden=False), ran=game.describe("call"), show_values=False)
    raise Fail("When the player names a used slot, print a message (e.g. 'There was already a score "
               "in that slot.') before asking again.", ran=game.describe("call"), show_values=False)
