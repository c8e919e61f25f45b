"""What grade-all's fork server imports once before it forks the workers: the pytest plugins and the
course's suite modules a grading session imports (preload_session), and a worker's check that
they are still the ones its session wants (drop_stale_preload).  grading/preload.py runs it in
the fork server; grade._grade_stream checks it in every session."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from ..assignment import Assignment, load_assignment


def preload_session(spec: Assignment, stage: str | int = "all") -> bool:
    """Import now what a grading session of SPEC's STAGE imports (pytest's plugins that _session
    loads, the suite modules and what they import), without starting a session: grade-all's fork
    server does it once, so each worker forked from it finds them in sys.modules (pytest reuses a
    module already imported under the name its --import-mode gives it) and its session only
    configures and collects (~75 -> ~30 ms a worker, for ~25-30 ms here, before the first fork).
    Nothing is run or graded.

    All or nothing: should anything fail to import (a broken suite), every module it added is
    dropped again, so a worker imports the suites itself and reports the failure exactly as it
    does without this (a half-imported suite module left behind would collect nothing: "0 / 0").
    True when everything was imported."""
    import importlib
    import warnings

    from .grade import NO_PLUGINS, SESSION_ARGS, _importable  # (here: grade imports this module)

    before = set(sys.modules)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")           # (a session's own warnings plugin handles them)
            import _pytest.config
            from _pytest.pathlib import import_path

            for name in _pytest.config.default_plugins:
                if name not in NO_PLUGINS:
                    importlib.import_module(f"_pytest.{name}")
            if _importable("pytest_timeout"):
                importlib.import_module("pytest_timeout")
            for path in spec.suite_files(stage):      # as _pytest.python.Module imports a test file
                import_path(os.path.abspath(path), mode=SESSION_ARGS[0].split("=", 1)[1],
                            root=Path(os.path.abspath(spec.suites_dir)), consider_namespace_packages=False)
    except BaseException as error:                    # noqa: BLE001 -- the worker meets it again itself
        for name in set(sys.modules) - before:
            del sys.modules[name]
        if not isinstance(error, Exception):          # Ctrl-C, an exit: after the roll-back, as ever
            raise
        return False
    _PRELOADED.clear()
    course = os.path.join(os.path.abspath(spec.root), "")
    for name in set(sys.modules) - before:
        stamp = _source_stamp(sys.modules[name])
        if stamp is not None and stamp[0].startswith(course):
            _PRELOADED[name] = stamp
    _PRELOADED_FOR[:] = [str(spec.suites_dir)]
    return True


# The course's modules preload_session imported (its suites and their helpers: what may differ
# between two courses or change on disk; pytest's plugins and the engine's modules stay) -> their
# file's (path, mtime_ns, size) when imported; and the suites' folder they were imported for.
_PRELOADED: dict[str, tuple[str, int, int]] = {}
_PRELOADED_FOR: list[str] = []


def _source_stamp(module) -> tuple[str, int, int] | None:
    path = getattr(module, "__file__", None)
    try:
        found = os.stat(path) if path else None
    except OSError:
        return None
    return (path, found.st_mtime_ns, found.st_size) if found else None


def drop_stale_preload(spec: Assignment) -> None:
    """In a process forked after preload_session, before SPEC's session: unless they were imported
    for SPEC's suites and none of their files changed since (a long-lived fork server serving
    another course, or one edited between two batches), every module it imported is dropped, and
    the session imports the suites afresh (never another course's or a stale check: two courses'
    plain suite folders name their modules alike, test_stage1_scoring ...)."""
    if _PRELOADED and (_PRELOADED_FOR != [str(spec.suites_dir)]
                       or any(_source_stamp(sys.modules.get(name)) != stamp for name, stamp in _PRELOADED.items())):
        for name in _PRELOADED:
            sys.modules.pop(name, None)
        _PRELOADED.clear()


def preload_from_environment() -> None:
    """preload_session for the assignment and stage in $AUTOGRADER_PRELOAD_SESSION (a JSON pair,
    set by grade-all while its fork server starts: grading.preload imports this), if any."""
    wanted = os.environ.get(PRELOAD_ENV)
    if not wanted:
        return
    try:
        assignment, stage = json.loads(wanted)
        spec = load_assignment(assignment)
    except Exception:                                 # noqa: BLE001 -- a worker loads it itself and says why
        return
    preload_session(spec, stage)


PRELOAD_ENV = "AUTOGRADER_PRELOAD_SESSION"
