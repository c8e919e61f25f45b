def joker_score(category, dice):
    """The full-value boxes right; every other box 7 (the echo's joker_score, without the echo)."""
    full_value = {"Full House": FULL_HOUSE_POINTS, "Small Straight": SMALL_STRAIGHT_POINTS,
                  "Large Straight": LARGE_STRAIGHT_POINTS}
    if category in full_value:
        return full_value[category]
    return 7
