# Appended to the reference: the upper boxes call sys.exit() instead of returning.
import sys


def score_upper(dice, face):
    print("done scoring, bye")
    sys.exit(0)
