# Appended to the reference: every round spins longer than the last (0.0005 s x boxes filled
# squared): a 13-round game takes about 0.33 s of CPU, a short one milliseconds.
import time as _time

_SPIN_S = 0.0005           # per round: x boxes filled squared (expected.toml's fixed cost reads it)
_play_round_ok = play_round


def play_round(scorecard):
    filled = sum(scorecard.get(c) is not None for c in CATEGORIES)
    t = _time.process_time()
    while _time.process_time() - t < _SPIN_S * filled * filled:
        pass
    return _play_round_ok(scorecard)
