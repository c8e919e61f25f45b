# Writes into its working folder and above, and starts processes meant to outlive it, at import
# and in a function (the reference otherwise: full marks, nothing left behind).
import os
import subprocess

_reference_sum = sumDice


def _plant(tag):
    for folder in (".", "..", "../.."):
        try:
            with open(os.path.join(folder, f"planted_{tag}.txt"), "w") as handle:
                handle.write("planted by a submission")
        except OSError:
            pass
    try:
        subprocess.Popen(["sleep", "300"], start_new_session=True)
    except OSError:
        pass


_plant("import")


def sumDice(dielist):
    _plant("call")
    try:
        if os.fork() == 0:
            import time
            time.sleep(300)
            os._exit(0)
    except OSError:
        pass
    return _reference_sum(dielist)
