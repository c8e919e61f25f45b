"""A `grade-all --jobs 2 --force` of a class, its CPU by process (measurement only; nothing imports it).

    .venv/bin/python benchmarks/floor/batch_split.py CLASS_DIR [TAG]

Run from a tree's root with that tree's Python.  This process becomes a child subreaper, so every
process of the run comes back to it and is reaped here (wait4: its CPU and its reaped children's):
the parent (with the templates it reaped, and its forks drawing charts), the fork server (with the
workers it reaped, and, from pass 13, the charts' drawer), and whatever outlived its parent
(multiprocessing's resource tracker before pass 13; two of the templates' children).  The
phases come from $AUTOGRADER_BATCH_TRACE (grading/tracing.py), as the bench's (b) lines read them.
`/usr/bin/time` is not enough here: it counts only the processes the parent waited for, not the
fork server's subtree (the workers, the drawer), which outlives the parent.
Prints one line; appends it as JSON to /tmp/batch_split.jsonl.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from pathlib import Path

from traced_batch import run_traced


def main() -> None:
    klass, tag = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else "run")
    work = Path(tempfile.mkdtemp(prefix="batch-split-"))
    run = run_traced(klass, work / "out", work / "trace.jsonl")
    wall, reaped, events, stamps, load = run.wall, run.reaped, run.events, run.stamps, run.load
    n = len(stamps)
    first, last = n // 4, 3 * n // 4          # the bench's steady rate: rows stored from 1/4 to 3/4 of the way
    steady = (last - first) / (stamps[last] - stamps[first]) if n >= 8 and stamps[last] > stamps[first] else 0.0
    server = next((e["pid"] for e in events if e["event"] == "forkserver-imported"), None)
    end = next(e for e in events if e["event"] == "end")
    templates = sum(e["children"] for e in events if e["event"] == "template-reaped")
    exits = [e for e in events if e["event"] == "worker-exit"]
    workers = sum(e["user"] + e["system"] for e in exits)
    checks = sum(e["checks"] + e["plans"] for e in exits)
    forked = sum(e["cpu"] + e.get("children", 0.0) for e in events if e["event"] == "drawer-drew" and e.get("forked"))
    middle = [e for e in events if e["event"] == "middle"]
    row = (middle[1]["cpu"] - middle[0]["cpu"]) / (middle[1]["stored"] - middle[0]["stored"]) if len(middle) == 2 else 0.0
    total = run.total
    parts = {
        "parent": end["cpu"],
        "drawer": end["children"] - templates + forked,
        "fork server": reaped.get(server, 0.0) - workers - sum(e["children"] for e in exits) - forked,
        "workers around the checks": workers - checks,
        "checks and plans": checks,
        "sandboxes": templates + sum(e["children"] for e in exits),
        "outlived their parent": sum(v for k, v in reaped.items() if k not in (run.pid, server)),
    }
    parts["the rest (exits)"] = total - sum(parts.values())
    record = {"tag": tag, "wall": wall, "total": total, "n": n, "steady": steady, "row_ms": 1000 * row, "load": load,
              **parts}
    with open("/tmp/batch_split.jsonl", "a", encoding="utf-8") as handle:
        handle.write(json.dumps(record) + "\n")
    print(f"{tag}: {n} submissions, wall {wall:.2f} s, all processes {total:.3f} s = {1000 * total / n:.1f} ms a "
          f"submission; steady {steady:.2f}/s; parent row {1000 * row:.2f} ms; " + ", ".join(f"{k} {v:.3f}" for k, v in parts.items())
          + f"; load {load:.1f}")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
