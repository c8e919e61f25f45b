"""`make test`: the kit's suite in two steps, one summary, the worse exit status of the two.

1. Every test not marked `serial`, on both cores: `pytest -n JOBS --dist loadfile` (a file's tests
   stay in one worker, so its module fixtures run once, not once per worker), the costliest files
   handed out first (conftest.py's COSTLIEST_FIRST, hence --no-loadscope-reorder).
2. The tests marked `serial`, alone (`pytest -m serial`): the ones about timing or cost under a
   known load (CPU-ratio cost tests, wall-clock bounds, the timeout and fork-bomb cases) and the
   ones that fill both cores themselves (`grade-all --jobs 2`, a pool of two graders).
First, when Python writes no bytecode ($PYTHONDONTWRITEBYTECODE), one collection with it allowed
(`pytest --collect-only`, in this process's child only): pytest keeps each test module's (and each
plugin's) assert-rewritten code in __pycache__ and reads it back even where it may not write, so the
steps' three collections (each xdist worker's and step 2's) do not rewrite ~200 modules each.
Both steps run whatever the first gives; each prints pytest's own report, then this script prints
the two steps' counts, every failing test of both, and the wall time.

    python tests/run.py [-n JOBS] [pytest arguments...]      # (make test: no arguments)

JOBS: 2 by default (this kit's CI is a 2-core VM), $TEST_JOBS or -n; 1 runs step 1 without xdist.
Extra arguments go to both steps (e.g. `-x`, `-k batch`, a file).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
NO_TESTS = 5          # pytest's exit status when a step selects nothing (not a failure here)


def _counts(junit: Path) -> tuple[dict[str, int], list[str]]:
    """A step's counts (tests, failures, errors, skipped) and its failing tests, from its JUnit XML."""
    counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    failing: list[str] = []
    if not junit.exists():
        return counts, failing
    root = ET.parse(junit).getroot()
    for suite in root.iter("testsuite"):
        for key in counts:
            counts[key] += int(suite.get(key, 0))
    for case in root.iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            where = case.get("classname", "").replace(".", "/")
            failing.append(f"{where}.py::{case.get('name')}")
    return counts, failing


def _step(title: str, args: list[str], junit: Path) -> tuple[int, float]:
    print(f"\n=== make test, {title}: pytest {' '.join(args)}", flush=True)
    started = time.monotonic()
    code = subprocess.call([sys.executable, "-m", "pytest", *args, f"--junitxml={junit}"], cwd=REPO,
                           stdin=subprocess.DEVNULL)
    return code, time.monotonic() - started


def _warm_rewrites() -> None:
    """The assert-rewritten test modules written once (see the head); nothing is run."""
    if not os.environ.get("PYTHONDONTWRITEBYTECODE"):
        return          # pytest writes them as it goes
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.call([sys.executable, "-m", "pytest", "-q", "--collect-only"], cwd=REPO,
                    env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def main(argv: list[str]) -> int:
    jobs = os.environ.get("TEST_JOBS", "2")
    if argv[:1] == ["-n"] and len(argv) > 1:
        jobs, argv = argv[1], argv[2:]
    parallel = ["-n", jobs, "--dist", "loadfile", "--no-loadscope-reorder"] if jobs not in ("0", "1") else []
    started = time.monotonic()
    _warm_rewrites()
    with tempfile.TemporaryDirectory(prefix="make-test-") as tmp:
        steps = [("step 1 of 2 (both cores)", ["-q", *parallel, "-m", "not serial", *argv], Path(tmp, "1.xml")),
                 ("step 2 of 2 (alone)", ["-q", "-m", "serial", *argv], Path(tmp, "2.xml"))]
        results = []
        for title, args, junit in steps:
            code, wall = _step(title, args, junit)
            results.append((title, code, wall, *_counts(junit)))
    print("\n=== make test: summary")
    worst, failing = 0, []
    for title, code, wall, counts, failed in results:
        passed = counts["tests"] - counts["failures"] - counts["errors"] - counts["skipped"]
        print(f"{title}: {passed} passed, {counts['failures']} failed, {counts['errors']} errors, "
              f"{counts['skipped']} skipped in {wall:.0f} s (pytest exit status {code})")
        worst = max(worst, 0 if code == NO_TESTS else code)
        failing += failed
    for name in failing:
        print(f"FAILED {name}")
    total = time.monotonic() - started
    print(f"make test: {'FAILED' if worst else 'passed'} in {total:.0f} s ({total / 60:.1f} min)")
    return worst


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
