# Appended to the reference: opens files until the system refuses, keeps them all open, and
# works as the reference from then on.
import os

_held = []
while True:
    try:
        _held.append(os.open(os.devnull, os.O_RDONLY))
    except OSError:
        break
