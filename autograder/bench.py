"""`make bench`: how fast the grader is, next to the targets and next to nbgrader, in one run.

    python -m autograder.bench [--copies 3] [--repeat 5] [--jobs 1,2] [--submission PATH]
                               [--class DIR] [--nb-students 3] [--nb-stages 1,2,3,4]
                               [--skip-nbgrader] [--keep]

(a) one submission (default: the reference), graded with --stage 1, 2, 3, 4 and all: the first
    grade() in a fresh process (cold: the reference sandbox starts, the suites are collected),
    then the median of REPEAT more (warm, as a batch worker grades); wall and CPU time.  CPU
    counts the whole process tree (the grader, its sandboxes, the reference's), read from
    getrusage and /proc.  Plus one whole `python -m autograder grade` process, as Gradescope's
    run_autograder starts it.
(b) `python -m autograder grade-all` (a subprocess; fresh --out, --force) on COPIES copies of
    the sample class, once per --jobs value: submissions/s, wall and CPU per submission.
(c) `nbgrader autograde` (a subprocess, in a temporary copy of the course with the course's own
    nbgrader_config, timeout included) on notebook submissions of the same students: for each of
    the first NB_STUDENTS students of the class, the solution-filled source notebook of every
    stage in NB_STAGES (all correct; the class in (b) includes an endless loop, so the ratio is
    conservative).  One student = all of the stage notebooks, the same work as one four-stage
    grade of ours.
(d) the targets, MET or NOT MET.
(e) the coach (autograder/coach/bench.py): the optimal table's compute time, peak memory, file size
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
TARGET_SUITE_S = 0.5            # one submission's four-stage suite, warm
TARGET_THROUGHPUT = 20.0        # submissions/s on 2 cores
TARGET_RATIO = 20.0             # ours / nbgrader autograde
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
    from .grade import grade

    runs = []
    try:
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


def bench_batch(class_dir: Path, copies: int, jobs_list: list[int], work: Path, python: str) -> dict[int, dict]:
    names = copy_class(class_dir, work / "class", copies)
    print(f"\n(b) batch: `python -m autograder grade-all` on {copies} cop{'y' if copies == 1 else 'ies'} of "
          f"{relative(class_dir)} = {len(names)} submissions (fresh --out, --force)")
    print(f"    {'jobs':<6}{'wall':>9}{'CPU':>9}{'subs/s':>9}{'wall/sub':>10}{'CPU/sub':>9}")
    results: dict[int, dict] = {}
    for jobs in jobs_list:
        out = work / f"out-jobs{jobs}"
        result, wall, cpu = run_measured([python, "-m", "autograder", "grade-all", str(work / "class"),
                                          "--assignment", ASSIGNMENT, "--jobs", str(jobs), "--out", str(out),
                                          "--force", "--no-progress"], REPO_ROOT)
        if result.returncode != 0:
            print(f"    {jobs:<6} FAILED (exit {result.returncode})\n{_tail(result.stdout + result.stderr)}")
            continue
        n = len(names)
        results[jobs] = {"wall": wall, "cpu": cpu, "rate": n / wall, "n": n}
        print(f"    {jobs:<6}{wall:>8.2f}s{cpu:>8.2f}s{n / wall:>9.2f}{wall / n:>9.3f}s{cpu / n:>8.3f}s")
        slowest = _slowest(out)
        if slowest:
            print(f"          {slowest}")
    return results


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


def print_targets(single: dict, batch: dict[int, dict], nb: dict | None) -> list[tuple[str, bool | None]]:
    print("\n(d) targets")
    lines: list[tuple[str, str, bool | None]] = []
    row = single.get("rows", {}).get("all")
    if row:
        lines.append((f"one submission's four-stage suite <= {TARGET_SUITE_S:g} s (warm)",
                      f"{row['warm_wall']:.3f} s warm (cold {row['cold_wall']:.3f} s)",
                      row["warm_wall"] <= TARGET_SUITE_S))
    else:
        lines.append((f"one submission's four-stage suite <= {TARGET_SUITE_S:g} s (warm)", "not measured", None))
    two = batch.get(2)
    lines.append((f">= {TARGET_THROUGHPUT:g} submissions/s on 2 cores (--jobs 2)",
                  f"{two['rate']:.2f} submissions/s" if two else "not measured",
                  two["rate"] >= TARGET_THROUGHPUT if two else None))
    for jobs in sorted(batch):
        label = f">= {TARGET_RATIO:g}x nbgrader autograde (ours --jobs {jobs})"
        if nb and not nb["equivalent"]:
            lines.append((label, "nbgrader graded fewer stages", None))
        elif nb:
            ratio = batch[jobs]["rate"] / nb["student_rate"]
            lines.append((label, f"{ratio:.1f}x ({batch[jobs]['rate']:.2f} vs {nb['student_rate']:.2f} students/s)",
                          ratio >= TARGET_RATIO))
        else:
            lines.append((label, "nbgrader not measured", None))
    width = max(len(t) for t, _, _ in lines)
    for target, figure, ok in lines:
        print(f"    {target:<{width}}  {figure:<44} {_verdict(ok)}")
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
    parser.add_argument("--skip-coach", action="store_true", help="leave out (e), the coach's optimal table")
    parser.add_argument("--keep", action="store_true", help="keep the scratch folder and print where it is")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.copies < 1 or args.repeat < 0 or args.nb_students < 1:
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
        batch = bench_batch(args.class_dir.resolve(), args.copies, args.jobs, work / "batch", python)
        if args.skip_nbgrader:
            print("\n(c) nbgrader autograde: skipped (--skip-nbgrader)")
            nb = None
        else:
            nb = bench_nbgrader(args.class_dir.resolve(), args.nb_students, args.nb_stages, work / "nbgrader", python)
        print_targets(single, batch, nb)
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
