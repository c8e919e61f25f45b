# Appended to the reference: Chance builds a "table" on its first call in a process (_FIRST_CALL_S
# of CPU: over a trial's 0.25 s, under every full limit), then answers at once.
import time as _time

_FIRST_CALL_S = 0.4       # (expected.toml's fixed cost reads it)
_TABLE = []


def score_chance(dice):
    if not _TABLE:
        t = _time.process_time()
        while _time.process_time() - t < _FIRST_CALL_S:
            pass
        _TABLE.append(True)
    return sum(dice)
