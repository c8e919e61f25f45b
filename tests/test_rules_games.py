"""The reference's rounds and games (solution/yahtzee.py), driven from the outside.

Chosen dice through random.randint and answers through input() (a Script that must be used up
exactly), and seeded games played by a deterministic Autoplayer that must replay identically.
The scoring rules themselves are in test_rules.py.
"""

from __future__ import annotations

import random

import pytest
from helpers.reference import Y, card

# ---------------------------------------------------------------------------
# Driving rounds and games: chosen dice through random.randint, answers through input()
# ---------------------------------------------------------------------------

class Script:
    """Chosen dice for random.randint and answers for input(); both must be used up exactly."""

    def __init__(self, dice, answers):
        self.dice = list(dice)
        self.answers = list(answers)
        self.prompts = []

    def randint(self, low, high):
        assert (low, high) == (1, 6), f"randint must be called as randint(1, 6), not ({low}, {high})"
        assert self.dice, "the game rolled more dice than the script holds"
        return self.dice.pop(0)

    def input(self, prompt=""):
        self.prompts.append(prompt)
        assert self.answers, f"the game asked for more input than the script holds: {prompt!r}"
        return self.answers.pop(0)

    def install(self, monkeypatch):
        monkeypatch.setattr(Y.random, "randint", self.randint)
        monkeypatch.setattr(Y, "input", self.input, raising=False)

    def assert_used_up(self):
        assert self.dice == [], f"dice left over: {self.dice}"
        assert self.answers == [], f"answers left over: {self.answers}"


def facts(output: str) -> dict[str, list[str]]:
    lines = [line.strip() for line in output.splitlines()]
    return {
        "dice": [line for line in lines if line.startswith("Dice: ")],
        "scored": [line for line in lines if line.startswith("Scored ")],
        "rounds": [line for line in lines if line.startswith("Round ")],
    }


def test_round_rerolls_unkept_dice_in_position_order(monkeypatch, capsys):
    script = Script([2, 1, 5, 3, 5, 6, 4, 1, 2], ["1 3 5", "245", "chance"])
    script.install(monkeypatch)
    scorecard = Y.new_scorecard()
    assert Y.play_round(scorecard) == ("Chance", 1 + 6 + 2 + 4 + 5)
    script.assert_used_up()
    assert facts(capsys.readouterr().out)["dice"] == [
        "Dice: 2 1 5 3 5", "Dice: 2 6 5 4 5", "Dice: 1 6 2 4 5"]
    assert scorecard["Chance"] == 18


def test_round_invalid_answers_roll_nothing(monkeypatch, capsys):
    answers = ["6", "1 1", "abc", "12 3 4 5 6", "", "Small", "", "yahtzee bonus", "large straight"]
    script = Script([1, 2, 3, 4, 5], answers)
    script.install(monkeypatch)
    scorecard = Y.new_scorecard()
    assert Y.play_round(scorecard) == ("Large Straight", 40)
    script.assert_used_up()
    assert facts(capsys.readouterr().out)["dice"] == ["Dice: 1 2 3 4 5"]


def test_round_yahtzee_with_the_box_open_may_go_in_an_upper_box(monkeypatch, capsys):
    script = Script([3] * 5, ["", "Threes"])
    script.install(monkeypatch)
    scorecard = Y.new_scorecard()
    assert Y.play_round(scorecard) == ("Threes", 15)
    assert scorecard["Yahtzee Bonus"] == 0 and scorecard["Yahtzee"] is None
    script.assert_used_up()


def test_round_scratched_yahtzee_box_gives_the_joker_but_no_bonus(monkeypatch, capsys):
    script = Script([5] * 5, ["", "chance", "fives"])       # Chance refused: Fives is forced
    script.install(monkeypatch)
    scorecard = card(Yahtzee=0)
    assert Y.play_round(scorecard) == ("Fives", 25)
    assert scorecard["Yahtzee Bonus"] == 0
    script.assert_used_up()


def test_round_joker_in_a_lower_box_scores_full_value(monkeypatch, capsys):
    script = Script([6, 6, 6, 6, 1, 6], ["1234", "", "Small Straight"])
    script.install(monkeypatch)
    scorecard = card(Yahtzee=50, Sixes=24)
    assert Y.play_round(scorecard) == ("Small Straight", 30)
    assert scorecard["Yahtzee Bonus"] == 100
    script.assert_used_up()


def test_full_game_with_yahtzee_bonuses_and_every_joker_branch(monkeypatch, capsys):
    rounds = [
        # (first roll, [(answer, dice rolled after it)...], category answers, expected "Scored" line)
        ([3, 3, 3, 3, 3], [("", [])], ["Yahtzee"], "Scored 50 points in Yahtzee."),
        ([3, 3, 3, 3, 3], [("all", [])], ["chance", "threes"], "Scored 15 points in Threes."),
        ([3, 3, 3, 3, 3], [("", [])], ["large straight"], "Scored 40 points in Large Straight."),
        ([6, 6, 6, 6, 2], [("1234", [6]), ("", [])], ["sixes"], "Scored 30 points in Sixes."),
        ([1, 2, 3, 4, 6], [("7", []), ("1 2 3 4", [5]), ("", [])], ["Large Straight", "small straight"],
         "Scored 30 points in Small Straight."),
        ([2, 1, 5, 3, 5], [("1 3 5", [5, 2]), ("", [])], ["full house"], "Scored 25 points in Full House."),
        ([4, 4, 4, 1, 2], [("none", [4, 4, 4, 4, 1]), ("", [])], ["Four of a Kind"],
         "Scored 17 points in Four of a Kind."),
        ([5, 1, 5, 2, 6], [("13", [5, 3, 2]), ("1,2,3", [1, 4])], ["3 of a kind", "THREE OF A KIND"],
         "Scored 20 points in Three of a Kind."),
        ([6, 5, 4, 3, 2], [("", [])], ["chance"], "Scored 20 points in Chance."),
        ([2, 2, 2, 3, 4], [("", [])], ["twos"], "Scored 6 points in Twos."),
        ([4, 4, 4, 5, 6], [("", [])], ["fours"], "Scored 12 points in Fours."),
        ([5, 5, 5, 5, 1], [("", [])], ["fives"], "Scored 20 points in Fives."),
        ([2, 2, 2, 2, 2], [("", [])], ["twos", "ones"], "Scored 0 points in Ones."),
    ]
    dice, answers, scored = [], [], []
    for first, keeps, categories, line in rounds:
        dice += first
        for answer, rolled in keeps:
            answers.append(answer)
            dice += rolled
        answers += categories
        scored.append(line)
    script = Script(dice, answers)
    script.install(monkeypatch)

    total = Y.play_game()

    out = capsys.readouterr().out
    script.assert_used_up()
    seen = facts(out)
    assert seen["rounds"] == [f"Round {n}" for n in range(1, 14)]
    assert seen["scored"] == scored
    assert seen["dice"][:4] == ["Dice: 3 3 3 3 3"] * 3 + ["Dice: 6 6 6 6 2"]
    assert "Dice: 2 5 5 2 5" in seen["dice"], "re-rolled values go to positions 2 and 4 in order"
    assert seen["dice"][-1] == "Dice: 2 2 2 2 2"
    assert len(seen["dice"]) == 13 + 6          # one first roll per round, six re-rolls
    # upper 0+6+15+12+20+30 = 83 (+35), lower 20+17+25+30+40+50+20 = 202, four bonuses: 400
    assert total == 83 + 35 + 202 + 400 == 720
    lines = [line.strip() for line in out.splitlines() if line.strip()]
    assert lines[-1] == "Final score: 720"
    card_lines = lines[lines.index("Ones: 0"):lines.index("Total: 720") + 1]
    assert card_lines == [
        "Ones: 0", "Twos: 6", "Threes: 15", "Fours: 12", "Fives: 20", "Sixes: 30", "Upper Bonus: 35",
        "Three of a Kind: 20", "Four of a Kind: 17", "Full House: 25", "Small Straight: 30",
        "Large Straight: 40", "Yahtzee: 50", "Chance: 20", "Yahtzee Bonus: 400", "Total: 720",
    ]


def test_play_game_rejects_a_bad_number_of_rounds(monkeypatch):
    script = Script([], [])
    script.install(monkeypatch)
    for rounds in (0, 14, -1):
        with pytest.raises(ValueError):
            Y.play_game(rounds)
    script.assert_used_up()


def test_short_game_shows_open_boxes(monkeypatch, capsys):
    script = Script([1, 2, 3, 4, 6], ["", "chance"])
    script.install(monkeypatch)
    assert Y.play_game(1) == 16
    out = capsys.readouterr().out
    assert "Ones: -" in out and "Chance: 16" in out and out.rstrip().endswith("Final score: 16")


class Autoplayer:
    """A deterministic player: its answers depend only on the order of the questions.

    Keep answers cycle through a few forms; category answers walk round the 13 names, so
    a refused name (filled, or not allowed by the Joker rule) just moves on to the next.
    """

    KEEPS = ["1 2", "none", "", "135", "all", "2,4"]

    def __init__(self):
        self.keeps = 0
        self.categories = 0

    def __call__(self, prompt=""):
        if "keep" in prompt.lower():
            self.keeps += 1
            return self.KEEPS[self.keeps % len(self.KEEPS)]
        self.categories += 1
        return Y.CATEGORIES[self.categories % len(Y.CATEGORIES)].lower()


@pytest.fixture
def keep_random_state():
    state = random.getstate()
    yield
    random.setstate(state)


def seeded_game(seed, monkeypatch, capsys):
    monkeypatch.setattr(Y, "input", Autoplayer(), raising=False)
    random.seed(seed)
    total = Y.play_game()
    return total, capsys.readouterr().out


def test_a_seeded_game_replays_identically(monkeypatch, capsys, keep_random_state):
    first = seeded_game(2024, monkeypatch, capsys)
    again = seeded_game(2024, monkeypatch, capsys)
    other = seeded_game(2025, monkeypatch, capsys)
    assert first == again
    assert first[1] != other[1], "a different seed should give a different game"
    assert first[1].rstrip().endswith(f"Final score: {first[0]}")
    assert len(facts(first[1])["scored"]) == 13


def test_only_roll_dice_consumes_randomness(monkeypatch, capsys, keep_random_state):
    """A seeded game calls randint(1, 6) once per die rolled: 5 per round plus the unkept dice."""
    calls = []
    real = random.randint

    def counting(low, high):
        calls.append((low, high))
        return real(low, high)

    monkeypatch.setattr(Y.random, "randint", counting)
    player = Autoplayer()
    keep_answers = []

    def recording(prompt=""):
        answer = player(prompt)
        if "keep" in prompt.lower():
            keep_answers.append(answer)
        return answer

    monkeypatch.setattr(Y, "input", recording, raising=False)
    random.seed(7)
    Y.play_game()
    out = capsys.readouterr().out
    rerolled = [5 - len(Y.parse_keep(a)) for a in keep_answers if len(Y.parse_keep(a)) < 5]
    assert set(calls) == {(1, 6)}
    assert len(calls) == 5 * 13 + sum(rerolled)
    assert len(facts(out)["dice"]) == 13 + len(rerolled)
