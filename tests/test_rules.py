"""The rules of the reference solution (solution/yahtzee.py), checked from the outside.

The reference is the single source of truth of the grader's expected values, so its rules
are pinned here against hand-computed answers: scoring (a table of cases), the bonuses and
the Joker rule, and the doctests of the file itself.  Whole games driven through input() with
chosen dice and seeded replays are in test_rules_games.py, properties (hypothesis) in
test_rules_properties.py.
"""

from __future__ import annotations

import doctest

import pytest
from helpers.reference import Y, card

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
# The doctests of the reference
# ---------------------------------------------------------------------------

def test_solution_doctests_pass():
    results = doctest.testmod(Y, verbose=False, report=False)
    assert results.attempted >= 40
    assert results.failed == 0
