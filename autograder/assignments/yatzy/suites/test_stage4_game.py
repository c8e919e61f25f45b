"""Stage 4: players join until start, and the whole game of several players (the shuffled order,
fifteen forced rounds, every turn, the results), replayed with a seed and scripted answers or
chosen dice (a bonus at exactly 63 and none at 62, a tie)."""

import pytest

from autograder.assignments.yatzy.suites.common import (
    CALL_TIMEOUT,
    SUITE,
    helper_call,
    not_returned,
    own_functions_until,
    reference_ok,
)
from autograder.assignments.yatzy.suites.games import check_game, check_rng, dice_game, seeded_game
from autograder.engine.feedback import Fail, show
from autograder.engine.replay import silent_refusals

DATA = SUITE.load("games")
GAMES = [seeded_game(case) for case in DATA["game"]]
DICE_GAMES = [dice_game(case, DATA["dice_game"][0]) for case in DATA["dice_game"]]


@pytest.mark.parametrize("case", SUITE.cases("games", "join", problem=16))
def test_add_players(student, reference, case):
    """Players join"""
    ran = f"add_players() with the answers {case['answers']}"
    expected = reference_ok(reference.call("try_join", stdin=case["answers"], timeout=CALL_TIMEOUT), ran)
    outcome = helper_call(student, "try_join", under=("add_players",), stdin=case["answers"], timeout=CALL_TIMEOUT)
    if outcome.status != "ok":
        # Out of answers: it refused one the handout accepts (most often start in capitals or with spaces).
        hint = ("start ends the joining in any case and with spaces around it (START, ' start '), "
                "once a player has joined." if outcome.status == "input_exhausted"
                else "Ask again after an empty or taken name, and after start with nobody in.")
        raise not_returned(outcome, ran, "add_players()", hint=hint)
    if outcome.value != expected.value or outcome.inputs_asked != expected.inputs_asked:
        raise Fail(f"add_players() gave the players {show(outcome.value['names'])} after {outcome.inputs_asked} "
                   f"answer(s), but expected {show(expected.value['names'])} after {expected.inputs_asked} "
                   f"({case['why']}).", hidden=f"add_players() did not return the right players ({case['why']}).",
                   ran=ran, show_values=False,
                   hint="Each player is new_player(name), in the order they joined; strip the names.")
    silent = silent_refusals(outcome.events, expected.events)
    if silent:
        raise Fail(f"add_players() asked again after the refused answer {case['answers'][silent[0] - 1]!r} "
                   f"without printing a message first ({case['why']}).",
                   hidden=f"add_players() asked again after a refused name without a message ({case['why']}).",
                   ran=ran, show_values=False, hint="Print a short message saying why, then ask again.")


@pytest.mark.parametrize("game", SUITE.cases(GAMES + DICE_GAMES, problem=17, id=lambda game: game.why))
@pytest.mark.weight(2)
def test_game(student, reference, game):
    """The whole game"""
    check_game(student, reference, game)


@pytest.mark.parametrize("game", SUITE.cases(GAMES[:2], problem=17, id=lambda game: game.why))
def test_rng_contract(student, reference, game):
    """The RNG contract"""
    check_rng(student, reference, game)


@pytest.mark.problem(17)
@pytest.mark.weight(4)
@pytest.mark.visibility("hidden")
@pytest.mark.own_functions
def test_game_own_functions(student, reference):
    """Integration: a whole game with your own functions of every stage"""
    own_functions_until(student, 4)
    check_game(student, reference, DICE_GAMES[1])
