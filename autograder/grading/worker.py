"""One grade-all worker process (the pool's, workers.py): its main and its submissions.

A worker is a process of its own (forkserver) running one grading session (grade_stream) over the
submissions the parent sends it, so the suites, the reference program and its cache are reused;
it is sent its next submission while it grades one, and loads it ahead (_Tasks).  Each report
goes back the moment it is ready, with the submission's wall and CPU time.
"""

from __future__ import annotations

import collections
import os
import resource
import signal
import sys
import time
import traceback
from collections.abc import Callable
from typing import Any

from ..assignment import load_assignment
from ..engine.results import GradeReport
from .tracing import TRACE_ENV, trace

# Test hook (the kit's own tests only): the worker dies hard on the submission with this id.
CRASH_ENV = "AUTOGRADER_TEST_CRASH_ON"


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


class _Tasks:
    """A worker's submissions, in the order the parent sent them over CONN: an iterator of paths
    for grade_stream (it blocks while none has come) that can say whether the next one is
    already here (ready(): the stream then loads it ahead while the current one's checks run).

    The first path handed out and not yet delivered is the current submission: its clock (the
    parent's --timeout, the row's wall and CPU) starts when it becomes current, not when it is
    received or loaded ahead, so a submission's time is the worker's time from the previous
    one's delivery (or its arrival) to its own, and the times of a worker's rows do not overlap;
    nor does a row's time include its session's start (session_started: the clock of one taken
    early, while the session started, starts again then)."""

    def __init__(self, conn, on_current: Callable[[tuple], None], crash_on: str | None, tracing: bool):
        self.conn = conn
        self.on_current = on_current
        self.crash_on = crash_on
        self.tracing = tracing
        self.received: collections.deque[tuple] = collections.deque()   # (sid, path, info), not delivered
        self.handed = 0          # of those, handed to the session (the first is the current one)
        self.pulled = 0          # received so far in all
        self.taken = 0           # handed out so far in all
        self.answered = 0        # delivered so far in all
        self.done = False        # the parent said stop (None), or it is gone
        self.started = False     # the current session has asked for its first submission

    def __iter__(self) -> _Tasks:
        return self

    def ready(self) -> bool:
        """Would __next__ return at once?  (Never blocks; False once told to stop.)"""
        if len(self.received) > self.handed:
            return True
        if self.done:
            return False
        try:
            return self.conn.poll()
        except (EOFError, OSError):
            return False

    def __next__(self) -> str:
        if not self.taken and not self.received:
            trace("worker-ready")            # its session takes its first submission (early: as it starts)
        if len(self.received) <= self.handed:
            if self.done or not self._receive():
                raise StopIteration
        task = self.received[self.handed]
        self.handed += 1
        self.taken += 1
        if self.handed == 1:
            self.on_current(task)
        return task[1]

    def _receive(self) -> bool:
        asked = time.perf_counter()
        try:
            task = self.conn.recv()
        except (EOFError, OSError):
            task = None
        if self.tracing and task is not None:                    # how long it waited for the parent
            trace("task", waited=time.perf_counter() - asked, first=self.pulled == 0,
                  ahead=len(self.received) > 0)
        if task is None:
            self.done = True
            return False
        sid, path, _ = task
        print(f"--- {time.strftime('%H:%M:%S')} received {sid} ({path})", flush=True)
        if self.crash_on and sid == self.crash_on:
            os._exit(3)
        self.pulled += 1
        self.received.append(task)
        return True

    @property
    def current(self) -> tuple | None:
        return self.received[0] if self.handed else None

    def delivered(self) -> None:
        """The current submission's row went back: the next one handed out (loaded ahead) is current."""
        self.received.popleft()
        self.handed -= 1
        self.answered += 1
        if self.handed:
            self.on_current(self.received[0])

    def session_started(self) -> None:
        """The session has collected its suites and asks for its first submission (grade_stream)."""
        if not self.started:
            self.started = True
            if self.handed:                        # taken early: its clock starts now
                self.on_current(self.received[0])

    def rewind(self) -> None:
        """The session ended: what it had taken ahead (received, never delivered) is handed out
        again, in order, to the next session; nothing taken is lost or graded twice."""
        self.handed = min(self.handed, 1)          # (the current one, if any, is answered next)
        self.started = False


def _root_kept(key: str) -> bool:
    """Whether the adopted template holds the root template of KEY (for the trace)."""
    from ..engine.launch import _python, _templates

    template = _templates.get(_python())
    return template is not None and template.roots.get(key) is not None


def _worker_main(conn, assignment: str, stage: str, log_path: str, hidden: list[str] | None = None,
                 core: int | None = None, template: tuple | None = None, root: tuple | None = None) -> None:
    """A worker: grade submissions sent over CONN until told to stop (None) or the parent is gone.

    One pytest session (grade_stream) serves every submission this worker gets: the suites are
    collected once and the reference's cache is shared.  The session pulls the next path from
    CONN (_Tasks: blocking when none has come; the parent sends a second one early so the session
    can load it ahead) and each report goes back the moment it is ready.  Should the session
    itself end early (a grader bug), the submission it was on gets an error row and a new
    session takes the next one (and any it had taken ahead).  TEMPLATE: a sandbox template the
    parent booted for it (launch.Booted.handoff), its session's template (launch.adopt_template);
    ROOT: the root template the parent asked of it (Booted.root), that template's own.
    """
    if core is not None:
        try:        # (its sandboxes, forked from here, inherit it: see cores_for)
            os.sched_setaffinity(0, {core})
        except OSError:
            core = None
    rooted = False
    if template is not None:
        from ..engine.launch import adopt_template

        template = adopt_template(template, root)
        rooted = template and root is not None and _root_kept(root[0])
    elif root is not None:
        root[1].close()
    trace("worker-start", core=core, template=template, root=rooted)
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
    state: dict[str, Any] = {}

    def current(task: tuple) -> None:
        """TASK is the submission being graded now: its clock starts (the parent's too)."""
        sid, path, _ = task
        if state.get("sid") != sid:                             # (once: a clock started again is the same one)
            print(f"--- {time.strftime('%H:%M:%S')} grading {sid} ({path})", flush=True)
        state.update(sid=sid, wall0=time.perf_counter(), cpu0=time.process_time(), kids0=children_cpu())
        conn.send((sid, {"begin": True}))     # the --timeout clock starts now, not at process start-up

    stream = _Tasks(conn, current, os.environ.get(CRASH_ENV), bool(os.environ.get(TRACE_ENV)))

    def send(result: dict[str, Any]) -> None:
        sid = stream.current[0]
        result["wall"] = time.perf_counter() - state["wall0"]
        result["cpu"] = time.process_time() - state["cpu0"] + children_cpu() - state["kids0"]
        sys.stdout.flush()
        sys.stderr.flush()
        conn.send((sid, result))
        stream.delivered()

    def deliver(report: GradeReport) -> None:
        """The grade as the gradebook stores it (JSON made here once: the parent stores it as is)."""
        sid, _, info = stream.current
        report.submission = sid
        feedback = reporters.to_text(report)
        report.submission_info = dict(info)                # what the LMS export said (the exports read it)
        send({"ok": True, "stored": Stored.of(report.to_dict()), "feedback": feedback})

    def failed(why: str) -> dict[str, Any]:
        return {"ok": False, "error": f"the grader failed on this submission ({why}); it is not the student's fault"}

    try:
        while not stream.done and not stopping["now"]:
            taken, answered, fault = stream.taken, stream.answered, None
            try:
                grade_stream(stream, deliver, spec, stage, extra_hidden=hidden)
            except KeyboardInterrupt:
                break
            except Exception as err:                            # e.g. GraderFault: the suites do not load
                traceback.print_exc()
                fault = f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"
            if stopping["now"]:                                 # SIGTERM: the parent gave up on this worker
                break
            stream.rewind()
            if stream.current is not None:                      # the session ended in the middle of one
                send(failed(fault or "the grading session stopped; see the worker log"))
            if not stream.done and (stream.taken == taken or (fault is not None and stream.answered == answered + 1)):
                # The session could not grade a single submission (it failed before its first check:
                # the one it had taken early, if any, was answered above): the rest get the reason.
                # (Never a new session: a suite module that failed to import stays half-imported in
                # this process, and a new session would collect nothing from it: "0 / 0".)
                why = fault or "the grading session does not start; see the worker log"
                for _ in stream:
                    send(failed(why))
    finally:
        close_references()
        # Its template and every sandbox life have been reaped by now: CHILDREN is the sandbox side.
        # (and its own CPU split, page faults and context switches, and of its CPU the checks' and the
        # plans' run ahead: the grade; the rest is around it: the bench's reader's)
        from ..engine.plugin import CHECKS_CPU
        from .grade import PLANS_CPU

        usage = resource.getrusage(resource.RUSAGE_SELF)
        trace("worker-exit", graded=stream.pulled, children=children_cpu(), user=usage.ru_utime,
              system=usage.ru_stime, faults=usage.ru_minflt, switches=usage.ru_nvcsw + usage.ru_nivcsw,
              checks=CHECKS_CPU[0], plans=PLANS_CPU[0])
