"""Stage 4: the bonuses and the full game, played with scripted answers and injected dice or
a seed; expected values from the reference on the same game."""

import pytest

from autograder.assignments.cs21.suites.common import (
    GAME_TIMEOUT,
    RULES,
    SLOTS,
    SPARE_DICE,
    check_run,
    check_value,
    params,
    protocol_lines,
    reference_versions,
    scenarios,
    scorecard,
)
from autograder.engine.checks import could_pass_by_doing_nothing

DATA = scenarios("game")
OWN = 1.0       # the points of the integration check of problem 16
# Filler rounds complete a scenario's game: no re-roll, the open slots in showscores order.
FILLER_DICE = [[1, 3, 3, 5, 6], [2, 2, 4, 5, 6], [6, 5, 3, 2, 2], [4, 4, 1, 2, 6], [3, 5, 5, 6, 1]]


def _bonus_case(case: dict) -> dict:
    func, filled, *rest = case["card_call"]
    return dict(case, call=[func, scorecard(filled), *rest])


BONUS = [_bonus_case(case) for case in DATA["bonus"]]


def _normal(text: str) -> str:
    return text.lower().replace(" ", "")


def game_input(case: dict) -> tuple[list[str], list[int] | None]:
    """The answers and the injected dice of a game case (dice None: a seeded game)."""
    if "seed" in case:
        return list(case["answers"]), None
    answers, dice = [], []
    used = set()
    names = {_normal(slot): slot for slot in SLOTS}
    for turn in case["rounds"]:
        answers.extend(turn["answers"])
        dice.extend(turn["dice"])
        used.update(names[_normal(a)] for a in turn["answers"][2:] if _normal(a) in names)
    open_slots = [slot for slot in SLOTS if slot not in used]
    if len(case["rounds"]) + len(open_slots) != RULES["rounds"]:
        raise ValueError(f"game {case['why']!r}: {len(case['rounds'])} rounds and {len(open_slots)} open slots")
    for index, slot in enumerate(open_slots):
        dice.extend(FILLER_DICE[index % len(FILLER_DICE)])
        answers.extend(["", "", slot])
    return answers, dice + SPARE_DICE


def play(student, reference, case: dict) -> None:
    answers, dice = game_input(case)
    check_run(student, reference, "playGame", [], case, stdin=answers, dice=dice, seed=case.get("seed"),
              timeout=GAME_TIMEOUT, compare_args=False, ran="playGame()",
              shown_dice=None if dice is None else dice[:len(dice) - len(SPARE_DICE)])


@pytest.mark.parametrize("case", params(BONUS))
def test_bonus(student, reference, case):
    """Call"""
    check_value(student, reference, case)


GAMES = DATA["game"]
# Whole games: chosen dice (game.toml), then seeded ones found by plan.py (seeded.toml).
WHOLE_GAMES = [case for case in GAMES if case["problem"] == 16] + scenarios("seeded")["game"]


def _halves(calls: list[dict], games: list[dict]) -> list[dict]:
    """GAMES weighted so that, problem by problem, the games share half of the points, the calls
    the other half (the plugin shares a problem's points by weight)."""
    out = []
    for game in games:
        mine = [c for c in calls if c["card_call"][0] == ("upperBonus" if game["problem"] == 14 else "yahtzeeBonus")]
        others = [g for g in games if g["problem"] == game["problem"]]
        out.append(dict(game, weight=len(mine) / len(others)))
    return out


BONUS_GAMES = _halves(DATA["bonus"], [case for case in GAMES if case["problem"] != 16])


@pytest.mark.parametrize("case", params(BONUS_GAMES, lambda case: case["problem"]))
def test_bonus_game(student, reference, case):
    """Bonus in a game"""
    # The student's bonus function of this problem in the reference's game: how playGame uses it (the
    # card it passes, what it adds up) is problem 16's, charged by its own games, not again here; and
    # the other bonus function is the reference's too, so a missing or broken one is charged in its
    # own problem only (a stub never excuses a retry within the stage: tests/corpus/courses23).
    other = "yahtzeeBonus" if case["problem"] == 14 else "upperBonus"
    with reference_versions(student, ("playGame", other)):
        play(student, reference, case)
    # A game whose bonus is 0 is one a do-nothing bonus function passes: it counts once a real one does.
    answers, dice = game_input(case)
    ref = reference.call("playGame", stdin=answers, dice=dice, seed=case.get("seed"), timeout=GAME_TIMEOUT)
    name = "Upper bonus" if case["problem"] == 14 else "Yahtzee bonus"
    could_pass_by_doing_nothing(sum(int(line.fields[1]) for line in protocol_lines(ref.stdout)
                                    if line.kind == "final_line" and line.fields[0] == name))


@pytest.mark.parametrize("case", params(WHOLE_GAMES, lambda case: 16))
def test_game(student, reference, case):
    """playGame"""
    play(student, reference, case)


@pytest.mark.problem(16)
@pytest.mark.points(OWN)
@pytest.mark.visibility("hidden")
@pytest.mark.own_functions
def test_game_own_functions(student, reference):
    """Integration: playGame with your own functions of every stage"""
    play(student, reference, WHOLE_GAMES[1])
