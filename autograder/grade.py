"""Verb: grade one submission with an assignment's stage suites (pytest, run in this process).

Student code never runs here: the suites talk to it through sandboxed Programs.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from .assignment import REPO_ROOT, Assignment, load_assignment
from .engine.plugin import GradingPlugin
from .engine.program import Program, reference_program
from .engine.results import GradeReport
from .engine.sandbox import Limits
from .engine.submission import SubmissionError, load_submission

PYTEST_INI = Path(__file__).resolve().parent / "engine" / "pytest.ini"


def hidden_paths(extra: list[str] | None = None) -> list[str]:
    """Folders the student's process must not see: the kit itself (tests, solution, suites)."""
    return [str(REPO_ROOT)] + list(extra or [])


def submission_home(path: str | Path) -> list[str]:
    """The folder a submission sits in (a class folder, an LMS download), hidden from its own
    sandbox too: the student's code arrives through a pipe, so the sandbox never needs it, and
    classmates' files next to it must not be readable.  Not "/" and not a folder holding Python."""
    folder = Path(path).resolve().parent
    prefix = Path(os.path.realpath(sys.base_prefix))
    if folder == Path(folder.anchor) or folder == prefix or folder in prefix.parents:
        return []
    return [str(folder)]


class GraderFault(RuntimeError):
    """The grader itself is broken (e.g. a suite does not import): never the student's fault."""


def grade(path: str | Path, assignment: str | Assignment = "yahtzee", stage: str | int = "all",
          public_only: bool = False, limits: Limits | None = None,
          extra_hidden: list[str] | None = None) -> GradeReport:
    """Grade the submission at PATH; a broken submission yields a report, never an exception.

    PUBLIC_ONLY runs the public checks instead (autograder/public.py): the same code the
    bundle's check.py and the notebooks' check cells run."""
    if public_only:
        from .public import grade_public

        return grade_public(path, assignment, stage, limits, extra_hidden)
    reports: list[GradeReport] = []
    grade_stream(iter([path]), reports.append, assignment, stage, public_only, limits, extra_hidden)
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
    if key not in _COUNTS:
        _COUNTS[key] = _count_checks(spec, stage)
    return _COUNTS[key]


_COUNTS: dict[tuple, int] = {}


def _count_checks(spec: Assignment, stage: str | int) -> int:
    counter = _Counter()
    args = [*[str(f) for f in spec.suite_files(stage)], "-c", str(PYTEST_INI), "--rootdir", str(spec.suites_dir),
            "-p", "no:cacheprovider", "-p", "no:terminal", "--import-mode=importlib",
            "-W", "ignore::pytest.PytestAssertRewriteWarning"]
    old_cwd = os.getcwd()
    try:
        pytest.main(args, plugins=[counter])
    finally:
        os.chdir(old_cwd)
    if counter.errors:
        raise GraderFault("the grading suites failed to load:\n" + "\n".join(counter.errors))
    return counter.count


def grade_stream(paths: Iterator[str | Path], deliver: Callable[[GradeReport], None],
                 assignment: str | Assignment = "yahtzee", stage: str | int = "all",
                 public_only: bool = False, limits: Limits | None = None,
                 extra_hidden: list[str] | None = None) -> None:
    """Grade each path PATHS yields, handing each report to DELIVER as soon as it is ready.

    One pytest session serves them all: the suites are collected once, so a batch worker
    pays pytest's start-up once, not per student.  PATHS may block (a worker's queue).
    """
    spec = load_assignment(assignment) if isinstance(assignment, str) else assignment
    hidden = hidden_paths(extra_hidden)
    files = [str(f) for f in spec.suite_files(stage)]
    if not files:
        raise ValueError(f"{spec.name} has no suite for stage {stage}")
    reference = reference_program(spec.solution, spec.student_file, hidden_paths=hidden, limits=limits)

    def next_submission():
        path = next(paths, None)
        if path is None:
            return None
        started = time.perf_counter()
        report = GradeReport(submission=str(path), assignment=spec.name, stage=str(stage),
                             public_only=public_only)
        load_failure = None
        try:
            submission = load_submission(path, spec.student_file, spec.entry)
            report.notes.extend(submission.notes)
            source, filename = submission.source, submission.filename
        except SubmissionError as err:
            load_failure = report.error = str(err)
            source, filename = "", spec.student_file
        student = Program(source, filename, limits=limits, hidden_paths=hidden + submission_home(path))
        return student, load_failure, (report, student, started)

    def finish(plugin: GradingPlugin, context) -> None:
        report, student, started = context
        student.close()
        report.flags = list(student.attempts)
        report.tests = plugin.results
        report.notes.extend(plugin.notes)
        report.hidden_not_run = plugin.hidden_not_run
        if plugin.load_failure and not report.error:
            report.error = plugin.load_failure
        report.execution_time = round(time.perf_counter() - started, 3)
        deliver(report)

    plugin = GradingPlugin(spec, reference, public_only=public_only,
                           next_submission=next_submission, deliver=finish)
    args = [*files, "-c", str(PYTEST_INI), "--rootdir", str(spec.suites_dir),
            "-p", "no:cacheprovider", "-p", "no:terminal", "--import-mode=importlib",
            "-W", "ignore::pytest.PytestAssertRewriteWarning"]
    old_cwd = os.getcwd()
    try:
        pytest.main(args, plugins=[plugin])
    finally:
        os.chdir(old_cwd)
    if plugin.collection_errors:
        raise GraderFault("the grading suites failed to load:\n" + "\n".join(plugin.collection_errors))
