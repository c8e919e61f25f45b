# Appended to the reference: Chance sleeps 0.3 s before answering (a wait off the CPU: over a
# trial's 0.25 s, under every full limit), then answers right.
import time as _time


def score_chance(dice):
    _time.sleep(0.3)
    return sum(dice)
