# A whole file: it grades as the reference if it can read the reference (a cheat), else has nothing.
import random  # noqa: F401

try:
    with open("@REPO@/solution/yahtzee.py") as _f:
        exec(compile(_f.read().replace('__name__ == "__main__"', "False"), "yahtzee.py", "exec"))
except OSError as _err:
    print(f"could not read the solution: {_err}")
