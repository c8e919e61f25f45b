"""What grade-all's fork server does once before it forks the workers: it imports the pytest plugins
and the course's suite modules a grading session imports (preload_session), configures pytest and
collects the suites (prepare_session: each worker runs its copy of that session, take_prepared),
reads the reference cache file (preload_reference_cache, take_reference_cache) and warms the caches
a worker's first sandboxes fill (warm_sandbox_caches); and a worker's check that the modules are
still the ones its session wants (drop_stale_preload).
grading/preload.py runs it in the fork server; grade._grade_stream checks it in every session."""

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
    _PRELOADED.update(_course_stamps(spec, set(sys.modules) - before))
    _PRELOADED_FOR[:] = [str(spec.suites_dir)]
    return True


# The course's modules preload_session imported (its suites and their helpers: what may differ
# between two courses or change on disk; pytest's plugins and the engine's modules stay) -> their
# file's (path, mtime_ns, size) when imported; and the suites' folder they were imported for.
_PRELOADED: dict[str, tuple[str, int, int]] = {}
_PRELOADED_FOR: list[str] = []


def _source_stamp(module) -> tuple[str, int, int] | None:
    """MODULE's file's (path, mtime_ns, size), None without one (or no module)."""
    path = getattr(module, "__file__", None)
    return _source_stamp_of(path) if path else None


def _source_stamp_of(path: str) -> tuple[str, int, int] | None:
    try:
        found = os.stat(path)
    except OSError:
        return None
    return (path, found.st_mtime_ns, found.st_size)


def _course_stamps(spec: Assignment, names) -> dict[str, tuple[str, int, int]]:
    """The modules of NAMES whose file is in SPEC's course folder -> their file's stamp (the others'
    files are not stat'ed: pytest's and the engine's modules stay whatever the course)."""
    course = os.path.join(os.path.abspath(spec.root), "")
    stamps = {}
    for name in names:
        path = getattr(sys.modules.get(name), "__file__", None)
        if path and str(path).startswith(course) and (stamp := _source_stamp_of(path)) is not None:
            stamps[name] = stamp
    return stamps


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
        for prepared in _PREPARED:              # (its items are those modules' functions)
            if prepared.pid != os.getpid():
                prepared.discard()
        _PREPARED.clear()


def preload_from_environment() -> None:
    """preload_session, then prepare_session, preload_reference_cache and warm_sandbox_caches, for
    the assignment and stage in $AUTOGRADER_PRELOAD_SESSION (a JSON list, set by grade-all while its
    fork server starts: grading.preload imports this), if any; its third item, true: the workers'
    templates are booted for them already (workers.WorkerPool._boot_templates), so not the harness."""
    wanted = os.environ.get(PRELOAD_ENV)
    if not wanted:
        return
    try:
        assignment, stage, *rest = json.loads(wanted)
        spec = load_assignment(assignment)
    except Exception:                                 # noqa: BLE001 -- a worker loads it itself and says why
        return
    if preload_session(spec, stage):
        prepare_session(spec, stage)
    preload_reference_cache(spec)
    warm_sandbox_caches(spec, stage, harness=not (rest and rest[0] is True))


def exit_quickly() -> None:
    """In grade-all's fork server (only: called from grading/preload.py, which it imports while
    multiprocessing.forkserver.main runs), once its preload is done: when it exits (its last
    client, our parent, gone), its atexit functions run and its output is flushed, then it ends
    with os._exit, without Python's teardown of everything it loaded (pytest, the engine, the
    suites, the prepared session: ~25 ms of CPU a batch, after the parent's exit, for nothing).
    Its forked workers never run it (they leave by os._exit; the pid is checked all the same),
    nor does a fork server ending in an uncaught exception (its exit status stays 1)."""
    import atexit
    from multiprocessing import forkserver

    frame = sys._getframe(1)
    while frame is not None and frame.f_code is not forkserver.main.__code__:
        frame = frame.f_back
    if frame is None:                                   # not in a fork server: nothing changes
        return
    pid = os.getpid()

    def quick() -> None:
        if os.getpid() != pid or getattr(sys, "last_value", None) is not None:
            return
        atexit.unregister(quick)
        atexit._run_exitfuncs()                         # (the others, as Python would run them)
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (AttributeError, OSError, ValueError):
                pass
        os._exit(0)

    atexit.register(quick)


def warm_sandbox_caches(spec: Assignment, stage: str | int = "all", harness: bool = True) -> None:
    """In grade-all's fork server: what each worker's first sandboxes compute once per process,
    computed once here (~10-15 ms a worker otherwise, on its first grade's path): the seccomp
    filter, the compiled harness its template boots with, and the compiled reference without each
    stage's functions (the substitution sandboxes').  Each is a cache of grader code only, keyed by
    what it was made from (a text, the interpreter): a worker whose course, reference or Python
    differs misses it and computes its own, as before.  (Not isolation()'s probe: a forked child
    creating namespaces, a few ms of wall that varies with the machine; each worker probes in
    parallel, as before.)  Not the harness unless HARNESS (only a template's boot reads it: not a
    worker's whose template grade-all's parent booted).  Best effort: anything raised leaves the
    rest to the workers."""
    from ..engine import launch, seccomp
    from ..engine.sources import reference_without

    try:
        seccomp.filter_bpf()
        if harness:
            launch._harness_source()
        text = spec.reference.read_text(encoding="utf-8")
        numbers = [s.number for s in spec.core_stages] if str(stage) == "all" else [int(stage)]
        for number in numbers:
            substitution = spec.substitution(number)
            if substitution["names"]:                  # (as Program._variant_of keys its variants)
                launch.compiled_reference(reference_without(text, tuple(sorted(map(str, substitution["keep"])))))
    except Exception:                                 # noqa: BLE001 -- a worker computes it itself and says why
        pass


# --- the reference cache file, read once before the fork ------------------------------------------

_REFCACHE: list[tuple[tuple, tuple]] = []     # ((key, path, mtime_ns, size), what refcache.load read)


def preload_reference_cache(spec: Assignment) -> bool:
    """In grade-all's fork server: SPEC's reference cache file of this grader version read once
    (refcache.load: ~4 ms a worker otherwise, on the first row's path), if there is one; never
    computed here (that grades the reference, in sandboxes: a worker does it as before)."""
    from ..engine import refcache
    from .grade import cache_key

    _REFCACHE.clear()
    try:
        key = cache_key(spec)
        path = refcache.find(spec.root, spec.name, key)
        loaded = refcache.load(path) if path else None
    except Exception:                                 # noqa: BLE001 -- a worker reads it itself and says why
        return False
    stamp = _source_stamp_of(str(path)) if loaded is not None else None
    if stamp is None:
        return False
    _REFCACHE.append(((key, *stamp), loaded))
    return True


def take_reference_cache(key: str, path) -> tuple | None:
    """What preload_reference_cache read, once, when it is the file at PATH for KEY (the key of the
    session asking: its reference, suites, scenarios, engine and limits) and the file is unchanged
    since; else None (the caller reads the file)."""
    if not _REFCACHE:
        return None
    stamp, loaded = _REFCACHE.pop()
    return loaded if stamp == (key, *(_source_stamp_of(str(path)) or ())) else None


# --- a session configured and collected once, before the fork ------------------------------------

class Prepared:
    """A grading session of the fork server's (prepare_session): pytest configured, the session
    started and the suites collected, the capture not started; each worker forked after it runs
    its own copy (run), once: take_prepared."""

    def __init__(self, key: tuple, spec: Assignment, config, session, plugin,
                 stamps: dict[str, tuple[str, int, int]] | None = None) -> None:
        self.key = key
        self.stamps = stamps or {}      # the course's modules when collected -> their file's stamp
        self.spec = spec
        self.config = config
        self.session = session
        self.plugin = plugin
        self.pid = os.getpid()          # the process that prepared it never runs it
        self.ran = False

    def run(self) -> None:
        """pytest's own session loop from collection on (as _pytest.main.wrap_session and _main
        do it after the collection): this process's capture started, the checks run (the plugin's
        pytest_runtestloop), the session finished and pytest unconfigured, whatever happens."""
        from _pytest import outcomes
        from _pytest._code import ExceptionInfo
        from _pytest.main import ExitCode

        from .grade import VERSION_ENV

        config, session = self.config, self.session
        self.ran = True
        old_version = os.environ.get(VERSION_ENV)
        os.environ[VERSION_ENV] = _pytest_version()
        try:
            try:
                capman = config.pluginmanager.getplugin("capturemanager")
                if capman is not None:        # (as its pytest_load_initial_conftests leaves it)
                    capman.start_global_capturing()
                    capman.suspend_global_capture()
                config.hook.pytest_runtestloop(session=session)
                session.exitstatus = (ExitCode.TESTS_FAILED if session.testsfailed else
                                      ExitCode.NO_TESTS_COLLECTED if session.testscollected == 0 else ExitCode.OK)
            except outcomes.Failed:
                session.exitstatus = ExitCode.TESTS_FAILED
            except (KeyboardInterrupt, outcomes.Exit):
                session.exitstatus = ExitCode.INTERRUPTED
                config.hook.pytest_keyboard_interrupt(excinfo=ExceptionInfo.from_current())
            except BaseException:                                   # noqa: BLE001 -- as pytest does
                session.exitstatus = ExitCode.INTERNAL_ERROR
                config.notify_exception(ExceptionInfo.from_current(), config.option)
        finally:
            os.chdir(session.startpath)
            try:
                config.hook.pytest_sessionfinish(session=session, exitstatus=session.exitstatus)
            finally:
                config._ensure_unconfigure()
                _put_back(VERSION_ENV, old_version)

    def discard(self) -> None:
        try:
            self.config._ensure_unconfigure()
        except Exception:                             # noqa: BLE001 -- a copy no session will use
            pass


_PREPARED: list[Prepared] = []


def _pytest_version() -> str:
    import pytest

    return pytest.__version__


def _put_back(name: str, value: str | None) -> None:
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value


def _prepared_key(spec: Assignment, stage: str | int, public_only: bool) -> tuple:
    from .grade import PYTEST_INI

    return (str(spec.suites_dir), str(stage), tuple(str(f) for f in spec.suite_files(stage)), public_only,
            _source_stamp_of(str(PYTEST_INI)), _source_stamp_of(str(spec.table)))



def prepare_session(spec: Assignment, stage: str | int = "all") -> bool:
    """After preload_session, in grade-all's fork server: configure pytest, start a grading session
    of SPEC's STAGE and collect its suites, as a worker's session does before its first check
    (pytest.main up to pytest_runtestloop), so each worker forked after it runs that session
    instead of making its own (~50 ms of CPU a worker, on the first row's path).  The plugin is
    the session's GradingPlugin without a reference or submissions (collection needs neither:
    take_prepared gives it them in the worker).  Nothing here is per process: pytest's global
    capture is stopped again (each worker starts its own: Prepared.run), the temporary folders
    are made on first use, the session's items and the plugin are copied by the fork.

    All or nothing: anything raised or reported while collecting, and no session is kept (a
    worker then makes its own as before and reports what went wrong).  True when one is kept."""
    from _pytest.config import _prepareconfig
    from _pytest.main import Session

    from ..engine.plugin import GradingPlugin
    from .grade import AUTOLOAD, VERSION_ENV, pytest_env, session_args

    _PREPARED.clear()
    files = [str(f) for f in spec.suite_files(stage)]
    if not files:
        return False
    before = set(sys.modules)
    plugin = GradingPlugin(spec, None)
    config = session = None
    old_cwd = os.getcwd()
    version = _pytest_version()
    kept = False
    try:
        with pytest_env(**{AUTOLOAD: "1", VERSION_ENV: version}):   # (the caller's pytest options are not ours)
            config = _prepareconfig(session_args(files, spec), [plugin])
            session = Session.from_config(config)
            session.exitstatus = 0
            config._do_configure()
            config.hook.pytest_sessionstart(session=session)
            config.hook.pytest_collection(session=session)
            capman = config.pluginmanager.getplugin("capturemanager")
            if capman is not None:
                capman.stop_global_capturing()       # (its files and saved descriptors are this process's)
            kept = not (plugin.collection_errors or session.shouldfail or session.shouldstop)
            if kept:
                plugin.read_checks(session.items)   # (each check's markers: ~15 ms a worker otherwise)
    except Exception:                                 # noqa: BLE001 -- the worker meets it again itself
        kept = False
    finally:
        os.chdir(old_cwd)
        if not kept and config is not None:
            Prepared((), spec, config, session, plugin).discard()
    if not kept:
        return False
    stamps = _course_stamps(spec, list(sys.modules))     # the course's modules its items run (imported here or before)
    for name, stamp in stamps.items():
        if name not in before:                        # (a conftest.py: dropped when stale, like the suites)
            _PRELOADED[name] = stamp
    _PREPARED.append(Prepared(_prepared_key(spec, stage, False), spec, config, session, plugin, stamps))
    return True


def take_prepared(spec: Assignment, stage: str | int, public_only: bool) -> Prepared | None:
    """The fork server's prepared session (prepare_session), in a worker forked after it, if it
    is SPEC's STAGE and still fresh (the course's modules it collected, the table and the engine's
    pytest.ini unchanged on disk, SPEC equal to the one it was prepared with), else None; once (a second
    session of the same worker makes its own: its items ran).  A stale one is dropped."""
    if not _PREPARED:
        return None
    prepared = _PREPARED.pop()
    if (prepared.pid != os.getpid() and prepared.key == _prepared_key(spec, stage, public_only)
            and prepared.spec == spec and prepared.spec.extra == spec.extra
            and all(sys.modules.get(name) is not None and _source_stamp(sys.modules[name]) == stamp
                    for name, stamp in prepared.stamps.items())):
        prepared.plugin.assignment = spec
        return prepared
    if prepared.pid != os.getpid():
        prepared.discard()
    else:
        _PREPARED.append(prepared)              # (the fork server's own: never run there)
    return None


PRELOAD_ENV = "AUTOGRADER_PRELOAD_SESSION"
