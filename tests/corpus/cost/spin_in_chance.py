# Appended to the reference: Chance spins _SPIN_S of CPU before answering (the CPU twin of
# sleep_in_chance), then answers right.
import time as _time

_SPIN_S = 0.3             # (expected.toml's fixed cost reads it)


def score_chance(dice):
    t = _time.process_time()
    while _time.process_time() - t < _SPIN_S:
        pass
    return sum(dice)
