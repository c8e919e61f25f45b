"""`make bench`: how fast the grader is, next to the targets and next to nbgrader, in one run.

    python -m autograder bench [--copies 3] [--repeat 10] [--jobs 1,2] [--submission PATH]
                               [--class DIR] [--nb-students 3] [--nb-stages N,N..]
                               [--honest 30] [--load 200] [--skip-nbgrader] [--skip-worst] [--skip-coach] [--keep]

(a) one submission (default: the reference), graded with each core --stage and all: the first
    grade() in a fresh process (cold: the reference sandbox starts, the suites are collected),
    then REPEAT more (warm, as a batch worker grades): the median of their wall times and the
    mean of their CPU times.  CPU counts the whole process tree (the grader, its sandboxes, the
    reference's), read from getrusage and /proc; /proc gives a live process's CPU (and that of the
    children it reaped) in 10 ms ticks, so one warm grade's CPU is quantized (it reads as, say,
    69 or 79 ms where the grades cost ~73) and the mean of several is the unbiased figure.  Plus one whole `python -m autograder grade` process, as Gradescope's
    run_autograder starts it.
(b) `python -m autograder grade-all` (a subprocess; fresh --out, --force), once per --jobs value,
    on an honest class (copies of the sample class without its hostile sample, at least HONEST
    submissions) and on COPIES copies of the whole sample class: submissions/s for the whole
    command and in steady state (from the gradebook's grading times: the middle half of the
    rows, so start-up, tail and most of a burst of other work at either end are left out), wall
    and CPU per submission, the time to the first grade stored and from the last one to the
    command's exit, and the load average (other work on the machine slows every figure down).
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

Before (a), a line names the machine by two yardsticks (machine.py): the same commit's figures
differ from one machine to another by as much as a pass moves them.

Nothing reads stdin.  A missing nbgrader (or Jupyter kernel) prints a note instead of (c).
"""


from __future__ import annotations

import argparse
import os
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path

from ...assignment import load_assignment, needs_repository
from .batch import bench_batch, bench_load, bench_worst
from .machine import machine_line
from .measure import ASSIGNMENT, CLASS_DIR, _become_subreaper, bench_single
from .nbgrader import bench_nbgrader
from .targets import print_targets

# --- main -----------------------------------------------------------------------------------------



def _load() -> str:
    """The load average (1, 5, 15 min): other work on the machine slows every figure down."""
    try:
        return "load average " + ", ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return "load average unknown"


def _compile_package() -> bool:
    """Compile the package's bytecode where Python would not write it itself; True when it did.
    Every `grade` and grade-all worker would otherwise compile ~60 modules from source (~70 ms of
    a cold `grade`), which no installed grader does."""
    if not sys.dont_write_bytecode:
        return False
    import compileall

    from ...assignment import PACKAGE_DIR

    compileall.compile_dir(str(PACKAGE_DIR), quiet=2)
    return True


def _int_list(text: str) -> list[int]:
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected numbers separated by commas, not {text!r}") from None
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"expected positive numbers, not {text!r}")
    return values


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of the `bench` verb."""
    parser.add_argument("--copies", type=int, default=3, help="copies of the class graded in (b) (default 3)")
    parser.add_argument("--repeat", type=int, default=10, help="warm grades per stage in (a) (default 10)")
    parser.add_argument("--jobs", type=_int_list, default=[1, 2], help="grade-all --jobs values (default 1,2)")
    parser.add_argument("--submission", type=Path, default=load_assignment(ASSIGNMENT).reference,
                        help="the submission of (a) (default: the reference)")
    parser.add_argument("--class", dest="class_dir", type=Path, default=CLASS_DIR,
                        help="the class of (b) and the students of (c) (default: samples/class)")
    parser.add_argument("--nb-students", type=int, default=3, help="students graded by nbgrader in (c) (default 3)")
    parser.add_argument("--nb-stages", type=_int_list, default=None,
                        help="stage notebooks per student in (c) (default: every core stage)")
    parser.add_argument("--skip-nbgrader", action="store_true", help="leave out (c)")
    parser.add_argument("--honest", type=int, default=30,
                        help="at least this many submissions in the honest class of (b) (default 30)")
    parser.add_argument("--load", type=int, default=200,
                        help="honest gradings under load in (e), two batches at once (default 200; 0 skips)")
    parser.add_argument("--skip-worst", action="store_true", help="leave out (d)")
    parser.add_argument("--skip-coach", action="store_true", help="leave out (g), the coach's optimal table")
    parser.add_argument("--keep", action="store_true", help="keep the scratch folder and print where it is")


def run(args: argparse.Namespace) -> int:
    """The `bench` verb (it needs the repository: the sample class, the notebooks' course)."""
    refusal = needs_repository("`bench` (the sample class and the nbgrader course)")
    if refusal:
        print(f"error: {refusal}", file=sys.stderr)
        return 2
    if args.copies < 1 or args.repeat < 0 or args.nb_students < 1 or args.honest < 1 or args.load < 0:
        print("error: --copies and --nb-students must be at least 1, --repeat at least 0", file=sys.stderr)
        return 2
    if not args.submission.exists() or not args.class_dir.is_dir():
        print(f"error: no such submission or class folder: {args.submission}, {args.class_dir}", file=sys.stderr)
        return 2
    spec = load_assignment(ASSIGNMENT)
    args.nb_stages = args.nb_stages or [s.number for s in spec.core_stages]
    if any(s not in {st.number for st in spec.stages} for s in args.nb_stages):
        print(f"error: {ASSIGNMENT} has stages {[s.number for s in spec.stages]}", file=sys.stderr)
        return 2
    python = sys.executable
    reaper = _become_subreaper()
    from ...engine.sandbox import isolation

    sandbox = isolation()
    mode = "root: namespaces, own uid" if sandbox["namespaces"] else (
        "root without namespaces" if sandbox["root"] else "not root: rlimits only")
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"autograder bench: {time.strftime('%Y-%m-%d %H:%M')}, {cpus} CPUs, Python {platform.python_version()}, "
          f"{platform.system()} {platform.release()}, sandbox {mode}; {_load()}")
    print(machine_line())
    if not reaper:
        print("note: could not become a child subreaper; CPU of orphaned grandchildren may be missing")
    if _compile_package():
        print("note: PYTHONDONTWRITEBYTECODE is set here: the package's bytecode was compiled first, as an "
              "installed grader has it (`make install`; a Gradescope image after setup.sh's self-check)")
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
            from ...coach.bench import bench_coach

            bench_coach()
    finally:
        if args.keep:
            print(f"\nscratch kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    print(f"\nbench done in {time.perf_counter() - started:.0f} s; {_load()} (the figures are of a machine this busy)")
    return 0



def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder bench", description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    return run(parser.parse_args(argv))
