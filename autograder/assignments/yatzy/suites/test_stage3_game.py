"""Stage 3: players join until start, a pad's total, and the whole game of several players
(the shuffled order, fifteen forced rounds, every turn), replayed with a seed and scripted answers."""

import pytest

from autograder.assignments.yatzy.suites.common import (
    CALL_TIMEOUT,
    CATEGORIES,
    data_free,
    helper_call,
    not_returned,
    own_functions_until,
    params,
    reference_ok,
    scenarios,
)
from autograder.assignments.yatzy.suites.games import check_game, check_rng, seeded_game
from autograder.engine.checks import expect_same
from autograder.engine.feedback import Fail, show

DATA = scenarios("games")


def pad(scored: dict) -> dict:
    unknown = set(scored) - set(CATEGORIES)
    if unknown:
        raise ValueError(f"scenario names unknown categories {sorted(unknown)}")
    return {category: scored.get(category) for category in CATEGORIES}


@pytest.mark.parametrize("case", params(DATA["join"], lambda case: 12))
def test_add_players(student, reference, case):
    """Players join"""
    hidden = not case.get("public")
    ran = f"add_players() with the answers {case['answers']}"
    expected = reference_ok(reference.call("try_join", stdin=case["answers"], timeout=CALL_TIMEOUT), ran)
    outcome = helper_call(student, "try_join", under=("add_players",), stdin=case["answers"], timeout=CALL_TIMEOUT)
    if outcome.status != "ok":
        raise not_returned(outcome, ran, "add_players()", hidden=hidden,
                           hint="Ask again after an empty or taken name, and after start with nobody in.")
    if outcome.value != expected.value or outcome.inputs_asked != expected.inputs_asked:
        text = (f"add_players() did not return the right players ({case['why']})." if hidden else
                f"add_players() gave the players {show(outcome.value['names'])} after {outcome.inputs_asked} "
                f"answer(s), but expected {show(expected.value['names'])} after {expected.inputs_asked} "
                f"({case['why']}).")
        raise Fail(text, ran=None if hidden else ran, show_values=False,
                   hint="Each player is new_player(name), in the order they joined; strip the names.")


@pytest.mark.parametrize("case", params(DATA["total"], lambda case: 13))
def test_total_score(student, reference, case):
    """A pad's total"""
    try:
        expect_same(student, reference, "total_score", pad(case["scored"]), why=case["why"],
                    hint=lambda got, expected: case.get("hint"))
    except Fail as fail:
        if not case.get("public"):
            raise data_free(fail, "total_score", case["why"]) from None
        raise


GAMES = [seeded_game(case) for case in DATA["game"]]


@pytest.mark.parametrize("game", params(GAMES, lambda game: 14, id_key=lambda game: game.why, total=9))
def test_game(student, reference, game):
    """The whole game"""
    check_game(student, reference, game)


@pytest.mark.parametrize("game", params(GAMES[:2], lambda game: 14, id_key=lambda game: game.why, total=3))
def test_rng_contract(student, reference, game):
    """The RNG contract"""
    check_rng(student, reference, game)


@pytest.mark.problem(14)
@pytest.mark.points(3)
@pytest.mark.visibility("hidden")
@pytest.mark.own_functions
def test_game_own_functions(student, reference):
    """Integration: a whole game with your own functions of stages 1 to 3"""
    own_functions_until(student, 3)
    check_game(student, reference, GAMES[2])
