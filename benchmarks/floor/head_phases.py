"""The head of a `grade-all --jobs 2 --force` by phase, from the command's launch (measurement only).

    .venv/bin/python benchmarks/floor/head_phases.py CLASS_DIR [TAG] [--phases] [--out-keep DIR]

Run from a tree's root with that tree's Python (under `nice -n -10` for the least noise).  The
command is launched here (its clock starts just before the exec), with $AUTOGRADER_BATCH_TRACE
set; this process is a child subreaper and reaps every process of the run.  Prints, for each
traced phase of the head, its wall time from the launch and the CPU of the process that traced
it; then the first stored row, the last, the exit, the whole command's CPU; appends the record as
JSON to /tmp/head_phases.jsonl (--phases: each phase printed too).  The phases are grading/tracing.py's events (the parent's `start`,
`templates-booted`, `found`, the fork server's `forkserver-imported`/`-prepared`, each worker's
`worker-start`, `session-first-planned`, `session-first-checked`, the parent's `first-row`).
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from pathlib import Path

from traced_batch import run_traced

HEAD = ("start", "forkserver-handed", "forkserver-early", "templates-booted", "found", "roots-asked", "forkserver-imported",
        "forkserver-prepared", "worker-start", "worker-ready", "session-refcache", "session-collected",
        "session-first-planned", "session-first-checked", "first-row")


def main() -> None:
    klass, tag = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 and not sys.argv[2].startswith("--") else "run")
    keep = Path(sys.argv[sys.argv.index("--out-keep") + 1]) if "--out-keep" in sys.argv else None
    work = Path(tempfile.mkdtemp(prefix="head-phases-"))
    run = run_traced(klass, keep or work / "out", work / "trace.jsonl")
    launched, wall, total, events, stamps, load = run.launched, run.wall, run.total, run.events, run.stamps, run.load
    parent = next(e["pid"] for e in events if e["event"] == "start")
    server = next((e["pid"] for e in events if e["event"] == "forkserver-imported"), None)
    who = {parent: "parent", server: "server"}
    phases = []
    for e in events:
        if e["event"] in HEAD:
            name = who.get(e["pid"]) or who.setdefault(e["pid"], f"w{sum(v.startswith('w') for v in who.values()) + 1}")
            phases.append((e["event"], name, e["at"] - launched, e["cpu"]))
    record = {"tag": tag, "load": load, "wall": wall, "cpu": total, "n": len(stamps),
              "first_stored": stamps[0] - launched, "last_stored": stamps[-1] - launched,
              "tail": wall - (stamps[-1] - launched), "phases": phases}
    with open("/tmp/head_phases.jsonl", "a", encoding="utf-8") as handle:
        handle.write(json.dumps(record) + "\n")
    print(f"{tag}: load {load:.1f}, wall {wall:.3f} s, CPU {total:.3f} s, first stored {record['first_stored']:.3f}, "
          f"last {record['last_stored']:.3f}, tail {record['tail']:.3f}")
    for event, name, at, cpu in (phases if "--phases" in sys.argv else []):
        print(f"   {at:7.3f}  {name:<7} cpu {cpu:6.3f}  {event}")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
