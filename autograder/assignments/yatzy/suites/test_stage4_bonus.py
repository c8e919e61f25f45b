"""Stage 4: the upper bonus, the ranking (ties in playing order) and the results lines, alone
and in whole games of chosen dice (a bonus at exactly 63, none at 62, a tie)."""

import pytest

from autograder.assignments.yatzy.suites.common import (
    CALL_TIMEOUT,
    data_free,
    helper_call,
    not_returned,
    params,
    read_lines,
    reference_ok,
    scenarios,
)
from autograder.assignments.yatzy.suites.games import check_game, dice_game
from autograder.assignments.yatzy.suites.test_stage3_game import pad
from autograder.engine.checks import could_pass_by_doing_nothing, expect_same
from autograder.engine.feedback import Fail, show

DATA = scenarios("bonus")
GAME_DATA = scenarios("games")["dice_game"]
GAMES = [dice_game(case, GAME_DATA[0]) for case in GAME_DATA]


@pytest.mark.parametrize("case", params(DATA["bonus"], lambda case: 15))
def test_upper_bonus(student, reference, case):
    """The upper bonus"""
    def hint(got, expected):
        return case.get("hint") if "hint_when" not in case or got == case["hint_when"] else None
    try:
        expect_same(student, reference, "upper_bonus", pad(case["scored"]), why=case["why"], hint=hint)
    except Fail as fail:
        if not case.get("public"):
            raise data_free(fail, "upper_bonus", case["why"]) from None
        raise


def _entries(case: dict) -> list:
    return [[name, pad(scored)] for name, scored in case["entries"]]


def _names(case: dict) -> str:
    return ", ".join(f"{name} ({', '.join(f'{k}={v}' for k, v in scored.items())})" for name, scored in case["entries"])


@pytest.mark.parametrize("case", params(DATA["rankings"], lambda case: 16))
def test_ranking(student, reference, case):
    """Ranking"""
    hidden = not case.get("public")
    ran = f"ranking() of the players, in playing order: {_names(case)}"
    expected = reference_ok(reference.call("try_ranking", _entries(case), timeout=CALL_TIMEOUT), ran)
    outcome = helper_call(student, "try_ranking", _entries(case), under=("ranking",), timeout=CALL_TIMEOUT)
    if outcome.status != "ok":
        raise not_returned(outcome, ran, "ranking(players)", hidden=hidden)
    if outcome.value != expected.value:
        text = (f"ranking(players) put the players in the wrong order ({case['why']})." if hidden else
                f"ranking(players) gave the order {show(outcome.value)}, but expected {show(expected.value)} "
                f"({case['why']}).")
        raise Fail(text, ran=None if hidden else ran, show_values=False, hint=case.get("hint"))


@pytest.mark.parametrize("case", params(DATA["results"], lambda case: 17, total=3))
def test_print_results(student, reference, case):
    """The results lines"""
    hidden = not case.get("public")
    ran = f"print_results() of the players, in playing order: {_names(case)}"
    expected = reference_ok(reference.call("try_results", _entries(case), timeout=CALL_TIMEOUT), ran)
    outcome = helper_call(student, "try_results", _entries(case), under=("print_results",), timeout=CALL_TIMEOUT)
    if outcome.status != "ok":
        raise not_returned(outcome, ran, "print_results(players)", hidden=hidden)
    want = [line for line in read_lines(expected.stdout) if line.kind in ("results", "result")]
    got = [line for line in read_lines(outcome.stdout) if line.kind in ("results", "result")]
    could_pass_by_doing_nothing(len(want))
    if got != want:
        if hidden:
            text = f"print_results(players) printed other results lines than expected ({case['why']})."
        else:
            text = (f"print_results(players) printed {[line.text for line in got]}, but expected "
                    f"{[line.text for line in want]} ({case['why']}).")
        raise Fail(text, ran=None if hidden else ran, show_values=False,
                   output=None if hidden else outcome.stdout,
                   hint="Print 'Results:', then 'N. NAME: TOTAL' per player in ranking() order, N from 1.")
    if outcome.value != expected.value:
        raise Fail(f"print_results(players) must return the players in ranking order ({case['why']}).",
                   ran=None if hidden else ran, show_values=False)


@pytest.mark.parametrize("game", params(GAMES, lambda game: 17, id_key=lambda game: game.why, total=1))
def test_game_results(student, reference, game):
    """A game's results"""
    check_game(student, reference, game, kinds=("order", "results", "result"))


# (on P17, whose checks a function doing nothing never passes: the "not charged" rule of an
# own_functions check asks for a passed check of its problem)
@pytest.mark.problem(17)
@pytest.mark.points(1)
@pytest.mark.visibility("hidden")
@pytest.mark.own_functions
def test_game_own_functions(student, reference):
    """Integration: a game of chosen dice with your own functions of every stage"""
    check_game(student, reference, GAMES[1])
