# Starts processes that would outlive it: a sleeping child at import, a forked child in a
# method (the reference otherwise: full marks, and nothing left running).
import os
import subprocess

_Base = YahtzeeGame
try:
    subprocess.Popen(["sleep", "300"], start_new_session=True)
except OSError:
    pass


class YahtzeeGame(_Base):
    def is_straight(self, dice_set, is_small):
        try:
            if os.fork() == 0:
                import time
                time.sleep(300)
                os._exit(0)
        except OSError:
            pass
        return super().is_straight(dice_set, is_small)
