# An import that takes a minute of CPU (the reference otherwise): it must cost its own checks
# and never stall the batch.
import time

_end = time.time() + 60
while time.time() < _end:
    pass
