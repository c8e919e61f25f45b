"""Properties (hypothesis) of the reference's scoring and parsing (solution/yahtzee.py).

The hand-computed table of cases is in test_rules.py.
"""

from __future__ import annotations

from itertools import permutations

import pytest
from helpers.reference import Y
from hypothesis import given, settings
from hypothesis import strategies as st

MAXIMUM = {
    "Ones": 5, "Twos": 10, "Threes": 15, "Fours": 20, "Fives": 25, "Sixes": 30,
    "Three of a Kind": 30, "Four of a Kind": 30, "Full House": 25,
    "Small Straight": 30, "Large Straight": 40, "Yahtzee": 50, "Chance": 30,
}



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
