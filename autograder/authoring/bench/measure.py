"""The bench's constants and measuring tools (process-tree CPU, a child subreaper), and (a): one submission."""

from __future__ import annotations

import ctypes
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from ...assignment import DEFAULT_ASSIGNMENT, REPO_ROOT, load_assignment
from ..build import relative

ASSIGNMENT = DEFAULT_ASSIGNMENT    # the kit's main track: its sample class and notebooks
HOSTILE = ("mallory",)          # the bench class's hostile sample(s): left out of the honest class
SUBPROCESS_TIMEOUT = 1800       # seconds; a hung step fails the step, not the bench
CLASS_DIR = REPO_ROOT / "samples" / "class"
COURSE_DIR = REPO_ROOT / "notebooks"



# --- measuring ------------------------------------------------------------------------------------

def _become_subreaper() -> bool:
    """Orphans of our subprocesses (a batch's forkserver, a kernel) become our children, so their
    CPU time is counted when we reap them (Linux only)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        return ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0) == 0     # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        return False


def _reap_orphans(grace: float = 3.0) -> None:
    """Wait (up to GRACE seconds) for adopted orphans to exit, and reap them."""
    deadline = time.monotonic() + grace
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            if time.monotonic() > deadline:
                return
            time.sleep(0.02)


def descendants_cpu(root: int | None = None) -> float:
    """CPU seconds of the live descendants of ROOT (their own and their reaped children's), from /proc.
    One pass reads each process's times at a different moment: a descendant reaped during it is
    counted twice (read live, then in its parent's children's time) or not at all (its parent
    read before, itself after).  So a pass counts only when every process it counted is still
    there after it (none was reaped meanwhile); else it is read again (a few times at most)."""
    root = os.getpid() if root is None else root
    for _ in range(_PASSES - 1):
        total, counted = _descendants_pass(root)
        if all(os.path.exists(f"/proc/{pid}") for pid in counted):
            return total
    return _descendants_pass(root)[0]


_PASSES = 5


def _descendants_pass(root: int) -> tuple[float, list[int]]:
    """(CPU seconds of ROOT's live descendants, their pids), in one pass over /proc."""
    try:
        names = os.listdir("/proc")
    except OSError:
        return 0.0, []
    tick = os.sysconf("SC_CLK_TCK")
    parent: dict[int, int] = {}
    cpu: dict[int, float] = {}
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", encoding="ascii", errors="replace") as handle:
                text = handle.read()
        except OSError:
            continue
        fields = text[text.rindex(")") + 2:].split()
        pid = int(name)
        parent[pid] = int(fields[1])
        cpu[pid] = sum(int(f) for f in fields[11:15]) / tick     # utime stime cutime cstime
    total, counted = 0.0, []
    for pid in cpu:
        ancestor, hops = parent.get(pid), 0
        while ancestor and ancestor != root and hops < 64:
            ancestor, hops = parent.get(ancestor), hops + 1
        if ancestor == root:
            total += cpu[pid]
            counted.append(pid)
    return total, counted


def tree_cpu() -> float:
    """CPU seconds of this process, its reaped children and its live descendants."""
    import resource

    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime + descendants_cpu()


def run_measured(command: list[str], cwd: Path, env: dict[str, str] | None = None,
                 timeout: float = SUBPROCESS_TIMEOUT) -> tuple[subprocess.CompletedProcess, float, float]:
    """Run COMMAND (no stdin); return (result, wall seconds, CPU seconds of its whole process tree)."""
    import resource

    _reap_orphans(0)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    result = subprocess.run(command, cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                            text=True, timeout=timeout)
    wall = time.perf_counter() - started
    _reap_orphans()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return result, wall, cpu


def _tail(text: str, lines: int = 12) -> str:
    return "\n".join("      " + line for line in text.strip().splitlines()[-lines:])


# --- (a) one submission ---------------------------------------------------------------------------

def time_grades(path: str, stage: str, repeat: int) -> dict[str, Any]:
    """In this (fresh) process: one cold grade(), then REPEAT warm grades as a batch worker makes
    them (one grading session, grade_stream: each timed from taking the submission to taking the
    next, its sandboxes' stop included); wall and tree CPU of each."""
    from ...engine.program import close_references
    from ...engine.sandbox import template_scope
    from ...grading.grade import grade, grade_stream

    runs = []
    started: dict[str, float] = {}

    # A warm grade is timed from taking its submission to taking the next one (the last: to the
    # stream's end): a worker delivers a report before it stops the report's sandboxes, and their
    # CPU is only counted once they have ended and been reaped, so it falls after the delivery.
    def close_last() -> None:
        if started and runs and "open" in runs[-1]:
            del runs[-1]["open"]
            runs[-1].update(wall=time.perf_counter() - started["wall"], cpu=tree_cpu() - started["cpu"],
                            grader=_own_cpu() - started["own"])

    def paths():
        for _ in range(repeat):
            close_last()
            started["cpu"], started["wall"], started["own"] = tree_cpu(), time.perf_counter(), _own_cpu()
            yield path

    def deliver(report) -> None:
        runs.append({"open": True, "score": report.score, "max": report.max_score})

    try:
        with template_scope():      # one sandbox template for all of them, as in a batch worker
            cpu0, wall0 = tree_cpu(), time.perf_counter()
            report = grade(path, ASSIGNMENT, stage=stage)
            deliver_cold = {"wall": time.perf_counter() - wall0, "cpu": tree_cpu() - cpu0,
                            "score": report.score, "max": report.max_score}
            runs.append(deliver_cold)
            if repeat:
                grade_stream(paths(), deliver, ASSIGNMENT, stage)
                close_last()
    finally:
        close_references()
    return {"stage": stage, "runs": runs}


def _own_cpu() -> float:
    """CPU seconds of this process alone: the grader's side of a grade (its sandboxes are others)."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _child_time_grades() -> None:       # python -c entry point of the (a) subprocesses
    path, stage, repeat = sys.argv[1], sys.argv[2], int(sys.argv[3])
    print("BENCH-JSON " + json.dumps(time_grades(path, stage, repeat)))


def bench_single(submission: Path, repeat: int, python: str) -> dict[str, Any]:
    spec = load_assignment(ASSIGNMENT)
    stages = [str(s.number) for s in spec.core_stages] + ["all"]
    print(f"\n(a) one submission: {relative(submission)}, cold = first grade() in a fresh process, "
          f"warm = {repeat} more in one grading session (as a grade-all worker grades): the median of "
          f"their wall times, the mean of their CPU times (a live sandbox's CPU is read from /proc in "
          f"10 ms ticks, so one grade's CPU is a tick off either way and a median of few picks a mode)")
    print(f"    {'stage':<7}{'score':>12}{'cold wall':>12}{'cold CPU':>11}{'warm wall':>12}{'warm CPU':>11}"
          f"{'of it grader':>14}")
    rows: dict[str, dict[str, float]] = {}
    code = "from autograder.authoring.bench.measure import _child_time_grades; _child_time_grades()"
    for stage in stages:
        result, _, _ = run_measured([python, "-c", code, str(submission), stage, str(repeat)], REPO_ROOT)
        line = next((x for x in result.stdout.splitlines() if x.startswith("BENCH-JSON ")), None)
        if result.returncode != 0 or line is None:
            print(f"    {stage:<7} FAILED (exit {result.returncode})\n{_tail(result.stderr)}")
            continue
        runs = json.loads(line[len("BENCH-JSON "):])["runs"]
        cold, warm = runs[0], runs[1:] or runs[:1]
        row = {"cold_wall": cold["wall"], "cold_cpu": cold["cpu"],
               "warm_wall": statistics.median(r["wall"] for r in warm),
               "warm_cpu": statistics.fmean(r["cpu"] for r in warm),
               "warm_grader": statistics.fmean(r.get("grader", 0.0) for r in warm)}
        rows[stage] = row
        score = f"{cold['score']:g}/{cold['max']:g}"
        print(f"    {stage:<7}{score:>12}{row['cold_wall']:>11.3f}s{row['cold_cpu']:>10.3f}s"
              f"{row['warm_wall']:>11.3f}s{row['warm_cpu']:>10.3f}s{row['warm_grader']:>13.3f}s")
    if all(s in rows for s in stages[:-1]):
        total = {k: sum(rows[s][k] for s in stages[:-1]) for k in ("cold_wall", "cold_cpu", "warm_wall", "warm_cpu")}
        print(f"    {'1+2+3+4':<7}{'':>12}{total['cold_wall']:>11.3f}s{total['cold_cpu']:>10.3f}s"
              f"{total['warm_wall']:>11.3f}s{total['warm_cpu']:>10.3f}s   (four separate grades)")
    result, wall, cpu = run_measured([python, "-m", "autograder", "grade", str(submission), "--assignment",
                                      ASSIGNMENT, "--format", "gradescope"], REPO_ROOT)
    ok = "" if result.returncode == 0 else f"  FAILED (exit {result.returncode})"
    print(f"    one whole `python -m autograder grade` process (what run_autograder starts): "
          f"{wall:.2f} s wall, {cpu:.2f} s CPU{ok}")
    return {"rows": rows, "cli_wall": wall, "cli_cpu": cpu}


def student_names(class_dir: Path) -> list[str]:
    return sorted({p.stem if p.is_file() else p.name for p in class_dir.iterdir()
                   if not p.name.startswith(".") and p.name != "__pycache__"})


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"
