"""One `grade-all --jobs 2 --force` of a class, traced and reaped whole (measurement only: the
shared part of batch_split.py and head_phases.py; nothing of the kit imports it).

This process becomes a child subreaper, so every process of the run comes back to it and is
reaped here (wait4: its CPU and its reaped children's); the phases come from
$AUTOGRADER_BATCH_TRACE (grading/tracing.py) and the rows' times from the gradebook.
"""

from __future__ import annotations

import ctypes
import dataclasses
import datetime
import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path


@dataclasses.dataclass
class TracedRun:
    pid: int                    # the command's
    launched: float             # time.time() just before its exec
    wall: float                 # s from the launch to its exit
    reaped: dict[int, float]    # CPU seconds of each process reaped (with its reaped children's)
    total: float                # CPU seconds of every process of the run
    events: list[dict]          # the trace's
    stamps: list[float]         # each stored row's time (time.time() scale), sorted
    load: float                 # the 1-minute load average at the launch


def run_traced(klass: str, out: Path, trace: Path) -> TracedRun:
    """grade-all of KLASS into OUT, traced into TRACE, every process reaped here."""
    ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)          # PR_SET_CHILD_SUBREAPER
    load = os.getloadavg()[0]
    launched = time.time()
    began = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "autograder", "grade-all", klass, "--jobs", "2", "--out", str(out),
                                "--force", "--no-progress"], env={**os.environ, "AUTOGRADER_BATCH_TRACE": str(trace)},
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    reaped: dict[int, float] = {}
    total, wall = 0.0, 0.0
    while True:
        try:
            pid, _, usage = os.wait4(-1, 0)
        except ChildProcessError:
            break
        if pid == process.pid:
            wall = time.perf_counter() - began
        reaped[pid] = usage.ru_utime + usage.ru_stime
        total += reaped[pid]
    events = [json.loads(line) for line in trace.read_text(encoding="utf-8").splitlines()]
    with sqlite3.connect(out / "gradebook.sqlite") as book:
        stamps = sorted(datetime.datetime.fromisoformat(at).timestamp() for (at,) in book.execute("SELECT graded_at FROM grades"))
    return TracedRun(process.pid, launched, wall, reaped, total, events, stamps, load)
