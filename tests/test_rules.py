"""The rules of the reference solution (solution/yahtzee.py), checked from the outside.

The reference is the single source of truth of the grader's expected values, so its rules
are pinned here against hand-computed answers: scoring (a table of cases), the bonuses and
the Joker rule, whole games driven through input() with chosen dice, seeded replays,
properties (hypothesis) and the doctests of the file itself.
"""

from __future__ import annotations

import doctest
import importlib.util
import random
from itertools import permutations
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parent.parent
SOLUTION = ROOT / "solution" / "yahtzee.py"


def load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


Y = load(SOLUTION, "yahtzee_reference_under_test")

MAXIMUM = {
    "Ones": 5, "Twos": 10, "Threes": 15, "Fours": 20, "Fives": 25, "Sixes": 30,
    "Three of a Kind": 30, "Four of a Kind": 30, "Full House": 25,
    "Small Straight": 30, "Large Straight": 40, "Yahtzee": 50, "Chance": 30,
}


# ---------------------------------------------------------------------------
# Scoring: a table of (category, dice, expected, why)
# ---------------------------------------------------------------------------

def _five_of_a_kind_cases():
    """Five of a kind in every one of the 13 categories, for three faces."""
    cases = []
    for face in (1, 3, 6):
        dice = [face] * 5
        for category in Y.CATEGORIES:
            if category in Y.UPPER_CATEGORIES:
                expected = 5 * face if Y.UPPER_CATEGORIES.index(category) + 1 == face else 0
            else:
                expected = {"Three of a Kind": 5 * face, "Four of a Kind": 5 * face, "Full House": 0,
                            "Small Straight": 0, "Large Straight": 0, "Yahtzee": 50,
                            "Chance": 5 * face}[category]
            cases.append((category, dice, expected, f"five {face}s in {category}"))
    return cases


SCORING_CASES = _five_of_a_kind_cases() + [
    # upper boxes
    ("Ones", [1, 1, 3, 1, 6], 3, "three ones"),
    ("Ones", [2, 3, 4, 5, 6], 0, "no ones scores 0"),
    ("Twos", [2, 5, 2, 2, 2], 8, "four twos"),
    ("Threes", [1, 3, 3, 5, 3], 9, "three threes among others"),
    ("Fours", [4, 4, 1, 2, 3], 8, "two fours"),
    ("Fives", [5, 1, 1, 1, 1], 5, "a single five"),
    ("Fives", [6, 6, 6, 6, 6], 0, "five sixes in Fives"),
    ("Sixes", [6, 1, 6, 2, 6], 18, "three sixes"),
    ("Sixes", [1, 2, 3, 4, 5], 0, "no sixes"),
    # three / four of a kind: the sum of ALL dice
    ("Three of a Kind", [2, 2, 2, 6, 5], 17, "exactly three, sum of all five"),
    ("Three of a Kind", [5, 2, 6, 2, 2], 17, "three of a kind in shuffled order"),
    ("Three of a Kind", [4, 4, 4, 4, 1], 17, "four of a kind counts as three of a kind"),
    ("Three of a Kind", [3, 3, 3, 6, 6], 21, "a full house counts as three of a kind"),
    ("Three of a Kind", [2, 2, 3, 3, 6], 0, "two pairs are not three of a kind"),
    ("Three of a Kind", [1, 2, 3, 4, 5], 0, "a straight is not three of a kind"),
    ("Four of a Kind", [4, 4, 4, 4, 1], 17, "exactly four, sum of all five"),
    ("Four of a Kind", [6, 1, 6, 6, 6], 25, "four of a kind in shuffled order"),
    ("Four of a Kind", [2, 2, 2, 6, 5], 0, "three of a kind is not four of a kind"),
    ("Four of a Kind", [3, 3, 3, 6, 6], 0, "a full house is not four of a kind"),
    # full house
    ("Full House", [2, 3, 2, 3, 3], 25, "three threes and two twos, mixed order"),
    ("Full House", [6, 6, 6, 1, 1], 25, "three sixes and two ones"),
    ("Full House", [1, 1, 1, 6, 6], 25, "three ones and two sixes"),
    ("Full House", [4, 4, 4, 4, 1], 0, "four and one is not a full house"),
    ("Full House", [2, 2, 3, 3, 4], 0, "two pairs are not a full house"),
    ("Full House", [2, 2, 2, 3, 4], 0, "three of a kind alone is not a full house"),
    ("Full House", [1, 2, 3, 4, 5], 0, "a straight is not a full house"),
    # small straight
    ("Small Straight", [1, 2, 3, 4, 6], 30, "1-2-3-4 plus a six"),
    ("Small Straight", [4, 1, 3, 2, 4], 30, "1-2-3-4 shuffled with a duplicate"),
    ("Small Straight", [2, 3, 4, 5, 2], 30, "2-3-4-5 with a duplicate"),
    ("Small Straight", [6, 3, 5, 4, 6], 30, "3-4-5-6 shuffled with a duplicate"),
    ("Small Straight", [3, 4, 4, 5, 6], 30, "a duplicate inside the run"),
    ("Small Straight", [1, 2, 3, 4, 5], 30, "a large straight is also a small straight"),
    ("Small Straight", [6, 5, 4, 3, 2], 30, "a descending large straight is also small"),
    ("Small Straight", [1, 2, 3, 5, 6], 0, "a gap at 4"),
    ("Small Straight", [1, 2, 4, 5, 6], 0, "a gap at 3"),
    ("Small Straight", [1, 1, 2, 2, 3], 0, "only three consecutive faces"),
    ("Small Straight", [1, 3, 5, 2, 6], 0, "1-2-3 and 5-6 are not four in a row"),
    # large straight
    ("Large Straight", [1, 2, 3, 4, 5], 40, "1 to 5 in order"),
    ("Large Straight", [5, 3, 4, 2, 6], 40, "2 to 6 shuffled"),
    ("Large Straight", [5, 4, 3, 2, 1], 40, "1 to 5 descending"),
    ("Large Straight", [1, 2, 3, 4, 6], 0, "a gap at 5"),
    ("Large Straight", [1, 2, 3, 4, 4], 0, "a duplicate breaks a large straight"),
    ("Large Straight", [2, 3, 4, 5, 5], 0, "a small straight is not large"),
    ("Large Straight", [1, 3, 4, 5, 6], 0, "1 and 3 to 6 is not a large straight"),
    # yahtzee and chance
    ("Yahtzee", [6, 6, 6, 6, 5], 0, "four of a kind is not a Yahtzee"),
    ("Yahtzee", [2, 2, 2, 2, 2], 50, "five twos"),
    ("Chance", [1, 2, 3, 4, 6], 16, "any dice: their sum"),
    ("Chance", [1, 1, 1, 1, 2], 6, "small sum"),
    ("Chance", [6, 6, 6, 6, 5], 29, "large sum"),
]


@pytest.mark.parametrize("category, dice, expected, why", SCORING_CASES,
                         ids=[case[3] for case in SCORING_CASES])
def test_score_table(category, dice, expected, why):
    before = list(dice)
    assert Y.score(category, dice) == expected, why
    assert dice == before, "score must not change the dice"


def test_the_table_covers_every_category_with_a_zero_and_a_nonzero():
    for category in Y.CATEGORIES:
        values = {expected for c, _, expected, _ in SCORING_CASES if c == category}
        assert any(v > 0 for v in values), category
        assert (0 in values) == (category != "Chance"), category      # Chance never scores 0


@pytest.mark.parametrize("dice", [
    [1, 2, 3], [1, 2, 3, 4, 5, 6], [], [0, 1, 2, 3, 4], [1, 2, 3, 4, 7], [1, 2, 3, 4, -1],
    (1, 2, 3, 4, 5), "12345", None, [1, 2, 3, 4, 5.0], [1, 2, 3, 4, "5"], [True, 2, 3, 4, 5],
    [[1], 2, 3, 4, 5],
], ids=repr)
def test_invalid_dice_raise_value_error(dice):
    with pytest.raises(ValueError):
        Y.check_dice(dice)
    with pytest.raises(ValueError):
        Y.score("Chance", dice)


@pytest.mark.parametrize("category", [
    "Full Houses", "full house", "FULL HOUSE", "", "Yahtzee Bonus", "Upper Bonus", "Total", None, 3,
], ids=repr)
def test_unknown_category_raises_value_error(category):
    with pytest.raises(ValueError):
        Y.score(category, [1, 2, 3, 4, 5])


def test_check_dice_accepts_valid_dice():
    for dice in ([1, 1, 1, 1, 1], [6, 6, 6, 6, 6], [1, 2, 3, 4, 5]):
        assert Y.check_dice(dice) is None


# ---------------------------------------------------------------------------
# Stage 4 rules on scorecards
# ---------------------------------------------------------------------------

def card(**boxes):
    """A scorecard with BOXES filled; names use underscores for spaces (Full_House=25)."""
    scorecard = Y.new_scorecard()
    for name, points in boxes.items():
        key = name.replace("_", " ")
        assert key in scorecard, key
        scorecard[key] = points
    return scorecard


def test_upper_bonus_at_exactly_63_and_not_at_62():
    exactly = card(Ones=3, Twos=6, Threes=9, Fours=12, Fives=15, Sixes=18)
    assert Y.upper_bonus(exactly) == 35
    assert Y.final_score(exactly) == 63 + 35
    short = card(Ones=2, Twos=6, Threes=9, Fours=12, Fives=15, Sixes=18)
    assert Y.upper_bonus(short) == 0
    assert Y.final_score(short) == 62
    above = card(Fours=20, Fives=25, Sixes=30)
    assert Y.upper_bonus(above) == 35
    assert Y.upper_bonus(card(Chance=30, Yahtzee=50, Large_Straight=40)) == 0, "lower boxes don't count"


def test_is_joker_needs_a_yahtzee_and_a_filled_yahtzee_box():
    assert not Y.is_joker([3] * 5, card())
    assert Y.is_joker([3] * 5, card(Yahtzee=50))
    assert Y.is_joker([3] * 5, card(Yahtzee=0))
    assert not Y.is_joker([3, 3, 3, 3, 2], card(Yahtzee=50))


def test_yahtzee_bonus_only_while_the_box_holds_50():
    assert Y.yahtzee_bonus(card(Yahtzee=50)) == 100
    assert Y.yahtzee_bonus(card(Yahtzee=0)) == 0
    assert Y.yahtzee_bonus(card()) == 0


def test_joker_branch_1_forced_upper_box():
    scorecard = card(Yahtzee=50)
    assert Y.joker_categories([4] * 5, scorecard) == ["Fours"]
    assert Y.joker_score("Fours", [4] * 5) == 20


def test_joker_branch_2_open_lower_boxes_at_full_value():
    scorecard = card(Yahtzee=50, Fours=12)
    assert Y.joker_categories([4] * 5, scorecard) == [
        "Three of a Kind", "Four of a Kind", "Full House", "Small Straight", "Large Straight", "Chance"]
    assert Y.joker_score("Full House", [4] * 5) == 25
    assert Y.joker_score("Small Straight", [4] * 5) == 30
    assert Y.joker_score("Large Straight", [4] * 5) == 40
    assert Y.joker_score("Three of a Kind", [4] * 5) == 20
    assert Y.joker_score("Four of a Kind", [4] * 5) == 20
    assert Y.joker_score("Chance", [4] * 5) == 20
    # only the open lower boxes are offered, never an open upper box of another face
    partly = card(Yahtzee=50, Fours=12, Full_House=25, Chance=22)
    assert Y.joker_categories([4] * 5, partly) == [
        "Three of a Kind", "Four of a Kind", "Small Straight", "Large Straight"]


def test_joker_branch_3_no_lower_box_open_scores_an_upper_box_0():
    lower = {name.replace(" ", "_"): 1 for name in Y.LOWER_CATEGORIES}
    scorecard = card(Twos=6, Fives=20, **lower)
    assert Y.joker_categories([2] * 5, scorecard) == ["Ones", "Threes", "Fours", "Sixes"]
    assert Y.joker_score("Sixes", [2] * 5) == 0
    assert Y.joker_score("Ones", [2] * 5) == 0


def test_yahtzee_scored_in_an_upper_box_by_score():
    assert Y.score("Threes", [3] * 5) == 15
    assert Y.score("Full House", [3] * 5) == 0, "five of a kind is not a full house without the Joker"


def test_final_score_and_scorecard_with_bonuses():
    scorecard = card(Ones=3, Twos=6, Threes=9, Fours=12, Fives=15, Sixes=18, Yahtzee=50, Chance=20)
    scorecard["Yahtzee Bonus"] = 200
    assert Y.final_score(scorecard) == 63 + 35 + 50 + 20 + 200
    lines = Y.format_scorecard(scorecard).splitlines()
    assert lines == [
        "Ones: 3", "Twos: 6", "Threes: 9", "Fours: 12", "Fives: 15", "Sixes: 18", "Upper Bonus: 35",
        "Three of a Kind: -", "Four of a Kind: -", "Full House: -", "Small Straight: -",
        "Large Straight: -", "Yahtzee: 50", "Chance: 20", "Yahtzee Bonus: 200", "Total: 368",
    ]


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


# ---------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------

dice_strategy = st.lists(st.integers(1, 6), min_size=5, max_size=5)


@settings(max_examples=150, deadline=None)
@given(dice=dice_strategy, data=st.data())
def test_dice_order_never_matters(dice, data):
    shuffled = data.draw(st.permutations(dice))
    for category in Y.CATEGORIES:
        assert Y.score(category, dice) == Y.score(category, list(shuffled)), category


@settings(max_examples=200, deadline=None)
@given(dice=dice_strategy)
def test_no_category_exceeds_its_maximum(dice):
    for category in Y.CATEGORIES:
        assert 0 <= Y.score(category, dice) <= MAXIMUM[category], category


@settings(max_examples=200, deadline=None)
@given(dice=dice_strategy)
def test_dispatcher_agrees_with_the_category_functions(dice):
    for face, category in enumerate(Y.UPPER_CATEGORIES, start=1):
        assert Y.score(category, dice) == Y.score_upper(dice, face)
    assert Y.score("Three of a Kind", dice) == Y.score_of_a_kind(dice, 3)
    assert Y.score("Four of a Kind", dice) == Y.score_of_a_kind(dice, 4)
    assert Y.score("Full House", dice) == Y.score_full_house(dice)
    assert Y.score("Small Straight", dice) == Y.score_small_straight(dice)
    assert Y.score("Large Straight", dice) == Y.score_large_straight(dice)
    assert Y.score("Yahtzee", dice) == Y.score_yahtzee(dice)
    assert Y.score("Chance", dice) == Y.score_chance(dice)


@settings(max_examples=200, deadline=None)
@given(dice=dice_strategy)
def test_scoring_is_consistent_across_categories(dice):
    if Y.score("Large Straight", dice):
        assert Y.score("Small Straight", dice) == 30
    if Y.score("Four of a Kind", dice):
        assert Y.score("Three of a Kind", dice) == Y.score("Four of a Kind", dice) == sum(dice)
    if Y.score("Yahtzee", dice):
        assert Y.score("Full House", dice) == 0
        assert Y.score("Four of a Kind", dice) == sum(dice)
    assert sum(Y.score(c, dice) for c in Y.UPPER_CATEGORIES) == sum(dice)


@settings(max_examples=200, deadline=None)
@given(keep=st.lists(st.integers(1, 5), min_size=1, max_size=5, unique=True),
       separator=st.sampled_from(["", " ", ",", ", ", "  "]),
       pad=st.sampled_from(["", " ", "  "]))
def test_parse_keep_round_trips(keep, separator, pad):
    text = pad + separator.join(str(p) for p in keep) + pad
    assert Y.parse_keep(text) == sorted(keep)
    assert Y.parse_keep(" ".join(str(p) for p in Y.parse_keep(text))) == sorted(keep)


@pytest.mark.parametrize("text, expected", [
    ("", [1, 2, 3, 4, 5]), ("all", [1, 2, 3, 4, 5]), (" ALL ", [1, 2, 3, 4, 5]),
    ("0", []), ("none", []), ("None", []), ("52", [2, 5]), ("1,3,5", [1, 3, 5]),
])
def test_parse_keep_special_answers(text, expected):
    assert Y.parse_keep(text) == expected


@pytest.mark.parametrize("text", ["6", "1 6", "1 1", "abc", "-1", "1.5", "00", "allx", "1 2 3 4 5 5"])
def test_parse_keep_rejects(text):
    with pytest.raises(ValueError):
        Y.parse_keep(text)


@settings(max_examples=100, deadline=None)
@given(dice=dice_strategy, keep=st.lists(st.integers(1, 5), unique=True).map(sorted),
       new=st.lists(st.integers(1, 6), min_size=5, max_size=5))
def test_reroll_calls_roll_dice_once_and_fills_in_position_order(dice, keep, new):
    calls = []

    def fake_roll(count=5):
        calls.append(count)
        return new[:count]

    original = Y.roll_dice
    Y.roll_dice = fake_roll
    try:
        before = list(dice)
        result = Y.reroll(dice, keep)
    finally:
        Y.roll_dice = original
    assert dice == before, "reroll must not change its argument"
    assert calls == [5 - len(keep)]
    fresh = iter(new)
    assert result == [dice[i] if i + 1 in keep else next(fresh) for i in range(5)]


@settings(max_examples=100, deadline=None)
@given(face=st.integers(1, 6), filled=st.sets(st.sampled_from(Y.CATEGORIES), max_size=12),
       yahtzee=st.sampled_from([0, 50]))
def test_joker_categories_are_open_and_follow_the_forced_order(face, filled, yahtzee):
    scorecard = Y.new_scorecard()
    for category in filled:
        scorecard[category] = 0
    scorecard["Yahtzee"] = yahtzee
    allowed = Y.joker_categories([face] * 5, scorecard)
    open_boxes = Y.open_categories(scorecard)
    assert set(allowed) <= set(open_boxes)
    if open_boxes:
        assert allowed, "a Joker always has somewhere to go while a box is open"
    matching = Y.UPPER_CATEGORIES[face - 1]
    if matching in open_boxes:
        assert allowed == [matching]
    elif any(c in open_boxes for c in Y.LOWER_CATEGORIES):
        assert allowed == [c for c in Y.LOWER_CATEGORIES if c in open_boxes]
    else:
        assert allowed == [c for c in Y.UPPER_CATEGORIES if c in open_boxes]


def test_all_permutations_of_a_straight_score_the_same():
    for order in permutations([2, 3, 4, 5, 6]):
        assert Y.score("Large Straight", list(order)) == 40
        assert Y.score("Small Straight", list(order)) == 30


# ---------------------------------------------------------------------------
# The doctests of the reference
# ---------------------------------------------------------------------------

def test_solution_doctests_pass():
    results = doctest.testmod(Y, verbose=False, report=False)
    assert results.attempted >= 40
    assert results.failed == 0
