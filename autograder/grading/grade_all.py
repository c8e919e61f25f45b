"""Verb `grade-all`: grade a whole class into a SQLite gradebook, a CSV, feedback files and an HTML report.

    python -m autograder grade-all SUBMISSIONS [--assignment NAME] [--stage N|all] [--jobs N]
                                               [--out DIR] [--force]

SUBMISSIONS is a folder of per-student files or folders, an nbgrader `submitted/<student>/<assignment>/`
tree, or a zip as Gradescope or an LMS exports it.  Workers are separate processes (forkserver), each
running one grading session over the submissions it is sent (workers.py, worker.py: it loads the next one
ahead while it checks the current one), so the suites, the reference program and its cache are
reused.  The parent is the only writer of the gradebook and stores every grade the moment it
arrives, so an interrupted run loses nothing that was finished; running again skips every
submission whose files, stage and grader are unchanged (--force regrades).
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..assignment import (
    AUTHORING_ONLY,
    DEFAULT_ASSIGNMENT,
    DISTRIBUTION,
    PACKAGE_DIR,
    Assignment,
    add_assignment_argument,
    kit_version,
    load_assignment,
    load_for_grading,
)
from .tracing import trace

if TYPE_CHECKING:
    from . import lms
    from .charts import Drawer
    from .discover import Entry

# The rest of what a batch uses is imported by grade_all once its fork server is started (it
# imports pytest and the engine meanwhile: ~0.2 s), not before (the submissions' discovery and
# the gradebook, the workers' pool, the reports: ~25 ms idle, ~0.1 s on a loaded machine).

DEFAULT_OUT = "grade-all-out"
DEFAULT_TIMEOUT = 600.0          # seconds per submission, Gradescope's default too


# --- the grader's version -------------------------------------------------------------------------

def grader_version(spec: Assignment) -> str:
    """Package version + a digest of everything that decides a grade (engine, suites, scenarios, reference).

    A changed suite or reference changes the version, so the next batch regrades everyone.
    """
    import hashlib

    base = installed_version()
    files = [PACKAGE_DIR / "grading" / "grade.py", PACKAGE_DIR / "assignment.py", spec.reference]
    files += sorted(p for p in (PACKAGE_DIR / "engine").rglob("*") if p.suffix in (".py", ".ini")
                    and "__pycache__" not in p.parts)
    files += sorted(p for p in spec.root.rglob("*") if p.suffix in (".py", ".toml", ".json")
                    and "__pycache__" not in p.parts and p.relative_to(spec.root).parts[0] not in AUTHORING_ONLY)
    digest = hashlib.sha256()
    for path in files:
        if path.is_file():
            digest.update(_named(path, spec).encode() + b"\0" + path.read_bytes())
    return f"{base}+{digest.hexdigest()[:12]}"


def installed_version() -> str:
    """assignment.kit_version(), kept per machine (engine.codecache) under the metadata files it is
    read from: its lookup imports importlib.metadata and the email package (~14 ms of CPU in every
    grade-all's parent) for a value that changes only when the kit is installed again.  The key
    names sys.path and, in each of its folders, every entry importlib.metadata could take for the
    kit's distribution (a `*.dist-info` or `*.egg-info` of its name) with its metadata file's size
    and modification time: another install, in place or elsewhere on the path, is another key.
    Where no such entry is found (the version then comes from a scan of every distribution), it is
    looked up as before and not kept."""
    from ..engine import codecache

    key = _metadata_key()
    if key is None:
        return kit_version()
    data = codecache.stored("kit-version", key, lambda: (kit_version().encode("utf-8"), True), _is_version)
    return data.decode("utf-8") if data is not None else kit_version()


def _is_version(data: bytes) -> bool:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return 0 < len(text) <= 200 and text.isprintable() and not text.isspace()


def _metadata_key() -> str | None:
    """sys.path and the kit's distribution metadata on it (installed_version), as text; None when
    there is none (as importlib.metadata finds a distribution: a folder's entries named
    `<name>[-<version>].dist-info` or `.egg-info`, NAME compared with runs of -_. as one _)."""
    import re

    wanted = re.sub(r"[-_.]+", "_", DISTRIBUTION).lower()
    parts, found = [repr(sys.path)], False
    for folder in sys.path:
        try:
            names = sorted(os.listdir(folder or "."))
        except OSError:
            try:
                info = os.stat(folder)          # (a zip on the path, or nothing)
            except OSError:
                continue
            parts.append(f"{folder!r} {info.st_mtime_ns} {info.st_size}")
            continue
        for name in names:
            low = name.lower()
            if not low.endswith((".dist-info", ".egg-info")):
                continue
            if re.sub(r"[-_.]+", "_", low.rpartition(".")[0].partition("-")[0]) != wanted:
                continue
            entry = os.path.join(folder or ".", name)
            for meta in ("METADATA", "PKG-INFO", ""):
                try:
                    info = os.stat(os.path.join(entry, meta) if meta else entry)
                except OSError:
                    continue
                parts.append(f"{entry!r} {meta} {info.st_mtime_ns} {info.st_size} {info.st_ino}")
                found = True
                break
    return "\n".join(parts) if found else None


def _named(path: Path, spec: Assignment) -> str:
    """PATH as the version digest names it: from the kit's folder, or from a course folder given
    by path (outside the kit: a course folder is not in the kit's tree)."""
    for top, prefix in ((PACKAGE_DIR.parent, ""), (spec.root, f"{spec.name}:")):
        try:
            return prefix + str(path.relative_to(top))
        except ValueError:
            continue
    return str(path)


def expected_max(spec: Assignment, stage: str) -> float:
    """Points a full-marks submission gets for STAGE with the suites that exist today."""
    stages = [s.number for s in spec.core_stages] if stage == "all" else [int(stage)]
    with_suite = [n for n in stages if spec.suite_files(n)]
    return float(sum(spec.stage_points(n) for n in with_suite))


# --- the batch ------------------------------------------------------------------------------------

def hidden_from_students(source: str | Path, out: Path, work_dir: Path) -> list[str]:
    """What no student's sandbox may read: the submissions (classmates' files), the gradebook and
    exports (OUT), and the extraction work folder.  The kit itself is hidden by grade() already.
    "/" and folders holding the Python installation are never hidden (the sandbox needs Python)."""
    prefix = Path(os.path.realpath(sys.base_prefix))
    hidden = []
    for path in (Path(source), out, work_dir):
        path = Path(os.path.realpath(path))
        if path == Path(path.anchor) or path == prefix or path in prefix.parents:
            continue
        if str(path) not in hidden:
            hidden.append(str(path))
    return hidden


@dataclass
class BatchSummary:
    found: int = 0
    graded: int = 0
    skipped: int = 0
    crashed: int = 0
    interrupted: bool = False
    wall: float = 0.0
    out: Path = Path(DEFAULT_OUT)
    notes: list[str] = field(default_factory=list)
    written: list[Path] = field(default_factory=list)


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def grade_all(source: str | Path, out: str | Path = DEFAULT_OUT, assignment: str = DEFAULT_ASSIGNMENT,
              stage: str = "all", jobs: int | None = None, force: bool = False,
              timeout: float = DEFAULT_TIMEOUT, nb_assignment: str | None = None,
              progress: bool = True, exports: bool = True, stream=None, only: list[str] | None = None,
              policy: lms.LatePolicy | None = None, drop_missing: bool = False) -> BatchSummary:
    """Grade every submission in SOURCE into OUT/gradebook.sqlite and write the exports.

    ONLY: regrade just these student ids (always, changed or not); the others keep their grades.
    DROP_MISSING: delete the gradebook's rows of ids SOURCE no longer holds (else they are kept, and
    the exports mark them missing).
    POLICY: the due date, extensions and late penalty, stored in the gradebook (the exports apply it).
    Raises InputError (bad SOURCE, an unknown id in ONLY) and KeyError (unknown assignment) before
    grading anything.
    """
    # The collector's youngest generation is collected every YOUNG_GC allocations, not 700: the
    # rows this process keeps (each report's ~200 checks: dicts) were scanned again and again,
    # ~90 young and 8 middle collections a class of 39 (~10 ms of CPU), ~4 now.  Cycles are
    # still found, a little later.
    threshold = gc.get_threshold()
    gc.set_threshold(max(threshold[0], YOUNG_GC), *threshold[1:])
    try:
        return _grade_all(source, out, assignment, stage, jobs, force, timeout, nb_assignment, progress, exports,
                          stream, only, policy, drop_missing)
    finally:
        gc.set_threshold(*threshold)


YOUNG_GC = 10_000


def _grade_all(source: str | Path, out: str | Path, assignment: str, stage: str, jobs: int | None, force: bool,
               timeout: float, nb_assignment: str | None, progress: bool, exports: bool, stream,
               only: list[str] | None, policy: lms.LatePolicy | None, drop_missing: bool = False) -> BatchSummary:
    trace("start")
    spec = load_assignment(assignment)
    stage = str(stage)
    if stage != "all" and not spec.suite_files(stage):
        from .discover import InputError

        raise InputError(f"{spec.name} has no suite for stage {stage}")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    work_dir = out / ".work"
    jobs = jobs or default_jobs()
    from .workers import WorkerPool

    pool = WorkerPool(jobs, spec.name, stage, out / "logs", timeout,
                      hidden=hidden_from_students(source, out, work_dir))
    early = not only and Path(source).exists() and (force or not (out / "gradebook.sqlite").exists())
    if early:
        pool.start()        # all to grade, most likely: its fork server boots (~0.2 s: pytest, the
        #                     suites) while we find the submissions (a zip: extracted) and hash them
    else:                   # perhaps nothing to grade: a fork server forked early (__main__) waits
        from .early import hold

        hold()
    from .discover import InputError, discover

    try:
        entries, notes = discover(source, work_dir, spec, nb_assignment)
        if not entries:
            raise InputError(f"no submissions found in {source} (expected .py files, notebooks or one folder "
                             "per student)")
        if only:
            unknown = sorted(set(only) - {e.id for e in entries})
            if unknown:
                raise InputError(f"--only: no submission with id {', '.join(unknown)} in {source} (ids: "
                                 f"{', '.join(e.id for e in entries[:20])}{' ...' if len(entries) > 20 else ''})")
    except BaseException:
        pool.close(now=True)    # (the templates it may have booted: reaped)
        raise
    if only:
        sure = [e for e in entries if e.id in set(only)]
    else:
        sure = entries if force or not (out / "gradebook.sqlite").exists() else []
    if any(not e.error for e in sure):
        pool.start()             # sure to grade: its fork server boots while we hash and open the gradebook
        pool.prepare_roots(next(e.path for e in sure if not e.error))   # (its first: todo's, below)
    if early and exports:        # then a thread compiles the pages' templates (not before: it would hold
        #                          the GIL half the time on the way to the roots' ask)
        threading.Thread(target=_compile_templates, name="grade-all-templates", daemon=True).start()
    from ..engine import escape
    from ..engine.results import GradeReport
    from .gradebook import Gradebook, Stored
    from .progress import Progress
    from .sections import missing_rows
    from .worker import children_cpu

    version = grader_version(spec)
    summary = BatchSummary(found=len(entries), out=out, notes=notes)
    started = time.monotonic()
    top = expected_max(spec, stage)
    with Gradebook(out / "gradebook.sqlite") as book:
        stored = book.fingerprints(spec.name)
        missing_rows(book, spec.name, entries, source, drop_missing, summary.notes, pool)
        if policy is not None:
            book.set_meta(f"late_policy:{spec.name}", policy.to_json())
        if only:
            todo = [e for e in entries if e.id in set(only)]
        else:
            todo = [e for e in entries if force or stored.get(e.id) != (e.hash, stage, version)]
        summary.skipped = len(entries) - len(todo)
        trace("found", found=len(entries), todo=len(todo), early=bool(sure))
        if any(not e.error for e in todo):
            pool.start()         # (if not yet) its fork server loads pytest and the engine while we set up the exports
            pool.prepare_roots(next(e.path for e in todo if not e.error))   # (and the workers' templates their
            #                                                                    roots; asked once: above, if sure)
        run_id = book.start_run(spec.name, len(entries), jobs)
        bar = Progress(len(todo), stream=stream, enabled=progress)
        writer = warming = drawer = None
        if exports:
            from .export import FeedbackWriter

            writer = FeedbackWriter(book, spec, out, background=True, ids=[e.id for e in entries])
        grading = False                         # set while the workers grade (their first row starts the warming)
        first_row = False                       # a row from the workers was stored
        left = 0                                # rows still to come from the workers
        middle: dict[int, int] = {}             # rows left -> rows stored, a quarter and three quarters in

        def on_result(entry: Entry, result: dict[str, Any]) -> None:
            nonlocal first_row, warming, drawer, left
            if result.get("ok"):                # stored as the worker serialised it (never parsed here)
                stored, feedback, status = result["stored"], result["feedback"], "graded"
                summary.graded += 1
            else:
                report = GradeReport(submission=entry.id, assignment=spec.name, stage=stage,
                                     error=result["error"], submission_info=dict(entry.info))
                feedback = f"Grading {entry.id}: {result['error']}\n\nScore: 0 / {top:g}"
                stored, status = Stored.of(report.to_dict(), top), ("graded" if result.get("student") else "crashed")
                if result.get("student"):
                    summary.graded += 1
                else:
                    summary.crashed += 1
            row = book.store(assignment=spec.name, submission_id=entry.id, content_hash=entry.hash, stage=stage,
                             stored=stored, feedback=feedback, wall_time=result.get("wall", 0.0),
                             cpu_time=result.get("cpu", 0.0), grader_version=version, status=status,
                             source=escape.path(entry.path), keep=writer is not None)
            if writer is not None:
                writer.write(row)               # now (a thread), while the workers grade, not all at the end
            if grading:
                left -= 1
                if left in middle:              # the middle half's ends: the bench's parent CPU a row there
                    trace("middle", stored=middle[left])
            if drawer is not None and drawer.lagging(last=left <= 2 * jobs):
                # Not ready when the last two grades of each worker are left (a short batch, a slow
                # import), or a busy machine (the drawer gets no idle CPU).  Given up now, while
                # the workers grade, not found out after the last grade: matplotlib is imported
                # here meanwhile, as before.
                drawer.close()
                drawer = None
                trace("drawer-lagging")
                warming = _warming(matplotlib=True)
            if grading and not first_row:
                first_row = True
                trace("first-row")
                if exports:
                    # The class report's matplotlib (~0.25 s of CPU) is left to a drawer, which
                    # imports it on idle CPU (charts.Drawer); without one it is imported here, from
                    # a thread.  Either only now, once the first grade is stored: at the start it
                    # would compete with the fork server's boot and the workers' sessions, the
                    # path to the first grade (first row ~0.9 -> ~0.5 s; a drawer started with the
                    # fork server: ~0.5 -> ~0.7 s under load).
                    drawer = _start_drawer(pool.ctx) if left > 2 * jobs else None    # (the last grades run already)
                    warming = _warming(matplotlib=drawer is None)
            bar.advance(entry.id)

        status = "interrupted"
        try:
            try:
                bar.draw(force=True)
                for entry in [e for e in todo if e.error]:        # nothing to run: the student's error row
                    on_result(entry, {"ok": False, "student": True, "error": entry.error})
                todo = [e for e in todo if not e.error]
                if todo:
                    grading, left = True, len(todo)
                    middle = {left - k: k for k in (left // 4, 3 * left // 4) if k}
                    pool.run(todo, on_result)
                status = "done"
                trace("graded", graded=summary.graded)
                pool.release()          # the workers wind down while the exports are written
            except KeyboardInterrupt:
                summary.interrupted = True
            finally:
                if status != "done":
                    pool.close(now=True)
                bar.close()
                book.finish_run(run_id, graded=summary.graded, skipped=summary.skipped, crashed=summary.crashed,
                                status=status)
            summary.wall = time.monotonic() - started
            if exports:
                from .export import write_exports

                if status == "done":    # its last row stored: its WAL copied back while the exports are made
                    book.checkpoint_soon()
                if warming is not None and warming.ident is not None:
                    warming.join()      # done long ago; one thread, so the report may fork to draw a chart

                summary.written = write_exports(book, spec, out, written=writer, drawer=drawer)
                trace("exported")
        finally:
            pool.close(now=status != "done")
            if writer is not None:
                writer.stop()           # (done already unless something failed before the exports)
            if drawer is not None:
                drawer.close()          # (reaped: its CPU is counted with our children's)
    trace("end", children=children_cpu())      # (its own reaped children: the charts' drawer, forks drawing charts)
    return summary


def _compile_templates() -> None:
    """The feedback page's and the class report's templates compiled now (Jinja2 imported: ~35 ms of
    CPU) while grade-all waits for its fork server, not with the first stored row nor after the
    last.  Quietly: what fails here fails again where the pages are written, and is reported there."""
    from . import report

    try:
        report.compile_templates()
    except Exception:       # noqa: BLE001 -- met again, and reported, by the first page written
        pass


def _start_drawer(context: Any) -> Drawer | None:
    """The report's charts' drawer (charts.Drawer: matplotlib imported by another process on idle
    CPU, forked by CONTEXT's fork server: the workers'), or None."""
    from . import charts

    drawer = charts.Drawer.start(context)
    trace("drawer-start", started=drawer is not None)
    return drawer


def _warming(matplotlib: bool) -> threading.Thread:
    """A thread started making what the class report needs (_warm_exports): MATPLOTLIB's import too."""
    if matplotlib:
        trace("charts-warm")
    thread = threading.Thread(target=_warm_exports, args=(matplotlib,), name="grade-all-warm-charts", daemon=True)
    thread.start()
    return thread


def _warm_exports(matplotlib: bool = True) -> None:
    """What the class report needs that no row decides, made while the workers grade, not after
    the last row: MATPLOTLIB's import (charts.warm: not with a drawer) and the report's compiled
    template (~12 ms; compiled already when the fork server was started early: _compile_templates)."""
    try:
        from . import charts, report

        if matplotlib:
            charts.warm()
        report.compile_templates()
    except ImportError:
        # A Python without the kit's packages: the exports say so in one line when they run (cli);
        # warming ahead must not print a thread's traceback first.
        return


# --- CLI ------------------------------------------------------------------------------------------

def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("submissions", help="a folder of per-student files or folders, an nbgrader "
                                            "submitted/ tree, or a zip exported by Gradescope or an LMS")
    add_assignment_argument(parser)
    parser.add_argument("--stage", default="all", metavar="N|all",
                        help="grade one stage of the assignment or all (default: all = its core stages; an optional "
                             "stage only on its own)")
    parser.add_argument("--jobs", "-j", type=int, default=None,
                        help="parallel grading processes (default: the number of CPUs)")
    parser.add_argument("--out", default=DEFAULT_OUT,
                        help=f"folder for the gradebook, grades.csv, feedback/ and report.html (default: {DEFAULT_OUT})")
    parser.add_argument("--force", action="store_true", help="regrade every submission, even unchanged ones")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT,
                        help=f"seconds allowed per submission (default: {DEFAULT_TIMEOUT:g})")
    parser.add_argument("--nbgrader-assignment", default=None, metavar="NAME",
                        help="in an nbgrader submitted/ tree, the assignment folder to grade")
    parser.add_argument("--no-progress", action="store_true", help="no progress output on stderr")
    parser.add_argument("--python", default=None, metavar="PATH",
                        help="the Python that runs student code (default: the grader's own)")
    parser.add_argument("--only", default=None, metavar="ID[,ID..]",
                        help="regrade only these students (changed or not); the others keep their grades")
    parser.add_argument("--due", default=None, metavar="TIME",
                        help="the due date and time, e.g. 2026-11-20T23:59 (UTC unless it says +01:00)")
    parser.add_argument("--extensions", default=None, metavar="CSV",
                        help="a CSV of `id,due time` rows: each listed student's own due time")
    parser.add_argument("--late-penalty", type=float, default=None, metavar="PCT",
                        help="percent of the points earned taken per started day late (default 0)")
    parser.add_argument("--late-cap", type=float, default=None, metavar="PCT",
                        help="the late penalty never takes more than this percent (default 100)")
    parser.add_argument("--drop-missing", action="store_true",
                        help="delete the gradebook's rows of students this run does not find (a renamed "
                             "student's old id); without it they are kept and the exports mark them missing")


def run(args: argparse.Namespace) -> int:
    if args.jobs is not None and args.jobs < 1:
        print("error: --jobs must be at least 1", file=sys.stderr)
        return 2
    spec = load_for_grading(args.assignment, args.stage, args.python)
    if spec is None:
        return 2
    try:
        policy = policy_from_args(args, Path(args.out))
        only = [i.strip() for i in args.only.split(",") if i.strip()] if args.only else None
        summary = grade_all(args.submissions, args.out, args.assignment, args.stage, args.jobs, args.force,
                            args.timeout, args.nbgrader_assignment, progress=not args.no_progress,
                            only=only, policy=policy, drop_missing=args.drop_missing)
    except Exception as err:            # (their modules: imported by the time one is raised)
        from .discover import InputError
        from .lms import PolicyError

        if not isinstance(err, (PolicyError, InputError, KeyError)):
            raise
        print(f"error: {err.args[0] if isinstance(err, KeyError) else err}", file=sys.stderr)
        return 2
    if policy is not None and (policy.due or policy.extensions) and summary.written:
        import json

        from .lms import untimed_note

        try:                        # (read back only when a due date is set: no cost on a plain run)
            students = json.loads((Path(args.out) / "grades.json").read_text(encoding="utf-8"))["students"]
        except (OSError, ValueError, KeyError):
            students = []
        note = untimed_note(students)
        if note:
            summary.notes.append(note)
    try:
        print_summary(summary)
    except BrokenPipeError:                      # `grade-all ... | head`: the grading is done all the same
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    # The verb's last act (the process exits next): everything is written and closed, and the
    # interpreter's last collection over every object loaded (matplotlib, NumPy, Jinja2, the rows)
    # would cost ~0.1 s of CPU for nothing.
    gc.freeze()
    return 130 if summary.interrupted else 0


def policy_from_args(args: argparse.Namespace, out: Path, assignment: str | None = None) -> lms.LatePolicy | None:
    """The late policy the options ask for, on top of the one stored in OUT's gradebook (None: no option given)."""
    if args.due is None and args.extensions is None and args.late_penalty is None and args.late_cap is None:
        return None
    from . import lms
    from .gradebook import Gradebook

    policy = lms.LatePolicy()
    book_path = out / "gradebook.sqlite"
    if book_path.is_file():
        with Gradebook(book_path) as book:
            policy = lms.LatePolicy.from_json(book.get_meta(f"late_policy:{assignment or args.assignment}"))
    if args.due is not None:
        lms.parse_time(args.due)
        policy.due = args.due
    if args.extensions is not None:
        policy.extensions = lms.read_extensions(args.extensions)
    if args.late_penalty is not None:
        policy.penalty_per_day = args.late_penalty
    if args.late_cap is not None:
        policy.cap = args.late_cap
    return policy


def print_summary(summary: BatchSummary, stream=None) -> None:
    from ..engine import escape

    stream = stream or sys.stdout
    for note in summary.notes:
        print(f"note: {escape.plain(note)}", file=stream)
    state = "interrupted; run the same command again to resume" if summary.interrupted else "done"
    print(f"grade-all {state}: {summary.found} submissions, {summary.graded} graded, "
          f"{summary.skipped} unchanged (skipped), {summary.crashed} grader failures, "
          f"{summary.wall:.1f} s", file=stream)
    print(f"  {'gradebook':<17} {summary.out / 'gradebook.sqlite'}", file=stream)
    for path in summary.written:
        print(f"  {path.name:<17} {path}", file=stream)
