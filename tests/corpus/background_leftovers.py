# Appended to the reference: play_round leaves a detached daemon (double fork + setsid) and a
# non-daemon thread running, then plays the round as the reference does.
import os
import threading
import time

_reference_play_round = play_round


def _linger():
    time.sleep(3600)


def play_round(scorecard):
    pid = os.fork()
    if pid == 0:
        try:
            os.setsid()
            if os.fork() == 0:
                signal_names = ("SIGTERM", "SIGINT", "SIGHUP")
                import signal
                for name in signal_names:
                    signal.signal(getattr(signal, name), signal.SIG_IGN)
                _linger()
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    threading.Thread(target=_linger).start()
    return _reference_play_round(scorecard)
