"""CPU of N warm four-stage grades of one submission, split into the grader and its sandboxes.

    .venv/bin/python benchmarks/floor/split.py autograder/assignments/yahtzee/reference.py 20

Run from the repository root.  Also counts the sandbox starts and requests of a grade.
"""

import os
import sys

sys.path.insert(0, os.getcwd())

from autograder.engine.program import close_references  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sandbox_counts import install, measured  # noqa: E402


def pin_template(cpu: int) -> None:
    """$SPLIT_PIN_TEMPLATE=CPU: every template this process boots (so its roots, lives and request
    processes) pinned to CPU, the grader left free (the experiment of pass 18, `vmcost`)."""
    from autograder.engine import launch

    boot = launch._boot

    def pinned(python):
        popen, sock = boot(python)
        os.sched_setaffinity(popen.pid, {cpu})
        return popen, sock

    launch._boot = pinned


def main() -> None:
    if os.environ.get("SPLIT_PIN_TEMPLATE"):
        pin_template(int(os.environ["SPLIT_PIN_TEMPLATE"]))
    install()
    path, n = sys.argv[1], int(sys.argv[2])
    per, ms = measured(path, n)
    close_references()
    print(f"per grade: wall {ms['wall']:.0f} ms, tree CPU {ms['tree']:.0f} ms, "
          f"grader CPU {ms['grader']:.0f} ms, sandbox CPU {ms['tree'] - ms['grader']:.0f} ms")
    print(per)


if __name__ == "__main__":
    main()
