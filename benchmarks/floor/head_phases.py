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

import ctypes
import datetime
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HEAD = ("start", "forkserver-handed", "forkserver-early", "templates-booted", "found", "roots-asked", "forkserver-imported",
        "forkserver-prepared", "worker-start", "worker-ready", "session-refcache", "session-collected",
        "session-first-planned", "session-first-checked", "first-row")


def main() -> None:
    klass, tag = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 and not sys.argv[2].startswith("--") else "run")
    keep = Path(sys.argv[sys.argv.index("--out-keep") + 1]) if "--out-keep" in sys.argv else None
    ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)          # PR_SET_CHILD_SUBREAPER
    work = Path(tempfile.mkdtemp(prefix="head-phases-"))
    out, trace = (keep or work / "out"), work / "trace.jsonl"
    load = os.getloadavg()[0]
    launched = time.time()
    began = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "autograder", "grade-all", klass, "--jobs", "2", "--out", str(out),
                                "--force", "--no-progress"], env={**os.environ, "AUTOGRADER_BATCH_TRACE": str(trace)},
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    total, wall = 0.0, 0.0
    while True:
        try:
            pid, _, usage = os.wait4(-1, 0)
        except ChildProcessError:
            break
        if pid == process.pid:
            wall = time.perf_counter() - began
        total += usage.ru_utime + usage.ru_stime
    events = [json.loads(line) for line in trace.read_text(encoding="utf-8").splitlines()]
    with sqlite3.connect(out / "gradebook.sqlite") as book:
        stamps = sorted(datetime.datetime.fromisoformat(at).timestamp() for (at,) in book.execute("SELECT graded_at FROM grades"))
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
