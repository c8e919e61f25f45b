# Appended to the reference: Chance sleeps _SLEEP_S before answering (a wait off the CPU: over a
# trial's 0.25 s, under every full limit), then answers right.
import time as _time

_SLEEP_S = 0.3            # (expected.toml's fixed cost reads it)


def score_chance(dice):
    _time.sleep(_SLEEP_S)
    return sum(dice)
