"""grade-all's worker pool (the parent's side; each worker's own side: worker.py).

Workers are separate processes (forkserver), each running one grading session (grade_stream)
over the submissions it is sent, so the suites, the reference program and its cache are reused;
each is sent its next submission while it grades one, and loads it ahead.  A worker that dies
or overruns its timeout is replaced and its submission reported as the grader's fault, never
the student's.
"""

from __future__ import annotations

import collections
import multiprocessing
import os
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from multiprocessing.connection import wait as wait_any
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .early import FORK_SERVER_PRELOAD
from .tracing import trace

if TYPE_CHECKING:         # (types only: launch is imported where templates are booted, discover by the caller)
    from ..engine.launch import Booted
    from .discover import Entry


def _without_resource_tracker() -> None:
    """multiprocessing's resource tracker not started: its pipe (which the fork server and every
    worker are handed) is /dev/null.  The tracker is a process of its own (an interpreter started
    with `site`: ~25-30 ms of CPU a batch) that unlinks the named semaphores and shared memory a
    process leaves behind when it dies; grade-all makes none (its processes talk over pipes and
    sockets), so it would only read the fork server's probes.  Only where this Python's tracker is
    as expected (a private attribute: `_fd`, None while none was started) and none runs yet; any
    other, and the tracker starts as before.  (Should one of our processes make a semaphore some
    day, a crash would leave it in /dev/shm: test_batch checks that a batch starts no tracker.)"""
    from multiprocessing import resource_tracker

    tracker = getattr(resource_tracker, "_resource_tracker", None)
    if tracker is None or not hasattr(tracker, "_check_alive") or getattr(tracker, "_fd", False) is not None:
        return
    try:
        tracker._fd = os.open(os.devnull, os.O_WRONLY | os.O_CLOEXEC)
    except OSError:
        pass


PIN_ENV = "AUTOGRADER_PIN"      # "0": never pin the workers to cores (cores_for)
BOOT_ENV = "AUTOGRADER_BOOT_TEMPLATES"     # "0": each worker boots its own template (WorkerPool._boot_templates)


def _fork_server_data() -> dict[str, Any]:
    """What forkserver.ensure_running passes a fork server it starts (main_path, sys_path): the same
    to one forked early (early.hand_over)."""
    from multiprocessing import spawn

    data = spawn.get_preparation_data("ignore")
    return {key: value for key, value in data.items() if key in ("main_path", "sys_path")}


def cores_for(jobs: int, allowed: set[int] | None = None) -> list[int] | None:
    """The CPUs JOBS workers are pinned to, one each, or None (not pinned).  Only when there is a
    worker for every CPU this process may use (ALLOWED: its affinity), at least two: a worker and
    its sandboxes pass every request back and forth, and on one core each hand-over is a switch,
    where across cores it is a wake-up of the other (an inter-processor interrupt, charged as
    CPU): `grade-all --jobs 2` of the honest 39 on 2 cores, 6 alternating pairs on a quiet
    machine, 2.58 -> 2.43 s (median; pinned faster in all 6).  With fewer workers than CPUs the
    scheduler stays free to move them (other work on the machine).  $AUTOGRADER_PIN=0: never."""
    if os.environ.get(PIN_ENV) == "0" or not hasattr(os, "sched_setaffinity"):
        return None
    try:
        cpus = sorted(os.sched_getaffinity(0) if allowed is None else allowed)
    except OSError:
        return None
    return cpus if jobs >= 2 and jobs == len(cpus) else None


@dataclass
class _Worker:
    process: Any
    conn: Any
    tasks: collections.deque = field(default_factory=collections.deque)   # sent, not answered, in order:
    #                               the first is the one it grades, a second one it may load ahead
    started: float = 0.0          # when the first one's clock started (its "begin")
    log: Path = Path()
    released: bool = False        # told to stop (release)
    alone: bool = False           # grading a suspect of a crash: nothing sent ahead of it
    core: int | None = None       # the CPU it and its sandboxes run on (cores_for), None: any


class WorkerPool:
    """N grading processes, each sent its next submission while it grades the current one (so it
    can load it ahead, grade.grade_stream); a crashed or hung worker is replaced."""

    def __init__(self, jobs: int, assignment: str, stage: str, log_dir: Path, timeout: float,
                 hidden: list[str] | None = None):
        self.jobs = max(1, jobs)
        self.hidden = list(hidden or [])
        self.assignment = assignment
        self.stage = stage
        self.log_dir = log_dir
        self.timeout = timeout
        method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
        self.ctx = multiprocessing.get_context(method)
        if method == "forkserver":
            # (grading.preload: the suites and pytest's plugins a session imports, for ASSIGNMENT's STAGE;
            # the worker's module and the reporters: what _worker_main imports, ~14 ms of every worker's start)
            self.ctx.set_forkserver_preload(FORK_SERVER_PRELOAD)
        self.workers: list[_Worker] = []
        self._started = 0
        self.cores = cores_for(self.jobs)
        self.suspects: set[str] = set()     # ids in a worker that died with two: each is graded alone
        self.booted: list[tuple[int | None, Booted]] | None = None   # (core, template) booted for the
        #                                     first workers (start), not handed to one yet
        self.handed: list[Booted] = []      # the others: handed to a worker, or let go; reaped by close()

    def _spawn(self, core: int | None = None) -> _Worker:
        # (imported here, not with this module: the worker's module and the engine's results are not
        # on the way to the fork server's start, which grade-all makes first: ~5 ms of its head)
        from .worker import _worker_main

        self._started += 1
        if core is None and self.cores:
            core = self.cores[(self._started - 1) % len(self.cores)]
        parent, child = self.ctx.Pipe()
        log = self.log_dir / f"worker-{self._started}.log"          # one log per worker process
        booted = self._booted_for(core)
        process = self.ctx.Process(target=_worker_main,
                                   args=(child, self.assignment, self.stage, str(log), self.hidden, core,
                                         booted.handoff() if booted is not None else None,
                                         booted.root if booted is not None else None),
                                   name=f"grade-all-worker-{self._started}", daemon=True)
        try:
            process.start()
        finally:
            if booted is not None:      # (the worker has its own copy of the socket now, or never will)
                booted.let_go()
                booted.worker = process.pid
        child.close()
        return _Worker(process, parent, log=log, core=core)

    def _booted_for(self, core: int | None) -> Booted | None:
        """A template booted for a worker on CORE (start), taken: each goes to one worker only."""
        for i, (on, booted) in enumerate(self.booted or []):
            if on == core:
                del self.booted[i]
                self.handed.append(booted)
                return booted
        return None

    def _boot_templates(self) -> None:
        """Boot the sandbox template of each of the first workers now (launch.Booted: a new
        interpreter loading the harness, ~25 ms of CPU, 40-90 ms of wall), while the fork server
        loads pytest and the suites, so that a worker's first sandbox does not wait for one to boot.
        Only where a session forks its sandboxes from a template (as root, on Linux; where there
        is no pid namespace the worker's session does not use it and lets it go).  Each is pinned
        to its worker's CPU (cores_for); this process never asks one for anything, and reaps them."""
        self.booted = []
        if not self._boots_templates():
            return
        from ..engine.launch import Booted

        for i in range(self.jobs):
            core = self.cores[i % len(self.cores)] if self.cores else None
            try:
                self.booted.append((core, Booted(core)))
            except OSError:
                break
        trace("templates-booted", count=len(self.booted))

    def prepare_roots(self, path: str | Path) -> None:
        """Ask each template booted for a worker (not handed over yet) to fork now the root template
        a student root of its worker's first submission comes from (roots.ask_root_template): its
        minimal root is built while the fork server boots, not on the way to the first row (~25 ms
        of wall of each worker's first submission on a quiet machine).  For a submission at PATH
        (the batch's hidden folders and PATH's own: hidden.py); a worker whose first student's
        setup differs, or whose session does not fork student roots, has it let go at its
        template's end.  Once per template; best effort (not asked: the worker builds its own)."""
        waiting = [booted for _, booted in self.booted or [] if booted.root is None]
        if not waiting:
            return
        from ..engine.roots import ask_root_template
        from .hidden import hidden_paths, submission_home

        hidden = hidden_paths(self.hidden) + submission_home(path)
        for booted in waiting:
            try:
                booted.root = ask_root_template(booted.sock, hidden)
            except OSError:
                continue
        trace("roots-asked", count=sum(booted.root is not None for _, booted in self.booted))

    @staticmethod
    def _boots_templates() -> bool:
        return os.geteuid() == 0 and hasattr(os, "pidfd_open") and os.environ.get(BOOT_ENV) != "0"

    def _let_go_templates(self) -> None:
        """The templates booted for workers that were not started (fewer submissions than --jobs)."""
        for _, booted in self.booted or []:
            booted.let_go()
            self.handed.append(booted)
        self.booted = []

    def _reap_templates(self, timeout: float) -> None:
        """Reap every template booted here, its worker stopped (it ends with the worker's session,
        or at its end of file once the worker is gone): its CPU and that of the sandboxes it reaped
        is the workers' sandboxes' (traced for the bench: it is counted with this process's children)."""
        self._let_go_templates()
        for booted in self.handed:
            cpu = booted.reap(timeout)
            trace("template-reaped", worker=booted.worker, children=cpu or 0.0)
        self.handed = []

    def run(self, entries: Iterable[Entry],
            on_result: Callable[[Entry, dict[str, Any]], None]) -> None:
        """Grade ENTRIES; call ON_RESULT(entry, result) in this process as each one finishes."""
        pending = collections.deque(entries)
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self.workers = [self._spawn() for _ in range(min(self.jobs, len(pending)))]
        self._let_go_templates()
        while pending or any(w.tasks for w in self.workers):
            for ahead in (False, True):         # every idle worker its first one, then the second ones
                for i in range(len(self.workers)):
                    self._feed(i, pending, ahead)
            busy = [w for w in self.workers if w.tasks]
            if not busy:
                continue
            wait_any([w.conn for w in busy] + [w.process.sentinel for w in busy], timeout=0.5)
            # Every worker that finished gets its next submission first; the results are stored after
            # (~4 ms each: the row and its feedback files), so no worker waits on another's bookkeeping.
            finished: list[tuple[Entry, dict[str, Any]]] = []
            for i, worker in enumerate(self.workers):
                if not worker.tasks:
                    continue
                # Every message that has come, not one a wake-up: a row is followed at once by the
                # next one's "begin" (read here, not by another pass round the loop).
                received = False
                while worker.tasks and self.workers[i] is worker and (message := self._receive(worker)) is not None:
                    received = True
                    if message[1].get("begin"):
                        worker.started = time.monotonic()       # start-up and suite loading are not its time
                        continue
                    # (a worker answers in the order it was sent; by id all the same)
                    entry = next((e for e in worker.tasks if e.id == message[0]), worker.tasks[0])
                    worker.tasks.remove(entry)
                    worker.started, worker.alone = time.monotonic(), False   # (the next one's: reset at its begin)
                    self._feed(i, pending)          # its next submission first, then our bookkeeping
                    finished.append((entry, message[1]))
                if received or not worker.tasks:
                    continue
                if not worker.process.is_alive():
                    code = worker.process.exitcode
                    self.workers[i] = self._replace(worker)
                    if len(worker.tasks) > 1:
                        # It died holding two (one loaded ahead): which one it died of is not known.
                        # Both go back, first in line, and each is graded alone: the one it was
                        # gets its 'crashed' row then, the other its grade; neither is lost.
                        self.suspects.update(e.id for e in worker.tasks)
                        pending.extendleft(reversed(worker.tasks))
                        continue
                    entry = worker.tasks[0]
                    finished.append((entry, {"ok": False, "crashed": True, "wall": time.monotonic() - worker.started,
                                             "cpu": 0.0, "error": f"the grader crashed on this submission (worker "
                                             f"exit code {code}; see {worker.log.name}); it is not the student's "
                                             "fault"}))
                elif time.monotonic() - worker.started > self.timeout:
                    self.workers[i] = self._replace(worker, kill=True)
                    pending.extendleft(reversed(list(worker.tasks)[1:]))    # loaded ahead: not its fault
                    finished.append((worker.tasks[0], {"ok": False, "crashed": True, "wall": self.timeout, "cpu": 0.0,
                                                       "error": f"grading took longer than {self.timeout:g} s and "
                                                       "was stopped"}))
            for entry, result in finished:
                on_result(entry, result)
            if not pending:
                # Nothing left to send: an idle worker winds down now (its session and sandboxes
                # stop) while the others finish their last grades, not after them with the exports.
                # Should a submission come back (a crash), _feed starts a new worker for it.
                self.release()

    def _feed(self, i: int, pending: collections.deque, ahead: bool = True) -> None:
        """Send worker I the next pending submission if it is idle (a dead one is replaced first),
        and (AHEAD) a second one to load ahead while it grades the first, unless pending is short
        (the last ones go to whichever worker is free first) or either is a suspect of a crash."""
        worker = self.workers[i]
        if not pending:
            return
        if not worker.tasks:
            if worker.released or not worker.process.is_alive():
                worker = self.workers[i] = self._replace(worker)    # (a released one is winding down)
            if not self._send(worker, pending):
                self.workers[i] = self._replace(worker)
                return
            worker.started, worker.alone = time.monotonic(), worker.tasks[0].id in self.suspects
        if (ahead and len(worker.tasks) == 1 and not worker.alone and len(pending) >= self.jobs
                and pending[0].id not in self.suspects):
            self._send(worker, pending)      # (a worker gone meanwhile: found dead with two, above)

    @staticmethod
    def _receive(worker: _Worker) -> Any:
        """WORKER's next message if one has come (never blocks), else None (also when it is gone)."""
        try:
            return worker.conn.recv() if worker.conn.poll() else None
        except (EOFError, OSError):
            return None

    @staticmethod
    def _send(worker: _Worker, pending: collections.deque) -> bool:
        entry = pending.popleft()
        try:
            worker.conn.send((entry.id, str(entry.path), entry.info))
        except (BrokenPipeError, OSError):
            pending.appendleft(entry)
            return False
        worker.tasks.append(entry)
        return True

    def _replace(self, worker: _Worker, kill: bool = False) -> _Worker:
        self._stop(worker, kill=kill)
        return self._spawn(worker.core)         # (its core: the others keep theirs)

    @staticmethod
    def _stop(worker: _Worker, kill: bool = False, grace: float = 5.0) -> None:
        if kill and worker.process.is_alive():
            worker.process.terminate()
        worker.process.join(grace)
        if worker.process.is_alive():
            worker.process.kill()
            worker.process.join(1)
        worker.conn.close()

    def start(self) -> None:
        """Start the fork server now (it imports pytest and the engine: ~0.3 s) while the caller
        finds the submissions; the workers are forked from it when run() begins.

        Its output goes to LOG_DIR/fork-server.log, not to ours: it outlives this process by its
        own exit (~50 ms: an interpreter with pytest loaded), and a reader of our output to its
        end (`grade-all | tee`, CI, the bench) would wait for that.  (A worker writes to its own
        log from its first line; what it might print before, and the resource tracker's warnings,
        land in this one.)  Only while no other thread runs: for that moment this process's own
        descriptors 1 and 2 point at the log."""
        if self.ctx.get_start_method() != "forkserver":
            return
        import threading

        saved: list[int] = []
        if threading.active_count() == 1:
            try:
                for fd in (1, 2):
                    saved.append(os.dup(fd))
            except OSError:                  # no stdout or stderr to keep: nothing waits on them
                for fd in saved:
                    os.close(fd)
                saved = []
        log = -1
        if saved:
            try:
                self.log_dir.mkdir(parents=True, exist_ok=True)
                log = os.open(self.log_dir / "fork-server.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
            except OSError:                  # no log: it writes where we do, as before
                for fd in saved:
                    os.close(fd)
        if log < 0:
            self._ensure_running()
            if self.booted is None:
                self._boot_templates()
            return
        for stream in (sys.stdout, sys.stderr):       # (what this process buffered stays ours)
            try:
                stream.flush()
            except (AttributeError, OSError, ValueError):
                pass
        try:
            os.dup2(log, 1)
            os.dup2(log, 2)
            self._ensure_running()
        finally:
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            for fd in (log, *saved):
                os.close(fd)
        if self.booted is None:
            self._boot_templates()

    def _ensure_running(self) -> None:
        """Start the fork server (if not yet), telling it which session its workers will run
        (preloading.preload_from_environment reads it, in the fork server only: the variable is ours
        again at once)."""
        import json
        from multiprocessing import forkserver

        from .. import started_elsewhere
        from . import early
        from .environ import scoped
        from .preloading import PRELOAD_ENV

        wanted = {PRELOAD_ENV: json.dumps([self.assignment, self.stage, self._boots_templates()])}
        if started_elsewhere():     # its `python -c` would put the current folder first on its path
            wanted["PYTHONSAFEPATH"] = "1"      # (3.11+) while it imports multiprocessing (socket,
            #                         struct, selectors...) and the preload: a folder that may hold a
            #                         student's files (__main__.py keeps it off ours)
        with scoped(wanted):
            _without_resource_tracker()
            if forkserver._forkserver._forkserver_pid is None and early.hand_over(
                    FORK_SERVER_PRELOAD, _fork_server_data(), (1, 2)):
                trace("forkserver-handed")
            forkserver.ensure_running()     # (the one forked early, if still alive; else a new one)

    def release(self) -> None:
        """Tell the idle workers to stop (they end their sessions and close their sandboxes) without
        waiting for them: close() then waits, after the caller's own work (the exports)."""
        for worker in self.workers:
            if not worker.tasks and not worker.released:
                worker.released = True
                try:
                    worker.conn.send(None)
                except (BrokenPipeError, OSError):
                    pass

    def close(self, now: bool = False) -> None:
        """Stop the workers: politely when idle, SIGTERM (then SIGKILL) when NOW or still busy."""
        if not now:
            self.release()
        for worker in self.workers:
            self._stop(worker, kill=now or bool(worker.tasks), grace=5.0 if not now else 3.0)
        self.workers = []
        self._reap_templates(timeout=5.0 if not now else 3.0)
