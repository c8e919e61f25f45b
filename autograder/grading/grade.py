"""Grading one submission, or a stream of them, with an assignment's stage suites (pytest, run in
this process), and the reference's outcomes once per grader version (the reference cache).

grade() and grade_stream() are the library entry points (the `grade` verb: grade_cmd.py,
grade-all's workers, the tests).  Student code never runs here: the suites talk to it through
sandboxed Programs.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from ..assignment import (
    DEFAULT_ASSIGNMENT,
    PACKAGE_DIR,
    Assignment,
    load_assignment,
)
from ..engine import codecache, escape, refcache
from ..engine.ahead import public_keys
from ..engine.checks import GraderFault
from ..engine.life import prestart_template
from ..engine.program import Program, default_limits, reference_program
from ..engine.results import GradeReport
from ..engine.sandbox import Limits, template_scope
from ..engine.submission import SubmissionError, load_submission
from .environ import scoped
from .hidden import hidden_paths, submission_home
from .preloading import drop_stale_preload, take_prepared, take_reference_cache
from .tracing import trace

if TYPE_CHECKING:
    from ..engine.plugin import GradingPlugin

# pytest and the grading plugin are imported where a session starts, not with this module: a cold
# `grade` boots its sandbox template first, so the template starts while pytest loads.

PYTEST_INI = PACKAGE_DIR / "engine" / "pytest.ini"
AUTOLOAD = "PYTEST_DISABLE_PLUGIN_AUTOLOAD"
VERSION_ENV = "PYTEST_VERSION"      # (pytest.main sets it while it runs: so does a prepared session)
# The caller's own pytest options and plugins (a CI's PYTEST_ADDOPTS, the kit's tests run with some):
# pytest reads them in every session of the process, and a grading session's are the kit's alone.
FOREIGN_ENV = ("PYTEST_ADDOPTS", "PYTEST_PLUGINS")


def pytest_env(**values: str) -> contextlib.AbstractContextManager[None]:
    """os.environ as a grading session's pytest must read it: VALUES set, FOREIGN_ENV unset; as it was after."""
    return scoped(values, FOREIGN_ENV)


def _importable(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None


class SuiteLoadError(GraderFault):
    """A grading suite does not load (a bug in the course's suites): never the student's fault.
    Raised, never grading on: a module that failed to import once stays half-imported in this
    process, and a second session would silently collect nothing from it ("0 / 0")."""


def grade(path: str | Path, assignment: str | Assignment = DEFAULT_ASSIGNMENT, stage: str | int = "all",
          public_only: bool = False, limits: Limits | None = None,
          extra_hidden: list[str] | None = None) -> GradeReport:
    """Grade the submission at PATH; a broken submission yields a report, never an exception.

    PUBLIC_ONLY runs the public checks instead (grading/public.py): the same code the
    bundle's check.py and the notebooks' check cells run."""
    if public_only:
        from .public import grade_public

        return grade_public(path, assignment, stage, limits, extra_hidden)
    reports: list[GradeReport] = []
    with template_scope():
        prestart_template()
        _grade_stream(iter([path]), reports.append, assignment, stage, public_only, limits, extra_hidden,
                      early=True)
    if not reports:
        raise GraderFault("pytest ended before grading (a usage error in the grading session?)")
    return reports[0]


class _Counter:
    def __init__(self) -> None:
        self.count = 0
        self.errors: list[str] = []

    def pytest_collection_modifyitems(self, session, config, items) -> None:
        self.count = len(items)
        items[:] = []

    def pytest_collectreport(self, report) -> None:
        if report.failed:
            self.errors.append(f"{report.nodeid}: {report.longreprtext[-3000:]}")


def count_checks(spec: Assignment, stage: str | int = "all") -> int:
    """How many checks the grader runs on STAGE (collected, not run; once per process and suite)."""
    key = (spec.name, str(stage), tuple((str(f), f.stat().st_mtime_ns) for f in spec.suite_files(stage)))
    if key not in _COUNTS:      # (and once per machine and kit version: a collection is ~0.3 s of CPU)
        data = codecache.stored("hidden-count", f"{spec.made_from_key()} {stage}",
                                lambda: (str(_count_checks(spec, stage)).encode(), True), bytes.isdigit)
        _COUNTS[key] = int(data)
    return _COUNTS[key]


_COUNTS: dict[tuple, int] = {}


def _count_checks(spec: Assignment, stage: str | int) -> int:
    import pytest

    counter = _Counter()
    args = [*[str(f) for f in spec.suite_files(stage)], "-c", str(PYTEST_INI), "--rootdir", str(spec.suites_dir),
            "-p", "no:cacheprovider", "-p", "no:terminal", *SESSION_ARGS]
    old_cwd = os.getcwd()
    try:
        with pytest_env():
            pytest.main(args, plugins=[counter])
    finally:
        os.chdir(old_cwd)
    if counter.errors:
        raise SuiteLoadError("the grading suites failed to load:\n" + "\n".join(counter.errors))
    return counter.count


def grade_stream(paths: Iterator[str | Path], deliver: Callable[[GradeReport], None],
                 assignment: str | Assignment = DEFAULT_ASSIGNMENT, stage: str | int = "all",
                 public_only: bool = False, limits: Limits | None = None,
                 extra_hidden: list[str] | None = None) -> None:
    """Grade each path PATHS yields, handing each report to DELIVER as soon as it is ready.

    One pytest session serves them all: the suites are collected once, so a batch worker
    pays pytest's start-up once, not per student.  PATHS may block (a worker's queue).
    Every sandbox of the stream is forked from one pre-booted template (sandbox.template_scope).
    PATHS with a ready() method (grade-all's worker queue: whether its next path is already
    there, without blocking) let the stream load the next submission and run its plan ahead, in
    its own sandboxes, while the checks of the current one run (_Ahead; one ahead at most), and
    its first one while the session starts; then its session_started(), if it has one, is called
    when the session has collected the suites and asks for its first submission.
    """
    with template_scope():
        prestart_template()
        _grade_stream(paths, deliver, assignment, stage, public_only, limits, extra_hidden)


def _grade_stream(paths: Iterator[str | Path], deliver: Callable[[GradeReport], None],
                  assignment: str | Assignment, stage: str | int, public_only: bool,
                  limits: Limits | None, extra_hidden: list[str] | None, early: bool = False) -> None:
    """EARLY (one known submission, grade()): its file is loaded in its sandbox and the request plan
    run ahead in a thread while this one imports pytest and collects the suites (the sandbox
    works on the other CPU); the plugin then finds both done (Program.load_early)."""
    spec = load_assignment(assignment) if isinstance(assignment, str) else assignment
    drop_stale_preload(spec)
    hidden = hidden_paths(extra_hidden)
    files = [str(f) for f in spec.suite_files(stage)]
    if not files:
        raise ValueError(f"{spec.name} has no suite for stage {stage}")
    reference = reference_program(spec.reference, spec.student_file, hidden_paths=hidden, limits=limits)

    def submission_job(path):
        started = time.perf_counter()
        report = GradeReport(submission=escape.path(path), assignment=spec.name, stage=str(stage),
                             public_only=public_only)
        load_failure = None
        try:
            submission = load_submission(path, spec.student_file, spec.entry)
            report.notes.extend(submission.notes)
            source, filename = submission.source, submission.filename
        except SubmissionError as err:
            load_failure = report.error = str(err)
            source, filename = "", spec.student_file
        student = Program(source, filename, limits=limits, hidden_paths=hidden + submission_home(path),
                          reference=reference.source)
        student.timing = reference      # trial limits (as plugin.begin sets it; load_early runs before)
        return student, load_failure, (report, student, started)

    # EARLY: the submission's sandbox starts and loads its file while the reference's outcomes and
    # the plan are read (refcache: ~10 ms), then runs the plan once it is given.  A stream whose
    # first path is already there (a worker's queue) does the same with it: its sandboxes work
    # while this session starts (pytest's configuration and the suites' collection: ~0.2 s).
    ahead: list[_Ahead] = []
    ready = None if public_only else getattr(paths, "ready", None)
    session_started = getattr(paths, "session_started", None) if ready is not None else None
    asked: list[bool] = []
    delivered: list[bool] = []
    if (early or (ready is not None and ready())) and not public_only:
        first = next(paths, None)
        if first is not None:
            ahead.append(_Ahead(submission_job(first), traced=True))
    # grade-all's fork server configured pytest and collected the suites once (a worker: its copy)
    prepared = None if early else take_prepared(spec, stage, public_only)
    try:
        plan = reference_outcomes(spec, reference, hidden, limits)
        trace("session-refcache")      # (the first grade's phases: $AUTOGRADER_BATCH_TRACE, the bench)
        ordered = _plan_in_order(plan, files, spec) if plan else []
        public = public_keys(plan)
        for job in ahead:
            job.give(ordered, public)

        def next_submission():
            if session_started is not None and not asked:
                trace("session-collected", prepared=prepared is not None)
                asked.append(True)
                session_started()
            if ahead:
                job = ahead[-1].join()              # (raises what its thread raised: closed below)
                ahead.pop()
            else:
                path = next(paths, None)
                if path is None:
                    return None
                job = submission_job(path)
            # Pipelined (a worker's queue): the next submission, if it is already there, is loaded
            # and its plan run in its own sandboxes while this one's checks run in this thread.
            if ready is not None and ordered and ready():
                path = next(paths, None)
                if path is not None:
                    upcoming = _Ahead(submission_job(path))
                    upcoming.give(ordered, public)
                    ahead.append(upcoming)
            return job

        def finish(plugin: GradingPlugin, context) -> None:
            report, student, started = context
            report.flags = list(student.attempts)
            report.tests = plugin.results
            report.notes.extend(plugin.notes)
            report.hidden_not_run = plugin.hidden_not_run
            if plugin.load_failure and not report.error:
                report.error = plugin.load_failure
            report.execution_time = round(time.perf_counter() - started, 3)
            if not delivered:
                delivered.append(True)
                trace("session-first-checked")
            # The report first, then its sandboxes stopped (a few ms of waiting for them to end): a
            # worker's parent sends its next submission meanwhile, so it is there to be loaded ahead.
            deliver(report)
            student.close()

        if prepared is not None:
            plugin = prepared.plugin
            plugin.bind(reference, next_submission=next_submission, deliver=finish, plan=plan)
            prepared.run()
        else:
            from ..engine.plugin import GradingPlugin  # (pytest: after the early thread has started)

            # (EARLY: this session grades one submission only; its checks' verdicts would serve none)
            plugin = GradingPlugin(spec, reference, public_only=public_only,
                                   next_submission=next_submission, deliver=finish, plan=plan, trace=not early)
            _session(files, spec, plugin)
    finally:
        if prepared is not None and not prepared.ran:
            prepared.discard()                      # (taken, never run: the session did not start)
        for job in ahead:                           # the session ended before it took the job
            try:
                job.join()
            finally:
                job.job[0].close()


def _plan_in_order(plan: dict, files: list[str], spec: Assignment) -> list:
    """The plan's requests of the checks in FILES, in the order the session will ask them: the
    cache file keeps the recording session's order, which is the collection order of the suites
    (a difference would only cost time: Program replays the shared history when checks leave it)."""
    root = spec.suites_dir.resolve()
    names = {Path(f).resolve().relative_to(root).as_posix() for f in files}
    return [r for item, requests in plan.items() if item and item.split("::")[0] in names for r in requests]


# This process's CPU in loading submissions and running their plans ahead (_Ahead's threads: the
# grader's side of each plan's requests); grade-all's workers report it with plugin.CHECKS_CPU.
PLANS_CPU = [0.0]

# While the plan runs ahead, the main thread imports pytest and collects the suites: CPU-bound
# Python that holds the GIL for the whole switch interval (5 ms) each time the plan's thread wakes
# for a result line (~190 of them).  A short interval lets that thread read each line at once, so
# the sandbox is never left waiting for the grader (a cold `grade`: ~40 ms less wall).
AHEAD_SWITCH_S = 0.0005


class _Ahead:
    """A submission's load probe run in a thread at once, then the plan once give() gives it
    (Program.load_early); join() gives its job."""

    def __init__(self, job: tuple, traced: bool = False) -> None:
        import threading

        self.job = job
        self.traced = traced          # the session's first: its end is a phase of $AUTOGRADER_BATCH_TRACE
        self.error: BaseException | None = None
        self.plan: list = []
        self.public: frozenset[str] = frozenset()
        self.given = threading.Event()
        student, load_failure, _ = job
        # Trial limits come from the reference's cached outcomes, read meanwhile: the probe runs
        # without (the reference never runs it: it never had a trial), the plan with them.
        self.timing, student.timing = student.timing, None
        self.thread = None
        self.switch = None
        if load_failure is None:
            self.thread = threading.Thread(target=self._run, args=(student,), daemon=True,
                                           name="grade-load-early")
            self.thread.start()
            self.switch = sys.getswitchinterval()         # (set once the thread runs: join sets it back)
            sys.setswitchinterval(min(self.switch, AHEAD_SWITCH_S))
        else:
            student.timing = self.timing

    def give(self, plan: list, public: frozenset[str]) -> None:
        """The plan to run once the probe has loaded the file (empty: none); PUBLIC: the keys of its
        public requests (ahead.public_keys: they run first)."""
        self.plan, self.public = plan, public
        self.given.set()

    def _plan(self) -> list:
        self.given.wait()
        self.job[0].timing = self.timing
        self.job[0].public_keys = self.public
        return self.plan

    def _run(self, student: Program) -> None:
        try:
            student.load_early(self._plan)
            if self.traced:
                trace("session-first-planned")
        except BaseException as error:      # noqa: BLE001 -- raised again in the grading thread
            self.error = error
        finally:
            PLANS_CPU[0] += time.thread_time()    # (this thread's, all of it: one submission's load and plan)

    def join(self) -> tuple:
        self.given.set()                     # (never given: the grade ended before; no plan runs)
        if self.thread is not None:
            self.thread.join()
            self.thread = None
        if self.switch is not None:
            sys.setswitchinterval(self.switch)
            self.switch = None
        if self.error is not None:
            error, self.error = self.error, None
            raise error
        return self.job


# pytest's own plugins a grading session does without: the report and cache machinery, the
# unraisable/thread-exception hooks (their gc.collect() at the end costs ~60 ms per session), and
# the debugger (importing pdb and readline: ~7 ms of every cold `grade`).
NO_PLUGINS = ("cacheprovider", "terminal", "unraisableexception", "threadexception", "faulthandler",
              "pastebin", "doctest", "junitxml", "stepwise", "logging", "debugging")
# The suites decide with Fail and pytest.skip, never `assert` (a stray assert is a grader error either
# way): pytest's assertion rewriting would only re-parse and re-compile every suite module in every
# session (no cached rewrite where bytecode is not written: ~70 ms of a cold `grade`), and plain
# imports use the usual bytecode cache.
SESSION_ARGS = ("--import-mode=importlib", "--assert=plain")


def session_args(files: list[str], spec: Assignment) -> list[str]:
    """pytest's arguments for a grading session over FILES: no third-party plugin is auto-loaded
    (pytest-timeout, the backstop of checks pytest runs itself, is loaded by name)."""
    args = [*files, "-c", str(PYTEST_INI), "--rootdir", str(spec.suites_dir), *SESSION_ARGS]
    for name in NO_PLUGINS:
        args += ["-p", f"no:{name}"]
    if _importable("pytest_timeout"):
        args += ["-p", "pytest_timeout"]
    return args


def _session(files: list[str], spec: Assignment, plugin: GradingPlugin) -> None:
    """One pytest session over FILES (session_args)."""
    import pytest

    args = session_args(files, spec)
    old_cwd = os.getcwd()
    try:
        with pytest_env(**{AUTOLOAD: "1"}):
            pytest.main(args, plugins=[plugin])
    finally:
        os.chdir(old_cwd)
    if plugin.collection_errors:
        raise SuiteLoadError("the grading suites failed to load:\n" + "\n".join(plugin.collection_errors))


def cache_key(spec: Assignment, limits: Limits | None = None) -> str:
    """The reference cache's key for SPEC: reference, suites, scenarios (and an override), engine, limits."""
    dirs = [spec.suites_dir, spec.scenarios_dir]
    override = os.environ.get("AUTOGRADER_SCENARIOS_DIR")
    if override:
        dirs.append(Path(override))
    return refcache.fingerprint(spec.reference, dirs, limits or default_limits())


def reference_outcomes(spec: Assignment, reference: Program, hidden: list[str],
                       limits: Limits | None = None) -> dict | None:
    """Fill REFERENCE's outcomes from the cache file of this grader version, computing the file
    first when there is none (one grade of the reference, all stages, recording what the checks
    ask); the request plan for students, or None when neither works (grading goes on without)."""
    key = cache_key(spec, limits)
    path = refcache.find(spec.root, spec.name, key)
    # (a grade-all worker: the fork server read this very file already, preloading.take_reference_cache)
    loaded = (take_reference_cache(key, path) or refcache.load(path)) if path else None
    if loaded is None:
        try:
            loaded = compute_reference_cache(spec, reference, hidden, limits, key)
        except SuiteLoadError:
            raise
        except (OSError, GraderFault):
            return None
    outcomes, plan = loaded
    reference.preload(outcomes)
    return plan


def ensure_reference_cache(spec: Assignment, limits: Limits | None = None) -> Path:
    """The reference cache file of SPEC for this grader version, computed when missing (the
    Gradescope bundle ships it, so no submission there recomputes the reference)."""
    key = cache_key(spec, limits)
    path = refcache.find(spec.root, spec.name, key)
    if path is not None and refcache.load(path) is not None:
        return path
    hidden = hidden_paths()
    reference = reference_program(spec.reference, spec.student_file, hidden_paths=hidden, limits=limits)
    compute_reference_cache(spec, reference, hidden, limits, key)
    return refcache.cache_dir() / refcache.file_name(spec.name, key)


def compute_reference_cache(spec: Assignment, reference: Program, hidden: list[str], limits: Limits | None,
                            key: str, folder: Path | None = None) -> tuple[dict, dict]:
    """Grade the reference as a student once (every stage), recording the plan; write the file."""
    from ..engine.plugin import GradingPlugin

    files = [str(f) for f in spec.suite_files("all")]
    # (given the reference's source, as a student's Program is: a suite that substitutes only
    # where the program can plans the substituting requests a student is asked)
    source = spec.reference.read_text(encoding="utf-8")
    recorder = Program(source, spec.student_file, limits=limits, hidden_paths=hidden,
                       label="the reference (recording the plan)", reference=source)
    jobs = iter([(recorder, None, None)])
    plugin = GradingPlugin(spec, reference, next_submission=lambda: next(jobs, None),
                           deliver=lambda plugin, context: None, record=True)
    try:
        _session(files, spec, plugin)
    finally:
        recorder.close()
    if plugin.recorded_plan is None or any(r.status != "passed" for r in plugin.results):
        raise GraderFault("the reference does not pass its own suites; no reference cache written")
    outcomes = reference.outcomes()
    refcache.save(folder or refcache.cache_dir(), spec.name, key, outcomes, plugin.recorded_plan)
    return outcomes, plugin.recorded_plan
