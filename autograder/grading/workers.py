"""grade-all's worker processes and progress line.

Workers are separate processes (forkserver), each calling grade() again and again so the
reference program and its cache are reused; a worker that dies or overruns its timeout is
replaced and its submission reported as the grader's fault, never the student's.
"""

from __future__ import annotations

import collections
import multiprocessing
import os
import signal
import sys
import time
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from multiprocessing.connection import wait as wait_any
from pathlib import Path
from typing import Any

from ..assignment import load_assignment
from ..engine.results import GradeReport
from .discover import Entry

# Test hook (the kit's own tests only): the worker dies hard on the submission with this id.
CRASH_ENV = "AUTOGRADER_TEST_CRASH_ON"
# Measuring hook (the bench): the parent and every worker append their phases and CPU here, one
# JSON object a line ({"event", "at": epoch seconds, "pid", "cpu", ...}); see trace().
TRACE_ENV = "AUTOGRADER_BATCH_TRACE"


def trace(event: str, **fields: Any) -> None:
    """Append EVENT with this process's CPU so far (its threads included) to $AUTOGRADER_BATCH_TRACE,
    if set: one write of one short line with O_APPEND, so the processes' lines never interleave."""
    path = os.environ.get(TRACE_ENV)
    if not path:
        return
    import json

    line = json.dumps({"event": event, "at": time.time(), "pid": os.getpid(), "cpu": time.process_time(),
                       **fields}) + "\n"
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            os.write(fd, line.encode())
        finally:
            os.close(fd)
    except OSError:
        pass


# --- workers --------------------------------------------------------------------------------------

def _children_cpu() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _worker_main(conn, assignment: str, stage: str, log_path: str, hidden: list[str] | None = None) -> None:
    """A worker: grade submissions sent over CONN until told to stop (None) or the parent is gone.

    One pytest session (grade_stream) serves every submission this worker gets: the suites are
    collected once and the reference's cache is shared.  The session pulls the next path from a
    blocking iterator over CONN and each report goes back the moment it is ready.  Should the
    session itself end early (a grader bug), the submission it was on gets an error row and a
    new session takes the next one.
    """
    trace("worker-start")
    signal.signal(signal.SIGINT, signal.SIG_IGN)               # Ctrl-C is the parent's business
    stopping = {"now": False}

    def _stop(signum, frame):
        stopping["now"] = True
        raise KeyboardInterrupt                                 # ends the pytest session; sandboxes get closed

    signal.signal(signal.SIGTERM, _stop)
    log = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(log, 1)
    os.dup2(log, 2)
    from ..engine import reporters
    from ..engine.program import close_references
    from .grade import grade_stream
    from .gradebook import Stored

    spec = load_assignment(assignment)
    crash_on = os.environ.get(CRASH_ENV)
    tracing = bool(os.environ.get(TRACE_ENV))
    state: dict[str, Any] = {"sid": None, "done": False, "pulled": 0}

    def send(sid: str, result: dict[str, Any]) -> None:
        result["wall"] = time.perf_counter() - state["wall0"]
        result["cpu"] = time.process_time() - state["cpu0"] + _children_cpu() - state["kids0"]
        sys.stdout.flush()
        sys.stderr.flush()
        state["sid"] = None
        conn.send((sid, result))

    def tasks():
        """The submissions, one at a time, as the parent sends them (blocks in between)."""
        trace("worker-ready")                                   # its session has collected the suites
        while True:
            asked = time.perf_counter()
            try:
                task = conn.recv()
            except (EOFError, OSError):
                task = None
            if tracing and task is not None:                    # how long it waited for the parent
                trace("task", waited=time.perf_counter() - asked, first=state["pulled"] == 0)
            if task is None:
                state["done"] = True
                return
            sid, path, info = task
            print(f"--- {time.strftime('%H:%M:%S')} grading {sid} ({path})", flush=True)
            if crash_on and sid == crash_on:
                os._exit(3)
            state.update(sid=sid, info=info, wall0=time.perf_counter(), cpu0=time.process_time(), kids0=_children_cpu())
            state["pulled"] += 1
            conn.send((sid, {"begin": True}))     # the --timeout clock starts now, not at process start-up
            yield path

    def deliver(report: GradeReport) -> None:
        """The grade as the gradebook stores it (JSON made here once: the parent stores it as is)."""
        report.submission = state["sid"]
        feedback = reporters.to_text(report)
        report.submission_info = dict(state["info"])       # what the LMS export said (the exports read it)
        send(state["sid"], {"ok": True, "stored": Stored.of(report.to_dict()), "feedback": feedback})

    def failed(why: str) -> dict[str, Any]:
        return {"ok": False, "error": f"the grader failed on this submission ({why}); it is not the student's fault"}

    stream = tasks()
    try:
        while not state["done"] and not stopping["now"]:
            pulled, fault = state["pulled"], None
            try:
                grade_stream(stream, deliver, spec, stage, extra_hidden=hidden)
            except KeyboardInterrupt:
                break
            except Exception as err:                            # e.g. GraderFault: the suites do not load
                traceback.print_exc()
                fault = f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"
            if stopping["now"]:                                 # SIGTERM: the parent gave up on this worker
                break
            if state["sid"] is not None:                        # the session ended in the middle of one
                send(state["sid"], failed(fault or "the grading session stopped; see the worker log"))
            if state["pulled"] == pulled and not state["done"]:
                # The session could not take a single submission: answer the rest with the reason.
                why = fault or "the grading session does not start; see the worker log"
                for _ in stream:
                    send(state["sid"], failed(why))
    finally:
        close_references()
        # Its template and every sandbox life have been reaped by now: CHILDREN is the sandbox side.
        trace("worker-exit", graded=state["pulled"], children=_children_cpu())


@dataclass
class _Worker:
    process: Any
    conn: Any
    task: Entry | None = None
    started: float = 0.0
    log: Path = Path()
    released: bool = False        # told to stop (release)


class WorkerPool:
    """N grading processes fed one submission at a time; a crashed or hung worker is replaced."""

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
            self.ctx.set_forkserver_preload(["autograder.grading.grade", "autograder.engine.plugin"])
        self.workers: list[_Worker] = []
        self._started = 0

    def _spawn(self) -> _Worker:
        self._started += 1
        parent, child = self.ctx.Pipe()
        log = self.log_dir / f"worker-{self._started}.log"          # one log per worker process
        process = self.ctx.Process(target=_worker_main,
                                   args=(child, self.assignment, self.stage, str(log), self.hidden),
                                   name=f"grade-all-worker-{self._started}", daemon=True)
        process.start()
        child.close()
        return _Worker(process, parent, log=log)

    def run(self, entries: Iterable[Entry],
            on_result: Callable[[Entry, dict[str, Any]], None]) -> None:
        """Grade ENTRIES; call ON_RESULT(entry, result) in this process as each one finishes."""
        pending = collections.deque(entries)
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self.workers = [self._spawn() for _ in range(min(self.jobs, len(pending)))]
        while pending or any(w.task for w in self.workers):
            for i in range(len(self.workers)):
                self._feed(i, pending)
            busy = [w for w in self.workers if w.task]
            if not busy:
                continue
            wait_any([w.conn for w in busy] + [w.process.sentinel for w in busy], timeout=0.5)
            # Every worker that finished gets its next submission first; the results are stored after
            # (~4 ms each: the row and its feedback files), so no worker waits on another's bookkeeping.
            finished: list[tuple[Entry, dict[str, Any]]] = []
            for i, worker in enumerate(self.workers):
                entry = worker.task
                if entry is None:
                    continue
                message = None
                try:
                    if worker.conn.poll():
                        message = worker.conn.recv()
                except (EOFError, OSError):
                    message = None
                if message is not None and message[1].get("begin"):
                    worker.started = time.monotonic()       # start-up and suite loading are not its time
                elif message is not None:
                    worker.task = None
                    self._feed(i, pending)          # its next submission first, then our bookkeeping
                    finished.append((entry, message[1]))
                elif not worker.process.is_alive():
                    code = worker.process.exitcode
                    log = worker.log
                    self.workers[i] = self._replace(worker)
                    finished.append((entry, {"ok": False, "crashed": True, "wall": time.monotonic() - worker.started,
                                             "cpu": 0.0, "error": f"the grader crashed on this submission (worker "
                                             f"exit code {code}; see {log.name}); it is not the student's fault"}))
                elif time.monotonic() - worker.started > self.timeout:
                    self.workers[i] = self._replace(worker, kill=True)
                    finished.append((entry, {"ok": False, "crashed": True, "wall": self.timeout, "cpu": 0.0,
                                             "error": f"grading took longer than {self.timeout:g} s and was stopped"}))
            for entry, result in finished:
                on_result(entry, result)

    def _feed(self, i: int, pending: collections.deque) -> None:
        """Send worker I the next pending submission if it is idle (a dead one is replaced first)."""
        worker = self.workers[i]
        if worker.task is not None or not pending:
            return
        if not worker.process.is_alive():
            worker = self.workers[i] = self._replace(worker)
        entry = pending.popleft()
        try:
            worker.conn.send((entry.id, str(entry.path), entry.info))
        except (BrokenPipeError, OSError):
            pending.appendleft(entry)
            self.workers[i] = self._replace(worker)
            return
        worker.task, worker.started = entry, time.monotonic()

    def _replace(self, worker: _Worker, kill: bool = False) -> _Worker:
        self._stop(worker, kill=kill)
        return self._spawn()

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
        finds the submissions; the workers are forked from it when run() begins."""
        if self.ctx.get_start_method() == "forkserver":
            from multiprocessing import forkserver

            forkserver.ensure_running()

    def release(self) -> None:
        """Tell the idle workers to stop (they end their sessions and close their sandboxes) without
        waiting for them: close() then waits, after the caller's own work (the exports)."""
        for worker in self.workers:
            if worker.task is None and not worker.released:
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
            self._stop(worker, kill=now or worker.task is not None, grace=5.0 if not now else 3.0)
        self.workers = []


# --- progress -------------------------------------------------------------------------------------

def _clock(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}" if seconds >= 3600 \
        else f"{seconds // 60}:{seconds % 60:02d}"


class Progress:
    """A progress bar with rate and ETA on a terminal; a plain line every 10% (or 10 s) otherwise."""

    def __init__(self, total: int, stream=None, width: int = 28, enabled: bool = True):
        self.total = total
        self.stream = stream or sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.width = width
        self.enabled = enabled and total > 0
        self.started = time.monotonic()
        self.done = 0
        self._last_draw = 0.0
        self._last_tenth = -1

    def line(self, current: str = "") -> str:
        elapsed = time.monotonic() - self.started
        rate = self.done / elapsed if elapsed > 0 else 0.0
        eta = (self.total - self.done) / rate if rate > 0 else None
        pct = 100 * self.done / self.total if self.total else 100.0
        eta_text = _clock(eta) if eta is not None else "--:--"
        text = f"{self.done}/{self.total} {pct:3.0f}%  {rate:.1f}/s  ETA {eta_text}"
        if self.tty:
            filled = int(self.width * self.done / self.total) if self.total else self.width
            text = f"[{'#' * filled}{'.' * (self.width - filled)}] {text}  {current[:24]}"
        return text

    def advance(self, current: str = "") -> None:
        self.done += 1
        self.draw(current)

    def draw(self, current: str = "", force: bool = False) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if self.tty:
            if force or now - self._last_draw > 0.1 or self.done == self.total:
                self.stream.write("\r\x1b[K" + self.line(current))
                self.stream.flush()
                self._last_draw = now
            return
        tenth = int(10 * self.done / self.total)
        if force or tenth != self._last_tenth or now - self._last_draw > 10:
            self.stream.write("grade-all: " + self.line() + "\n")
            self.stream.flush()
            self._last_tenth, self._last_draw = tenth, now

    def close(self) -> None:
        if self.enabled and self.tty:
            self.stream.write("\n")
            self.stream.flush()


