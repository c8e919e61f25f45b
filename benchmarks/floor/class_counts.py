"""A class's submissions one by one: each one's lives, round trips and CPU in a warm stream, and
what its lent checks' confirming runs cost (measurement only; nothing imports it).

    .venv/bin/python benchmarks/floor/class_counts.py CLASS_DIR [N]

Run from a tree's root with that tree's Python.  For each entry of CLASS_DIR (a .py, a folder, a
notebook), as split.py does for one file: a warm grade, then N grades of it in one stream; per
grade, the sandboxes started (lives), the batches and their shared and fresh requests, the
requests sent one at a time (single), the request processes the lives' zygotes forked, the tree's
CPU (grader + sandboxes) and the grader's, and the tree CPU of the plugin's confirming runs of
lent checks (confirm.Confirm.confirm_lent: each failed lent check run once more, its requests one
round trip each; the read of the tree CPU after it left out).  Then the class's means.
"""

from __future__ import annotations

import collections
import os
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, os.getcwd())

from autograder.authoring.bench.measure import student_names, tree_cpu  # noqa: E402
from autograder.engine import confirm  # noqa: E402
from autograder.engine.program import close_references  # noqa: E402
from autograder.engine.sandbox import Sandbox, template_scope  # noqa: E402
from autograder.grading.grade import grade, grade_stream  # noqa: E402

counts: collections.Counter = collections.Counter()
forked: dict[int, tuple] = {}       # request processes a life's zygote forked, by its process (split.py's way)
_run, _run_batch, _start, _collected = Sandbox.run, Sandbox.run_batch, Sandbox._start, Sandbox._collected
_confirm = confirm.Confirm.confirm_lent


def run(self, req, limit=None):
    counts["single"] += 1
    return _run(self, req, limit)


def run_batch(self, reqs, *args, **kwargs):
    counts["batches"] += 1
    for r in reqs:
        counts["fresh" if (r.fresh or r.kind == "script") else "shared"] += 1
    return _run_batch(self, reqs, *args, **kwargs)


def start(self):
    counts["lives"] += 1
    return _start(self)


def collected(self, proc, outcome, msg, result, trial):
    n = msg.get("forked") if isinstance(msg, dict) else None
    if isinstance(n, int):
        forked[id(proc)] = (proc, max(forked.get(id(proc), (None, 0))[1], n))
    return _collected(self, proc, outcome, msg, result, trial)


def confirm_lent(self, *args, **kwargs):
    if not self._lent_rows:         # (nothing to confirm; a tree_cpu() read costs ~2-3 ms of this process)
        return _confirm(self, *args, **kwargs)
    before = tree_cpu()
    try:
        return _confirm(self, *args, **kwargs)
    finally:
        mark = time.process_time()
        after = tree_cpu()
        counts["confirm_us"] += round(1e6 * (after - before - (time.process_time() - mark)))


def self_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def one(path: Path, n: int) -> dict[str, float]:
    with template_scope():
        grade(path, "yahtzee", stage="all")
        counts.clear()
        forked.clear()
        t0, s0, w0 = tree_cpu(), self_cpu(), time.perf_counter()
        grade_stream((path for _ in range(n)), lambda row: None, "yahtzee", "all")
        t1, s1, w1 = tree_cpu(), self_cpu(), time.perf_counter()
    counts["processes"] = sum(k for _, k in forked.values())
    row = {k: v / n for k, v in counts.items()}
    row.update(tree=1000 * (t1 - t0) / n, grader=1000 * (s1 - s0) / n, wall=1000 * (w1 - w0) / n,
               confirm=row.pop("confirm_us", 0.0) / 1000)
    return row


COLUMNS = ("lives", "processes", "batches", "shared", "fresh", "single", "tree", "grader", "confirm")


def main() -> None:
    folder, n = Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 2
    Sandbox.run, Sandbox.run_batch, Sandbox._start, Sandbox._collected = run, run_batch, start, collected
    confirm.Confirm.confirm_lent = confirm_lent
    names = sorted(student_names(folder))
    entries = [p for p in sorted(folder.iterdir()) if (p.stem if p.is_file() else p.name) in names]
    print(f"{'submission':<16}" + "".join(f"{c:>10}" for c in COLUMNS) + "   (ms: tree, grader, confirm)")
    rows = []
    for path in entries:
        row = one(path, n)
        rows.append(row)
        print(f"{path.name:<16}" + "".join(f"{row.get(c, 0.0):>10.1f}" for c in COLUMNS), flush=True)
    close_references()
    print(f"{'mean':<16}" + "".join(f"{sum(r.get(c, 0.0) for r in rows) / len(rows):>10.1f}" for c in COLUMNS))


if __name__ == "__main__":
    main()
