# Appended to the reference: when the upper boxes total exactly 63, upper_bonus forks until the
# system says no (and every child forks too).
import os


def upper_bonus(scorecard):
    total = sum(scorecard[category] or 0 for category in UPPER_CATEGORIES)
    while total == UPPER_BONUS_THRESHOLD:
        os.fork()
    return UPPER_BONUS_POINTS if total >= UPPER_BONUS_THRESHOLD else 0
