"""What the floor tools count of a grade: the sandboxes it started and the requests it sent.

`install()` wraps the Sandbox's methods (measurement only; nothing of the kit imports this):
counts["starts"] (lives), ["batches"] and their ["batch_fresh"] / ["batch_shared"] requests, the
requests sent one at a time (["single_fresh"] / ["single_shared"]), and `forked`: the request
processes each life's zygote started, by its process.  `measured(path, n)` is a warm grade of
PATH, then N more in one stream, with their counts and CPU (tree, grader) and wall.
"""

from __future__ import annotations

import collections
import resource
import time
from pathlib import Path

from autograder.authoring.bench.measure import tree_cpu
from autograder.engine.sandbox import Sandbox, template_scope
from autograder.grading.grade import grade, grade_stream

counts: collections.Counter = collections.Counter()
forked: dict[int, tuple] = {}   # request processes each sandbox's zygote started (its "forked"), by its process
_run, _run_batch, _start, _collected = Sandbox.run, Sandbox.run_batch, Sandbox._start, Sandbox._collected


def _counted_run(self, req, limit=None):
    counts["single_fresh" if (req.fresh or req.kind == "script") else "single_shared"] += 1
    return _run(self, req, limit)


def _counted_batch(self, reqs, *args, **kwargs):
    counts["batches"] += 1
    for r in reqs:
        counts["batch_fresh" if (r.fresh or r.kind == "script") else "batch_shared"] += 1
    return _run_batch(self, reqs, *args, **kwargs)


def _counted_start(self):
    counts["starts"] += 1
    return _start(self)


def _counted_collected(self, proc, outcome, msg, result, trial):
    n = msg.get("forked") if isinstance(msg, dict) else None
    if isinstance(n, int):
        forked[id(proc)] = (proc, max(forked.get(id(proc), (None, 0))[1], n))   # (proc kept: no id reused)
    return _collected(self, proc, outcome, msg, result, trial)


def install() -> None:
    Sandbox.run, Sandbox.run_batch = _counted_run, _counted_batch
    Sandbox._start, Sandbox._collected = _counted_start, _counted_collected


def self_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def measured(path: str | Path, n: int) -> tuple[dict[str, float], dict[str, float]]:
    """(counts per grade, {"tree", "grader", "wall"} in ms per grade) of N warm grades of PATH."""
    with template_scope():
        grade(path, "yahtzee", stage="all")
        counts.clear()
        forked.clear()
        t0, s0, w0 = tree_cpu(), self_cpu(), time.perf_counter()
        grade_stream((path for _ in range(n)), lambda row: None, "yahtzee", "all")
        t1, s1, w1 = tree_cpu(), self_cpu(), time.perf_counter()
    counts["request_processes"] = sum(k for _, k in forked.values())
    per = {k: v / n for k, v in counts.items()}
    return per, {"tree": 1000 * (t1 - t0) / n, "grader": 1000 * (s1 - s0) / n, "wall": 1000 * (w1 - w0) / n}
