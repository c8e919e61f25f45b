"""CPU of N warm single grades (`grade()`: one submission, one session each, as `grade FILE` or
Gradescope runs it), the grader's process and its checks (measurement only; nothing imports it).

    .venv/bin/python benchmarks/floor/grade_once.py solution/yahtzee.py 10

Run from a tree's root with that tree's Python.  The grader's CPU is this process's (every
thread: the session, the plan run ahead while pytest collects, the sandbox starts); the checks'
is plugin.CHECKS_CPU (the grading thread in the checks and the in-stage retries).
"""

import os
import resource
import sys
import time

sys.path.insert(0, os.getcwd())

from autograder.authoring.bench.measure import tree_cpu  # noqa: E402
from autograder.engine import plugin  # noqa: E402
from autograder.engine.program import close_references  # noqa: E402
from autograder.engine.sandbox import template_scope  # noqa: E402
from autograder.grading.grade import grade  # noqa: E402


def self_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    path, n = sys.argv[1], int(sys.argv[2])
    scores = set()
    with template_scope():
        grade(path, "yahtzee", stage="all")
        c0, t0, s0, w0 = plugin.CHECKS_CPU[0], tree_cpu(), self_cpu(), time.perf_counter()
        for _ in range(n):
            scores.add(grade(path, "yahtzee", stage="all").score)
        c1, t1, s1, w1 = plugin.CHECKS_CPU[0], tree_cpu(), self_cpu(), time.perf_counter()
    close_references()
    print(f"per single grade: wall {(w1 - w0) / n * 1000:.0f} ms, tree CPU {(t1 - t0) / n * 1000:.0f} ms, "
          f"grader CPU {(s1 - s0) / n * 1000:.1f} ms, of which the checks {(c1 - c0) / n * 1000:.2f} ms; "
          f"scores {sorted(scores)}")


if __name__ == "__main__":
    main()
