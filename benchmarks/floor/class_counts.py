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

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, os.getcwd())

from autograder.authoring.bench.measure import student_names, tree_cpu  # noqa: E402
from autograder.engine import confirm  # noqa: E402
from autograder.engine.program import close_references  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sandbox_counts import counts, install, measured  # noqa: E402

_confirm = confirm.Confirm.confirm_lent


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


def one(path: Path, n: int) -> dict[str, float]:
    per, ms = measured(path, n)
    row = {"lives": per.get("starts", 0.0), "processes": per.get("request_processes", 0.0),
           "batches": per.get("batches", 0.0), "shared": per.get("batch_shared", 0.0),
           "fresh": per.get("batch_fresh", 0.0),
           "single": per.get("single_fresh", 0.0) + per.get("single_shared", 0.0),
           "confirm": per.get("confirm_us", 0.0) / 1000}
    row.update(tree=ms["tree"], grader=ms["grader"])
    return row


COLUMNS = ("lives", "processes", "batches", "shared", "fresh", "single", "tree", "grader", "confirm")


def main() -> None:
    folder, n = Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 2
    install()
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
