"""(b) grade-all throughput, (d) the slow-but-finite worst case, (e) false timeouts under load."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import statistics
import subprocess
import time
from pathlib import Path

from ...assignment import REPO_ROOT, load_assignment
from ...grading.tracing import TRACE_ENV
from ..build import relative
from .measure import ASSIGNMENT, HOSTILE, SUBPROCESS_TIMEOUT, _tail, run_measured, student_names

# --- (b) batch throughput -------------------------------------------------------------------------

def copy_class(source: Path, into: Path, copies: int) -> list[str]:
    """COPIES copies of every submission in SOURCE, renamed alice_1.py, alice_2.py, carol_1/ ..."""
    into.mkdir(parents=True)
    made = []
    for item in sorted(source.iterdir()):
        if item.name.startswith(".") or item.name == "__pycache__":
            continue
        for n in range(1, copies + 1):
            name = f"{item.stem}_{n}{item.suffix}" if item.is_file() else f"{item.name}_{n}"
            if item.is_dir():
                shutil.copytree(item, into / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
            else:
                shutil.copy2(item, into / name)
            made.append(name)
    return made


def _slowest(out: Path, count: int = 3) -> str:
    """The slowest submissions, from the gradebook grade-all wrote (best effort: another module's schema)."""
    import sqlite3

    try:
        with contextlib.closing(sqlite3.connect(out / "gradebook.sqlite")) as db:
            rows = db.execute("SELECT submission_id, wall_time FROM grades").fetchall()
    except sqlite3.Error:
        return ""
    if not rows:
        return ""
    walls = sorted(w for _, w in rows)
    slow = sorted(rows, key=lambda r: -r[1])[:count]
    text = (f"median {statistics.median(walls):.2f} s per submission in a worker; slowest "
            + ", ".join(f"{sid} {wall:.1f} s" for sid, wall in slow))
    hostile = [w for sid, w in rows if _base_name(sid) in HOSTILE]
    honest = [w for sid, w in rows if _base_name(sid) not in HOSTILE]
    if hostile and honest:          # what the hostile sample costs next to an honest submission
        ratio = statistics.median(hostile) / max(statistics.median(honest), 1e-9)
        text += (f"; the hostile sample ({', '.join(HOSTILE)}) {statistics.median(hostile):.2f} s, "
                 f"{ratio:.1f} x the honest median {statistics.median(honest):.2f} s")
    return text


def _graded_times(out: Path) -> list[float]:
    """When each row of the gradebook was graded (seconds, sorted)."""
    import datetime
    import sqlite3

    try:
        with contextlib.closing(sqlite3.connect(out / "gradebook.sqlite")) as db:
            stamps = [r[0] for r in db.execute("SELECT graded_at FROM grades")]
    except sqlite3.Error:
        return []
    return sorted(datetime.datetime.fromisoformat(t).timestamp() for t in stamps)


def steady_rate(times: list[float]) -> float | None:
    """Submissions/s in the middle half of the run (from the row stored a quarter of the way in to
    the one three quarters in): the workers' start-up and the last grades' tail are left out, and so
    is most of a burst of other work on a shared machine at either end.  None with fewer than 8 rows."""
    if len(times) < 8:
        return None
    first, last = len(times) // 4, (3 * len(times)) // 4
    span = times[last] - times[first]
    return (last - first) / span if span > 0 else None


def honest_class(class_dir: Path, into: Path, size: int, hostile: tuple[str, ...] = HOSTILE) -> list[str]:
    """Copies of the class's honest students (all but HOSTILE) until there are at least SIZE."""
    source = into.parent / f"{into.name}-source"
    source.mkdir(parents=True)
    for item in sorted(class_dir.iterdir()):
        stem = item.stem if item.is_file() else item.name
        if item.name.startswith(".") or item.name == "__pycache__" or stem in hostile:
            continue
        (shutil.copytree if item.is_dir() else shutil.copy2)(item, source / item.name)
    count = len(student_names(source))
    return copy_class(source, into, max(1, -(-size // max(count, 1))))


def grade_all(folder: Path, out: Path, jobs: int, python: str, env: dict[str, str] | None = None) -> list[str]:
    return [python, "-m", "autograder", "grade-all", str(folder), "--assignment", ASSIGNMENT, "--jobs", str(jobs),
            "--out", str(out), "--force", "--no-progress"]


def bench_batch(class_dir: Path, copies: int, jobs_list: list[int], work: Path, python: str,
                honest: int = 30) -> dict[str, dict[int, dict]]:
    """grade-all on an honest class (>= HONEST submissions) and on COPIES copies of the bench class."""
    classes = {"honest": honest_class(class_dir, work / "honest", honest),
               "bench": copy_class(class_dir, work / "class", copies)}
    folders = {"honest": work / "honest", "bench": work / "class"}
    print(f"\n(b) batch: `python -m autograder grade-all` (fresh --out, --force) on the honest class "
          f"({len(classes['honest'])} submissions: copies of {relative(class_dir)} without "
          f"{', '.join(HOSTILE)}) and on {copies} cop{'y' if copies == 1 else 'ies'} of {relative(class_dir)} "
          f"= {len(classes['bench'])} submissions (with its hostile sample)")
    print("    steady/s: the middle half of the run (rows stored from 1/4 to 3/4 of the way); first: the "
          "first grade stored, s after the start; tail: s from the last one to the command's exit; "
          "load: the 1-minute load average at the end")
    print(f"    {'class':<8}{'jobs':<6}{'wall':>9}{'CPU':>9}{'subs/s':>9}{'steady/s':>10}{'wall/sub':>10}{'CPU/sub':>9}"
          f"{'first':>8}{'tail':>7}{'load':>6}")
    results: dict[str, dict[int, dict]] = {"honest": {}, "bench": {}}
    for which in ("honest", "bench"):
        for jobs in jobs_list:
            out = work / f"out-{which}-jobs{jobs}"
            trace = work / f"trace-{which}-jobs{jobs}.jsonl"
            began, busy = time.time(), machine_busy()
            result, wall, cpu = run_measured(grade_all(folders[which], out, jobs, python), REPO_ROOT,
                                             env={**os.environ, TRACE_ENV: str(trace)})
            busy = machine_busy() - busy if busy is not None else None
            if result.returncode != 0:
                print(f"    {which:<8}{jobs:<6} FAILED (exit {result.returncode})\n{_tail(result.stdout + result.stderr)}")
                continue
            n = len(classes[which])
            times = _graded_times(out)
            steady = steady_rate(times)
            first, tail = (times[0] - began, began + wall - times[-1]) if times else (None, None)
            results[which][jobs] = {"wall": wall, "cpu": cpu, "rate": n / wall, "n": n, "steady": steady,
                                    "out": out, "first": first, "tail": tail, "load": _load1()}
            shown = f"{steady:>10.2f}" if steady else f"{'-':>10}"
            ends = f"{first:>7.2f}s{tail:>6.2f}s" if times else f"{'-':>8}{'-':>7}"
            print(f"    {which:<8}{jobs:<6}{wall:>8.2f}s{cpu:>8.2f}s{n / wall:>9.2f}{shown}{wall / n:>9.3f}s"
                  f"{cpu / n:>8.3f}s{ends}{_load1():>6.1f}")
            slowest = _slowest(out)
            if slowest:
                print(f"          {slowest}")
            account = accounting(trace, began, wall, cpu, n, jobs)
            if account:
                results[which][jobs]["account"] = account
                print(account["text"])
            if busy is not None:
                print(share_line(busy, wall, cpu, n, jobs))
    return results


def machine_busy() -> float | None:
    """CPU seconds every process of the machine has used so far (/proc/stat: all but idle and iowait)."""
    try:
        with open("/proc/stat", encoding="ascii") as handle:
            ticks = [int(x) for x in handle.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    return (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")


def share_line(busy: float, wall: float, cpu: float, n: int, jobs: int) -> str:
    """What the run got of the machine: the cores other work left it (BUSY: the machine's CPU
    seconds during the run, CPU: ours), and the rate all our CPU a submission allows on them, next to
    the rate reached: on a shared machine, how close grade-all came to its CPU bound."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    others = max(0.0, busy - cpu) / wall
    left = max(0.05, min(jobs, cores - others))      # --jobs N grades on at most N cores
    bound = left / (cpu / n) if cpu > 0 else 0.0
    return (f"          machine: other work took {others:.2f} of its {cores} cores on average; with the {left:.2f} "
            f"left for --jobs {jobs} "
            f"and {1000 * cpu / n:.0f} ms CPU a submission (every process of the run), at most {bound:.1f}/s; "
            f"the whole command ran at {n / wall:.1f}/s ({100 * n / wall / bound:.0f} % of that)" if bound else "")


def accounting(trace: Path, began: float, wall: float, cpu: float, n: int, jobs: int) -> dict | None:
    """Where a grade-all run's time went, from the phases its processes wrote to TRACE
    (grading.tracing.trace): the parent's CPU and its phases (and its reaped children's: the forks
    that draw the class report's charts), the workers' own CPU (the grader),
    their sandboxes' (what each worker reaped: its template and every sandbox life), the rest
    (the fork server, Python's start and exit); and the rate that CPU allows on JOBS cores; how
    much of a core each worker kept busy over its life (its own CPU and its sandboxes'), and how
    many submissions a worker loaded ahead (received while it graded another)."""
    try:
        events = [json.loads(line) for line in trace.read_text(encoding="utf-8").splitlines() if line.strip()]
    except (OSError, ValueError):
        return None
    parent = {e["event"]: e for e in events if e["event"] in ("start", "found", "first-row", "graded", "exported",
                                                               "end")}
    # the parent's CPU a row stored while the workers grade: from the row a quarter of the way in to
    # the one three quarters in (grade_all's "middle" events; its threads', the feedback files' too)
    middle = [e for e in events if e["event"] == "middle"]
    per_row = ((middle[1]["cpu"] - middle[0]["cpu"]) / (middle[1]["stored"] - middle[0]["stored"])
               if len(middle) == 2 and middle[1]["stored"] > middle[0]["stored"] else None)
    exits = [e for e in events if e["event"] == "worker-exit"]
    ready = sorted(e["at"] - began for e in events if e["event"] == "worker-ready")
    # each worker session's first grade (grading.tracing.trace, from grading.grade): what its first stored row waits on
    firsts = {name: sorted(e["at"] - began for e in events if e["event"] == f"session-{name}")
              for name in ("refcache", "collected", "first-planned", "first-checked")}
    if "start" not in parent or "end" not in parent or not exits:
        return None
    # the fork server's boot (grading/preload.py): ready to fork the workers; and whether the workers
    # ran the session it collected (preloading.prepare_session)
    server = next((e for e in events if e["event"] == "forkserver-prepared"), None)
    prepared = any(e.get("prepared") for e in events if e["event"] == "session-collected")
    waited = sum(e["waited"] for e in events if e["event"] == "task" and not e["first"])
    own = sum(e["cpu"] for e in exits)
    graded = sum(e.get("graded", 0) for e in exits)
    # of the workers' own CPU: the checks and the plans run ahead (the grade itself), and around them
    checks = sum(e["checks"] + e["plans"] for e in exits) if all("checks" in e for e in exits) else None
    # the templates the parent booted for its workers (workers.WorkerPool._boot_templates) are its
    # children: reaped by it, with the sandboxes they reaped
    reaped = [e for e in events if e["event"] == "template-reaped"]
    templates = sum(e["children"] for e in reaped)
    sandboxes = sum(e["children"] for e in exits) + templates
    parent_cpu = parent["end"]["cpu"]
    # the parent's other reaped children (forks drawing charts), and the charts' drawer: forked by the fork
    # server (charts.Drawer.start), so not the parent's child: its CPU (and its helper's) as it traced it
    drawer = sum(e["cpu"] + e.get("children", 0.0) for e in events if e["event"] == "drawer-drew" and e.get("forked"))
    drawing = parent["end"].get("children", 0.0) - templates + drawer
    grading = (own + sandboxes) / n
    allowed = jobs / grading if grading > 0 else None
    starts = {e.get("pid"): e for e in events if e["event"] == "worker-start"}
    busy = [(e["cpu"] - starts[e["pid"]]["cpu"] + e["children"]
             + sum(t["children"] for t in reaped if t.get("worker") == e["pid"])) / (e["at"] - starts[e["pid"]]["at"])
            for e in exits if e.get("pid") in starts and e["at"] > starts[e["pid"]]["at"]]
    ahead = sum(1 for e in events if e["event"] == "task" and e.get("ahead"))

    def at(name: str) -> str:
        return f"{parent[name]['at'] - began:.2f}" if name in parent else "-"

    exports = parent["exported"]["at"] - parent["graded"]["at"] if "exported" in parent and "graded" in parent else None
    text = (f"          CPU: parent {parent_cpu:.2f} s ({parent['start']['cpu']:.2f} s of it to start"
            + (f"; +{drawing:.2f} s of its children: the charts' drawer (its matplotlib import at idle priority) and forks drawing" if drawing else "") + ")"
            + (f", {1000 * per_row:.2f} ms a row in the middle half" if per_row is not None else "") + ", workers "
            f"{own:.2f} s"
            + (f" (the checks and their plans {checks:.2f} s; around them {1000 * (own - checks) / graded:.1f} ms "
               "a submission)" if checks is not None and graded else "")
            + f", their sandboxes {sandboxes:.2f} s, the rest "
            f"{max(0.0, cpu - parent_cpu - drawing - own - sandboxes):.2f} s "
            f"(fork server, Python's start and exit); workers + sandboxes {1000 * grading:.0f} ms a submission, "
            f"at most {allowed:.1f}/s on {jobs} core{'s' if jobs > 1 else ''}; workers waited {waited:.2f} s in all "
            f"for their next submission"
            + (f"; each worker kept {', '.join(f'{b:.2f}' for b in busy)} of a core busy over its life" if busy else "")
            + f"; {ahead} of {n} submissions loaded ahead\n"
            f"          phases (s from the start): grading starts {at('start')}, submissions found {at('found')}, "
            + (f"fork server ready {server['at'] - began:.2f} ({server['cpu']:.2f} s CPU"
               + (", suites collected there" if prepared else "") + "), " if server else "")
            + f"workers ready {', '.join(f'{r:.2f}' for r in ready)}"
            + ("".join(f", {label} {', '.join(f'{t:.2f}' for t in firsts[name])}"
                       for name, label in (("refcache", "reference cache read"), ("collected", "suites collected"),
                                           ("first-planned", "first plan run"), ("first-checked", "first checked"))
                       if firsts[name]))
            + f", first stored {at('first-row')}, "
            f"last stored {at('graded')}, exports "
            f"{f'{exports:.2f} s' if exports is not None else '-'}, done {at('end')}, exit {wall:.2f}")
    return {"parent": parent_cpu, "per_row": per_row, "drawing": drawing, "workers": own, "sandboxes": sandboxes, "allowed": allowed, "waited": waited,
            "busy": busy, "ahead": ahead, "text": text}


def _load1() -> float:
    try:
        return os.getloadavg()[0]
    except OSError:
        return float("nan")


# --- (d) the slow-but-finite worst case ----------------------------------------------------------

SLOW_TAIL = """

# --- bench: every top-level call pauses just below the per-call limit, then answers correctly ---
import functools as _bench_functools
import time as _bench_time

_BENCH_DEPTH = [0]


def _bench_slow(function):
    @_bench_functools.wraps(function)
    def wrapper(*args, **kwargs):
        if _BENCH_DEPTH[0] == 0:
            _bench_time.sleep(PAUSE)
        _BENCH_DEPTH[0] += 1
        try:
            return function(*args, **kwargs)
        finally:
            _BENCH_DEPTH[0] -= 1
    return wrapper


for _bench_name, _bench_value in list(globals().items()):
    if callable(_bench_value) and getattr(_bench_value, "__module__", None) == __name__ \\
            and not _bench_name.startswith("_"):
        globals()[_bench_name] = _bench_slow(_bench_value)
"""


def bench_worst(work: Path, python: str) -> dict | None:
    """One `grade` of the reference with every call pausing just below the per-call limit."""
    from ...engine.program import default_limits

    pause = max(default_limits().wall_s - 0.2, 0.1)
    spec = load_assignment(ASSIGNMENT)
    work.mkdir(parents=True, exist_ok=True)
    path = work / spec.student_file
    path.write_text(spec.reference.read_text(encoding="utf-8") + SLOW_TAIL.replace("PAUSE", f"{pause:g}"),
                    encoding="utf-8")
    print(f"\n(d) slow-but-finite worst case: the reference, every top-level call pausing {pause:g} s "
          f"(the per-call limit is {default_limits().wall_s:g} s), one `python -m autograder grade`")
    result, wall, cpu = run_measured([python, "-m", "autograder", "grade", str(path), "--assignment", ASSIGNMENT,
                                      "--format", "json"], REPO_ROOT)
    if result.returncode not in (0, 1):
        print(f"    FAILED (exit {result.returncode})\n{_tail(result.stdout + result.stderr)}")
        return None
    try:
        score = json.loads(result.stdout).get("score")
    except ValueError:
        score = None
    print(f"    {wall:.1f} s wall, {cpu:.1f} s CPU, score {score}")
    return {"wall": wall, "cpu": cpu, "score": score}


# --- (e) false timeouts under load ---------------------------------------------------------------

_TIMEOUT_WORDS = ("did not finish in time", "was stopped after", "grading time", "took too long")


def _rows(out: Path) -> dict[str, tuple[float, str]]:
    import sqlite3

    with contextlib.closing(sqlite3.connect(out / "gradebook.sqlite")) as db:
        return {sid: (score, feedback) for sid, score, feedback in
                db.execute("SELECT submission_id, score, feedback FROM grades")}


def bench_load(class_dir: Path, gradings: int, work: Path, python: str, calm: Path | None) -> dict | None:
    """GRADINGS honest gradings as two grade-all --jobs 2 runs at once (4 workers on the machine);
    a false timeout is an honest submission whose score differs from its calm grade or whose
    feedback speaks of time."""
    half = max(1, gradings // 2)
    print(f"\n(e) false timeouts under load: {2 * half} honest gradings as two `grade-all --jobs 2` at once")
    runs = []
    for n in (1, 2):
        folder = work / f"load-{n}"
        honest_class(class_dir, folder, half)
        names = sorted(p.name for p in folder.iterdir())[:half]
        for extra in sorted(p for p in folder.iterdir() if p.name not in names):
            (shutil.rmtree if extra.is_dir() else os.unlink)(extra)
        runs.append((folder, work / f"load-out-{n}"))
    started = time.perf_counter()
    procs = [subprocess.Popen(grade_all(folder, out, 2, python), cwd=REPO_ROOT, stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) for folder, out in runs]
    failed = []
    for proc in procs:
        try:
            _, err = proc.communicate(timeout=SUBPROCESS_TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, err = proc.communicate()
        if proc.returncode != 0:
            failed.append(err)
    wall = time.perf_counter() - started
    if failed:
        print(f"    FAILED\n{_tail(failed[0])}")
        return None
    def timed(feedback: str) -> bool:
        return any(word in feedback for word in _TIMEOUT_WORDS)

    calm_grades = {}
    if calm is not None:
        calm_grades = {_base_name(sid): (score, timed(fb)) for sid, (score, fb) in _rows(calm).items()}
    false, graded = [], 0
    for _, out in runs:
        for sid, (score, feedback) in _rows(out).items():
            graded += 1
            calm_score, calm_timed = calm_grades.get(_base_name(sid), (None, False))
            if (calm_score is not None and abs(score - calm_score) > 1e-6) or (timed(feedback) and not calm_timed):
                false.append(sid)
    print(f"    {graded} graded in {wall:.1f} s ({graded / wall:.1f}/s with both runs); false timeouts: {len(false)}"
          + (f" ({', '.join(false[:5])})" if false else ""))
    return {"graded": graded, "false": len(false), "wall": wall}


def _base_name(submission_id: str) -> str:
    """alice_3 -> alice (copies of one student have one calm score)."""
    stem, _, number = submission_id.rpartition("_")
    return stem if number.isdigit() else submission_id


