"""`make bench`: how fast the grader is, next to the targets and next to nbgrader, in one run.

    python -m autograder.bench [--copies 3] [--repeat 5] [--jobs 1,2] [--submission PATH]
                               [--class DIR] [--nb-students 3] [--nb-stages 1,2,3,4]
                               [--honest 30] [--load 200] [--skip-nbgrader] [--skip-worst] [--keep]

(a) one submission (default: the reference), graded with --stage 1, 2, 3, 4 and all: the first
    grade() in a fresh process (cold: the reference sandbox starts, the suites are collected),
    then the median of REPEAT more (warm, as a batch worker grades); wall and CPU time.  CPU
    counts the whole process tree (the grader, its sandboxes, the reference's), read from
    getrusage and /proc.  Plus one whole `python -m autograder grade` process, as Gradescope's
    run_autograder starts it.
(b) `python -m autograder grade-all` (a subprocess; fresh --out, --force), once per --jobs value,
    on an honest class (copies of the sample class without its hostile sample, at least HONEST
    submissions) and on COPIES copies of the whole sample class: submissions/s for the whole
    command and in steady state (from the gradebook's grading times, after the first 2 x jobs
    rows), wall and CPU per submission.
(c) `nbgrader autograde` (a subprocess, in a temporary copy of the course with the course's own
    nbgrader_config, timeout included) on notebook submissions of the same students: for each of
    the first NB_STUDENTS students of the class, the solution-filled source notebook of every
    stage in NB_STAGES (all correct; the class in (b) includes an endless loop, so the ratio is
    conservative).  One student = all of the stage notebooks, the same work as one four-stage
    grade of ours.
(d) the slow-but-finite worst case: the reference with every top-level call pausing just below
    the per-call limit, one `grade` process (the submission's time budget bounds it).
(e) false timeouts under load: LOAD honest gradings as two `grade-all --jobs 2` at once on 2
    cores; one is an honest submission whose score differs from its calm grade in (b) or whose
    feedback newly speaks of time.
(f) every target of the speed issue, MET or NOT MET, with the figure of this run.
(g) the coach (autograder/coach/bench.py): the optimal table's compute time, peak memory, file size
    and load time, one advice and one game review, against their targets (--skip-coach leaves it out).

Nothing reads stdin.  A missing nbgrader (or Jupyter kernel) prints a note instead of (c).
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from .assignment import REPO_ROOT, load_assignment
from .build import relative

ASSIGNMENT = "yahtzee"
TARGET_STEADY = 25.0            # grade-all --jobs 2, submissions/s once the workers are warm
TARGET_WHOLE = 15.0             # grade-all --jobs 2, submissions/s for the whole command (30 submissions)
TARGET_RATIO = 60.0             # ours (--jobs 2, honest class) / nbgrader autograde
TARGET_COLD_S = 0.5             # one whole `python -m autograder grade` process
TARGET_WARM_CPU_S = 0.060       # one four-stage grade in a warm worker, CPU of the whole process tree
TARGET_WORST_S = 20.0           # the slow-but-finite worst case, one submission
TARGET_FALSE_TIMEOUTS = 0       # honest gradings under load that lost a point to a timeout
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
    """CPU seconds of the live descendants of ROOT (their own and their reaped children's), from /proc."""
    root = os.getpid() if root is None else root
    try:
        names = os.listdir("/proc")
    except OSError:
        return 0.0
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
    total = 0.0
    for pid in cpu:
        ancestor, hops = parent.get(pid), 0
        while ancestor and ancestor != root and hops < 64:
            ancestor, hops = parent.get(ancestor), hops + 1
        if ancestor == root:
            total += cpu[pid]
    return total


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
    """In this (fresh) process: one cold grade, then REPEAT warm ones; wall and tree CPU of each."""
    from .engine.program import close_references
    from .engine.sandbox import template_scope
    from .grade import grade

    runs = []
    try:
        with template_scope():      # one sandbox template for all of them, as in a batch worker
            for _ in range(1 + repeat):
                cpu0, wall0 = tree_cpu(), time.perf_counter()
                report = grade(path, ASSIGNMENT, stage=stage)
                runs.append({"wall": time.perf_counter() - wall0, "cpu": tree_cpu() - cpu0,
                             "score": report.score, "max": report.max_score})
    finally:
        close_references()
    return {"stage": stage, "runs": runs}


def _child_time_grades() -> None:       # python -c entry point of the (a) subprocesses
    path, stage, repeat = sys.argv[1], sys.argv[2], int(sys.argv[3])
    print("BENCH-JSON " + json.dumps(time_grades(path, stage, repeat)))


def bench_single(submission: Path, repeat: int, python: str) -> dict[str, Any]:
    spec = load_assignment(ASSIGNMENT)
    stages = [str(s.number) for s in spec.core_stages] + ["all"]
    print(f"\n(a) one submission: {relative(submission)}, cold = first grade() in a fresh process, "
          f"warm = median of {repeat}")
    print(f"    {'stage':<7}{'score':>12}{'cold wall':>12}{'cold CPU':>11}{'warm wall':>12}{'warm CPU':>11}")
    rows: dict[str, dict[str, float]] = {}
    code = "from autograder.bench import _child_time_grades; _child_time_grades()"
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
               "warm_cpu": statistics.median(r["cpu"] for r in warm)}
        rows[stage] = row
        score = f"{cold['score']:g}/{cold['max']:g}"
        print(f"    {stage:<7}{score:>12}{row['cold_wall']:>11.3f}s{row['cold_cpu']:>10.3f}s"
              f"{row['warm_wall']:>11.3f}s{row['warm_cpu']:>10.3f}s")
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
    return (f"median {statistics.median(walls):.2f} s per submission in a worker; slowest "
            + ", ".join(f"{sid} {wall:.1f} s" for sid, wall in slow))


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


def steady_rate(times: list[float], jobs: int) -> float | None:
    """Submissions/s once the workers are warm: from the (2 x jobs)-th graded row to the last."""
    skip = min(2 * jobs, len(times) // 3)
    span = times[-1] - times[skip] if len(times) > skip + 1 else 0.0
    return (len(times) - 1 - skip) / span if span > 0 else None


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
    print(f"    {'class':<8}{'jobs':<6}{'wall':>9}{'CPU':>9}{'subs/s':>9}{'steady/s':>10}{'wall/sub':>10}{'CPU/sub':>9}")
    results: dict[str, dict[int, dict]] = {"honest": {}, "bench": {}}
    for which in ("honest", "bench"):
        for jobs in jobs_list:
            out = work / f"out-{which}-jobs{jobs}"
            result, wall, cpu = run_measured(grade_all(folders[which], out, jobs, python), REPO_ROOT)
            if result.returncode != 0:
                print(f"    {which:<8}{jobs:<6} FAILED (exit {result.returncode})\n{_tail(result.stdout + result.stderr)}")
                continue
            n = len(classes[which])
            steady = steady_rate(_graded_times(out), jobs)
            results[which][jobs] = {"wall": wall, "cpu": cpu, "rate": n / wall, "n": n, "steady": steady,
                                    "out": out}
            shown = f"{steady:>10.2f}" if steady else f"{'-':>10}"
            print(f"    {which:<8}{jobs:<6}{wall:>8.2f}s{cpu:>8.2f}s{n / wall:>9.2f}{shown}{wall / n:>9.3f}s"
                  f"{cpu / n:>8.3f}s")
            slowest = _slowest(out)
            if slowest:
                print(f"          {slowest}")
    return results


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
    from .engine.program import default_limits

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


# --- (c) nbgrader ---------------------------------------------------------------------------------

def nbgrader_missing(python: str) -> str | None:
    probe = subprocess.run([python, "-c", "import nbgrader, ipykernel, nbformat"], stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, timeout=120)
    if probe.returncode != 0:
        last = (probe.stderr.strip().splitlines() or ["?"])[-1]
        return f"nbgrader is not installed for {python} ({last}); `pip install -e '.[notebooks]'` adds it"
    return None


def _nbgrader_env(work: Path, python: str) -> dict[str, str]:
    """nbgrader's environment: this interpreter's kernel (a kernelspec written in WORK), no user config."""
    kernels = work / "jupyter-data" / "kernels" / "python3"
    kernels.mkdir(parents=True, exist_ok=True)
    (kernels / "kernel.json").write_text(json.dumps({
        "argv": [python, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (ipykernel)", "language": "python"}), encoding="utf-8")
    env = dict(os.environ)
    env["PATH"] = f"{Path(python).parent}{os.pathsep}{env.get('PATH', '')}"
    env["JUPYTER_DATA_DIR"] = str(work / "jupyter-data")
    env["JUPYTER_PATH"] = str(work / "jupyter-data")
    env["JUPYTER_CONFIG_DIR"] = str(work / "jupyter-config")
    env["JUPYTER_RUNTIME_DIR"] = str(work / "jupyter-runtime")
    env.pop("PYTHONPATH", None)
    return env


def student_names(class_dir: Path) -> list[str]:
    return sorted({p.stem if p.is_file() else p.name for p in class_dir.iterdir()
                   if not p.name.startswith(".") and p.name != "__pycache__"})


def bench_nbgrader(class_dir: Path, students: int, stages: list[int], work: Path, python: str) -> dict | None:
    spec = load_assignment(ASSIGNMENT)
    names = student_names(class_dir)[:students]
    count = len(names) * len(stages)
    print(f"\n(c) nbgrader autograde: {_plural(len(names), 'student')} ({', '.join(names)}) x stage notebooks "
          f"{', '.join(map(str, stages))} = {_plural(count, 'notebook')} (solution-filled source notebooks; "
          "course config, timeout included)")
    missing = nbgrader_missing(python)
    if missing:
        print(f"    note: skipped: {missing}")
        return None
    course = work / "course"
    scratch = {"release", "submitted", "autograded", "feedback", "gradebook.db", "grades.csv"}

    def ignore(folder, entries):
        top = Path(folder) == COURSE_DIR
        return [e for e in entries if (top and e in scratch) or e in {".ipynb_checkpoints", "__pycache__"}]

    shutil.copytree(COURSE_DIR, course, ignore=ignore)
    for name in names:
        for stage in stages:
            notebook = f"{spec.name}_stage{stage}.ipynb"
            target = course / "submitted" / name / f"stage{stage}"
            target.mkdir(parents=True, exist_ok=True)
            shutil.copy2(course / "source" / f"stage{stage}" / notebook, target / notebook)
    env = _nbgrader_env(work, python)
    assignments = [f"stage{s}" for s in stages]
    pattern = assignments[0] if len(assignments) == 1 else "stage*"
    if pattern == "stage*":                     # only the stages asked for are in source/ and submitted/
        for folder in (course / "source").iterdir():
            if folder.name not in assignments:
                shutil.rmtree(folder)
    result, setup_wall, _ = run_measured([python, "-m", "nbgrader", "generate_assignment", pattern], course, env)
    if result.returncode != 0:
        print(f"    note: skipped: `nbgrader generate_assignment` failed (exit {result.returncode})\n"
              f"{_tail(result.stdout + result.stderr)}")
        return None
    result, wall, cpu = run_measured([python, "-m", "nbgrader", "autograde", pattern], course, env)
    if result.returncode != 0:
        print(f"    note: `nbgrader autograde` failed (exit {result.returncode})\n{_tail(result.stdout + result.stderr)}")
        return None
    graded = sorted((course / "autograded").glob("*/*/*.ipynb"))
    scores = _nbgrader_scores(course, python, env)
    points = sum(spec.stage_points(s) for s in stages)
    full = [n for n in names if abs(scores.get(n, -1) - points) < 1e-6]
    print(f"    generate_assignment (setup, not timed below): {setup_wall:.2f} s")
    print(f"    {'what':<30}{'wall':>9}{'CPU':>9}{'per s':>9}{'wall each':>11}{'CPU each':>10}")
    print(f"    {'notebooks':<30}{wall:>8.2f}s{cpu:>8.2f}s{len(graded) / wall:>9.2f}"
          f"{wall / max(1, len(graded)):>10.3f}s{cpu / max(1, len(graded)):>9.3f}s")
    per = f"students (all {len(stages)} stage{'s' if len(stages) > 1 else ''})"
    print(f"    {per:<30}{wall:>8.2f}s{cpu:>8.2f}s{len(names) / wall:>9.2f}"
          f"{wall / len(names):>10.3f}s{cpu / len(names):>9.3f}s")
    if scores:
        print(f"    {len(graded)} notebooks autograded; {len(full)} of {len(names)} students got the full "
              f"{points:g} points (the notebooks are the reference)")
    if len(graded) != count:
        print(f"    note: expected {count} autograded notebooks, found {len(graded)}")
    equivalent = sorted(stages) == sorted(s.number for s in spec.stages)
    if not equivalent:
        print(f"    note: {len(stages)} of {len(spec.stages)} stages per student: not the work of one four-stage "
              "grade, so no ratio is claimed")
    return {"wall": wall, "cpu": cpu, "notebooks": len(graded), "students": len(names),
            "student_rate": len(names) / wall, "notebook_rate": len(graded) / wall, "equivalent": equivalent}


_SCORES = """
import json, sys
from nbgrader.api import Gradebook
with Gradebook("sqlite:///" + sys.argv[1]) as gradebook:
    out = {}
    for assignment in gradebook.assignments:
        for submission in gradebook.assignment_submissions(assignment.name):
            out[submission.student_id] = out.get(submission.student_id, 0) + submission.score
print(json.dumps(out))
"""


def _nbgrader_scores(course: Path, python: str, env: dict[str, str]) -> dict[str, float]:
    try:
        result = subprocess.run([python, "-c", _SCORES, str(course / "gradebook.db")], cwd=course, env=env,
                                stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
        return json.loads(result.stdout) if result.returncode == 0 else {}
    except (subprocess.TimeoutExpired, ValueError):
        return {}


# --- (d) targets ----------------------------------------------------------------------------------

def _verdict(ok: bool | None) -> str:
    return "n/a" if ok is None else ("MET" if ok else "NOT MET")


def print_targets(single: dict, batch: dict[str, dict[int, dict]], nb: dict | None, worst: dict | None,
                  load: dict | None) -> list[tuple[str, bool | None]]:
    print("\n(f) targets (figures from this run)")
    lines: list[tuple[str, str, bool | None]] = []

    def add(target: str, figure: str | None, ok: bool | None) -> None:
        lines.append((target, figure if figure is not None else "not measured", ok if figure is not None else None))

    for which, label in (("honest", "honest class"), ("bench", "bench class (hostile sample)")):
        two = batch.get(which, {}).get(2)
        steady = two.get("steady") if two else None
        add(f"grade-all --jobs 2 steady state >= {TARGET_STEADY:g} submissions/s, {label}",
            f"{steady:.1f}/s" if steady else None, steady >= TARGET_STEADY if steady else None)
        add(f"grade-all --jobs 2 whole command >= {TARGET_WHOLE:g} submissions/s, {label}",
            f"{two['rate']:.1f}/s ({two['n']} submissions)" if two else None,
            two["rate"] >= TARGET_WHOLE if two else None)
    two = batch.get("honest", {}).get(2)
    label = f">= {TARGET_RATIO:g}x nbgrader autograde (honest class, --jobs 2)"
    if nb and not nb["equivalent"]:
        add(label, "nbgrader graded fewer stages", None)
    elif nb and two:
        ratio = two["rate"] / nb["student_rate"]
        add(label, f"{ratio:.1f}x ({two['rate']:.2f} vs {nb['student_rate']:.2f} students/s)", ratio >= TARGET_RATIO)
    else:
        add(label, None, None)
    cold = single.get("cli_wall")
    add(f"one cold `grade` process <= {TARGET_COLD_S:g} s", f"{cold:.2f} s" if cold else None,
        cold <= TARGET_COLD_S if cold else None)
    row = single.get("rows", {}).get("all")
    add(f"four-stage grade <= {TARGET_WARM_CPU_S * 1000:g} ms CPU in a warm worker",
        f"{row['warm_cpu'] * 1000:.0f} ms CPU ({row['warm_wall'] * 1000:.0f} ms wall)" if row else None,
        row["warm_cpu"] <= TARGET_WARM_CPU_S if row else None)
    add(f"slow-but-finite worst case <= {TARGET_WORST_S:g} s per submission",
        f"{worst['wall']:.1f} s" if worst else None, worst["wall"] <= TARGET_WORST_S if worst else None)
    add(f"false timeouts in {load['graded'] if load else 200} honest gradings under load "
        f"<= {TARGET_FALSE_TIMEOUTS}", f"{load['false']}" if load else None,
        load["false"] <= TARGET_FALSE_TIMEOUTS if load else None)
    width = max(len(t) for t, _, _ in lines)
    for target, figure, ok in lines:
        print(f"    {target:<{width}}  {figure:<36} {_verdict(ok)}")
    return [(t, ok) for t, _, ok in lines]


# --- main -----------------------------------------------------------------------------------------



def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _int_list(text: str) -> list[int]:
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected numbers separated by commas, not {text!r}") from None
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"expected positive numbers, not {text!r}")
    return values


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m autograder.bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--copies", type=int, default=3, help="copies of the class graded in (b) (default 3)")
    parser.add_argument("--repeat", type=int, default=5, help="warm grades per stage in (a) (default 5)")
    parser.add_argument("--jobs", type=_int_list, default=[1, 2], help="grade-all --jobs values (default 1,2)")
    parser.add_argument("--submission", type=Path, default=load_assignment(ASSIGNMENT).solution,
                        help="the submission of (a) (default: the reference)")
    parser.add_argument("--class", dest="class_dir", type=Path, default=CLASS_DIR,
                        help="the class of (b) and the students of (c) (default: samples/class)")
    parser.add_argument("--nb-students", type=int, default=3, help="students graded by nbgrader in (c) (default 3)")
    parser.add_argument("--nb-stages", type=_int_list, default=[1, 2, 3, 4],
                        help="stage notebooks per student in (c) (default 1,2,3,4)")
    parser.add_argument("--skip-nbgrader", action="store_true", help="leave out (c)")
    parser.add_argument("--honest", type=int, default=30,
                        help="at least this many submissions in the honest class of (b) (default 30)")
    parser.add_argument("--load", type=int, default=200,
                        help="honest gradings under load in (e), two batches at once (default 200; 0 skips)")
    parser.add_argument("--skip-worst", action="store_true", help="leave out (d)")
    parser.add_argument("--skip-coach", action="store_true", help="leave out (g), the coach's optimal table")
    parser.add_argument("--keep", action="store_true", help="keep the scratch folder and print where it is")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.copies < 1 or args.repeat < 0 or args.nb_students < 1 or args.honest < 1 or args.load < 0:
        print("error: --copies and --nb-students must be at least 1, --repeat at least 0", file=sys.stderr)
        return 2
    if not args.submission.exists() or not args.class_dir.is_dir():
        print(f"error: no such submission or class folder: {args.submission}, {args.class_dir}", file=sys.stderr)
        return 2
    spec = load_assignment(ASSIGNMENT)
    if any(s not in {st.number for st in spec.stages} for s in args.nb_stages):
        print(f"error: {ASSIGNMENT} has stages {[s.number for s in spec.stages]}", file=sys.stderr)
        return 2
    python = sys.executable
    reaper = _become_subreaper()
    from .engine.sandbox import isolation

    sandbox = isolation()
    mode = "root: namespaces, own uid" if sandbox["namespaces"] else (
        "root without namespaces" if sandbox["root"] else "not root: rlimits only")
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"autograder bench: {time.strftime('%Y-%m-%d %H:%M')}, {cpus} CPUs, Python {platform.python_version()}, "
          f"{platform.system()} {platform.release()}, sandbox {mode}")
    if not reaper:
        print("note: could not become a child subreaper; CPU of orphaned grandchildren may be missing")
    work = Path(tempfile.mkdtemp(prefix="autograder-bench-"))
    started = time.perf_counter()
    try:
        single = bench_single(args.submission.resolve(), args.repeat, python)
        batch = bench_batch(args.class_dir.resolve(), args.copies, args.jobs, work / "batch", python, args.honest)
        if args.skip_nbgrader:
            print("\n(c) nbgrader autograde: skipped (--skip-nbgrader)")
            nb = None
        else:
            nb = bench_nbgrader(args.class_dir.resolve(), args.nb_students, args.nb_stages, work / "nbgrader", python)
        worst = None if args.skip_worst else bench_worst(work / "worst", python)
        if args.skip_worst:
            print("\n(d) slow-but-finite worst case: skipped (--skip-worst)")
        calm = next(iter(batch.get("honest", {}).values()), {}).get("out")
        load = bench_load(args.class_dir.resolve(), args.load, work / "load", python, calm) if args.load > 0 else None
        if args.load <= 0:
            print("\n(e) false timeouts under load: skipped (--load 0)")
        print_targets(single, batch, nb, worst, load)
        if not args.skip_coach:
            from .coach.bench import bench_coach

            bench_coach()
    finally:
        if args.keep:
            print(f"\nscratch kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    print(f"\nbench done in {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
