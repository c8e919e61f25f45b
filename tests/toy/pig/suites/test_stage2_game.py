"""Stage 2: whole games (a seed, the player's answers on stdin) against the reference's transcript."""

import itertools

import pytest

from autograder.engine.suite import Fail, Suite

suite = Suite(__file__)
ANSWERS = 200                   # the answers cycled this far: more than any of these games asks


def play(program, game):
    answers = list(itertools.islice(itertools.cycle(game["answers"]), ANSWERS))
    return program.call("play_game", game["goal"], stdin=answers, seed=game["seed"])


@pytest.mark.parametrize("game", suite.cases("games", "game", problem=3))
def test_game(student, reference, game):
    """The game"""
    ran = f"play_game({game['goal']}) after random.seed({game['seed']}), answering {game['answers']} over and over"
    want = play(reference, game)
    turns = suite.expected(want, ran)
    got = play(student, game)
    returned = suite.returned(got, ran)
    expected_lines, got_lines = want.stdout.splitlines(), got.stdout.splitlines()
    for number, (line, theirs) in enumerate(itertools.zip_longest(expected_lines, got_lines), 1):
        if line != theirs:
            raise Fail(f"Line {number} of the game should be {line!r}, not {theirs!r}.",
                       hidden=f"The game's lines differ from the handout's ({game['why']}).",
                       ran=ran, show_values=False)
    if returned != turns:
        raise Fail(f"play_game returned {returned!r}; the game took {turns} turns.",
                   hidden=f"play_game returned the wrong number of turns ({game['why']}).",
                   ran=ran, show_values=False)
