"""The optimal-strategy solver: hand-worked last turns (fast) and the published optima (full tables)."""

from fractions import Fraction

import numpy as np
import pytest

from autograder.coach import solver
from autograder.coach.solver import NUM_BOXES, OFFICIAL, Rules, flat

CATS = solver.kit().CATEGORIES


def last_box_value(category: str, upper: int = 0, holds50: int = 0, rules: Rules = OFFICIAL) -> float:
    """V of the state where only CATEGORY is open (the table of the next level is all zeros)."""
    mask = (1 << NUM_BOXES) - 1 - (1 << CATS.index(category))
    table = np.zeros(int(np.prod(solver.SHAPE)))
    return float(solver._turn_value(table, np.array([flat(mask, upper, holds50)]), rules, np.float64)[0])


def test_dice_tables_are_the_usual_ones():
    t = solver.tables()
    assert len(t.outcomes) == 252 and len(t.keeps) == 462
    assert np.allclose(t.transition.sum(axis=1), 1.0)
    assert t.first[t.index[(1, 2, 3, 4, 5)]] == pytest.approx(120 / 7776)
    assert t.first[t.index[(6, 6, 6, 6, 6)]] == pytest.approx(1 / 7776)
    # the kit's own scoring, not a copy: Full House of 2-2-3-3-3 is the kit's constant
    assert t.points[CATS.index("Full House"), t.index[(2, 2, 3, 3, 3)]] == solver.kit().FULL_HOUSE_POINTS


def test_only_chance_left_is_70_over_3():
    # one die: 3.5 after one roll, keep 4+ -> 4.25, keep 5+ -> 14/3; five dice: 70/3
    assert last_box_value("Chance") == pytest.approx(float(Fraction(70, 3)), abs=1e-12)


def test_only_yahtzee_left_is_50_times_the_known_probability():
    # P(Yahtzee within three rolls, keeping the most common face) = 2783176 / 6**10
    assert last_box_value("Yahtzee") == pytest.approx(50 * 2783176 / 6 ** 10, abs=1e-12)


def test_upper_bonus_counts_when_the_last_box_crosses_63():
    # Sixes open at 62: any six reaches 63; at 0 the bonus is out of reach
    at_zero, at_62 = last_box_value("Sixes", 0), last_box_value("Sixes", 62)
    p_no_six = (5 / 6) ** 3          # one die never shows a six in three rolls
    assert at_62 - at_zero > 35 * (1 - p_no_six ** 5) - 1e-9


def test_a_bonus_yahtzee_earns_100_more():
    with_bonus = last_box_value("Chance", holds50=1)
    # more than Chance alone (a Yahtzee now pays 100 more), less than a sure 30 plus every Yahtzee
    assert 70 / 3 + 1 < with_bonus < 30 + 100 * 2783176 / 6 ** 10
    assert last_box_value("Chance", holds50=1, rules=Rules("none", False)) == pytest.approx(70 / 3)


# The published optima from fresh float64 tables: tests/test_coach.py's
# test_optimum_interface_from_fresh_tables (the CLI solves each table once; both checks read it).
