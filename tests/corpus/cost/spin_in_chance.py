# Appended to the reference: Chance spins 0.3 s of CPU before answering (the CPU twin of
# sleep_in_chance), then answers right.
import time as _time


def score_chance(dice):
    t = _time.process_time()
    while _time.process_time() - t < 0.3:
        pass
    return sum(dice)
