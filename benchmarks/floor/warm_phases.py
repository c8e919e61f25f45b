"""N warm single `grade()` calls in one process (as grade_once.py makes them), by phase.

    .venv/bin/python benchmarks/floor/warm_phases.py solution/yahtzee.py 10

Run from a tree's root with that tree's Python.  One grade first (cold, not counted), then N,
each in a session of its own under one template scope (as a process that grades one file at a
time keeps its template); each phase's wall and this process's CPU (every thread: the plan run
ahead while pytest configures and collects is in the session's phases), medians over the N.
A timing plugin is handed to pytest.main and reference_outcomes is wrapped: measurement only,
nothing in the kit imports this file.
"""

import os
import statistics
import sys
import time

sys.path.insert(0, os.getcwd())

import pytest  # noqa: E402

from autograder.engine.sandbox import template_scope  # noqa: E402
from autograder.grading import grade as graded  # noqa: E402

MARKS: list[tuple[str, float, float]] = []
PHASES = ["start", "refcache-start", "refcache-done", "pytest-main", "configured", "collected", "sessionfinish",
          "end"]


def mark(name: str) -> None:
    MARKS.append((name, time.perf_counter(), time.process_time()))


class Timing:
    def pytest_configure(self, config):
        mark("configured")

    def pytest_collection_finish(self, session):
        mark("collected")

    def pytest_sessionfinish(self, session):
        mark("sessionfinish")


def main() -> None:
    path, n = sys.argv[1], int(sys.argv[2])
    real_main, real_outcomes = pytest.main, graded.reference_outcomes

    def pytest_main(args=None, plugins=None):
        mark("pytest-main")
        return real_main(args, [*(plugins or []), Timing()])

    def reference_outcomes(*args, **kwargs):
        mark("refcache-start")
        try:
            return real_outcomes(*args, **kwargs)
        finally:
            mark("refcache-done")

    pytest.main, graded.reference_outcomes = pytest_main, reference_outcomes
    rows = []
    with template_scope():
        for i in range(n + 1):
            MARKS.clear()
            mark("start")
            graded.grade(path, "yahtzee")
            mark("end")
            if i:
                rows.append({name: (wall, cpu) for name, wall, cpu in MARKS})
    print(f"{n} warm single grade() of {path}, load {os.getloadavg()[0]:.1f}: medians, ms (wall / this process's CPU)")
    for a, b in zip(PHASES, PHASES[1:]):
        wall = statistics.median(1000 * (r[b][0] - r[a][0]) for r in rows)
        cpu = statistics.median(1000 * (r[b][1] - r[a][1]) for r in rows)
        print(f"  {a:>15} -> {b:<15} wall {wall:6.1f}  CPU {cpu:6.1f}")
    wall = statistics.median(1000 * (r["end"][0] - r["start"][0]) for r in rows)
    cpu = statistics.median(1000 * (r["end"][1] - r["start"][1]) for r in rows)
    print(f"  {'whole grade':>33} wall {wall:6.1f}  CPU {cpu:6.1f}")


if __name__ == "__main__":
    main()
