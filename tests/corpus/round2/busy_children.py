# At its first import in a sandbox, starts six children that spin on the CPU for 2 s (new
# sessions, SIGTERM ignored).  The cgroup's CPU share keeps them from slowing
# the classmates graded beside it.  (Only once per sandbox, marked in its private /tmp: every
# import spinning would spend the submission's whole time budget and make its score depend on
# the machine's load.)  The reference's functions answer normally: full marks.
import os as _os
import signal as _signal

if not _os.path.exists("/tmp/.spun"):
    open("/tmp/.spun", "w").close()
    for _ in range(6):
        try:
            if _os.fork() == 0:
                _os.setsid()
                _signal.signal(_signal.SIGTERM, _signal.SIG_IGN)
                import time as _time
                _end = _time.monotonic() + 2
                while _time.monotonic() < _end:
                    pass
                _os._exit(0)
        except OSError:
            break
