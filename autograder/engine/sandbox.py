"""Run untrusted student code in a separate, limited process (grader side; stdlib only).

Student code never runs in the grader's process.  Each Sandbox owns one long-lived child
(the "zygote", see harness/) started lazily on the first request: it applies limits and
isolation, compiles the student source once and then forks one process per fresh request
(or serves fresh=False calls from one shared worker).  Requests go to it as JSON lines on
its stdin; results come back as JSON lines on a dedicated pipe.  The grader enforces the
wall-clock limit with poll(); on a timeout, crash or protocol garbage it kills the whole
sandbox and starts a new one for the next request.

Isolation as root: mount/net/pid/ipc/uts namespaces (no network; the filter makes no socket), a minimal root
(pivot_root: the Python runtime and system libraries read-only, private tmpfs /tmp, /var/tmp,
/dev/shm, nothing else; harness/isolation.py), a seccomp filter (seccomp.py), a cgroup per
sandbox (cgroup.py), a dedicated unprivileged uid per live sandbox (40000 + slot; a lock file
per slot keeps two graders apart), rlimits including NPROC, no_new_privs, a scrubbed
environment.  Not root: rlimits (no NPROC), the seccomp filter, its own session, a scrubbed
environment and a fresh temporary working folder.  Everything read back is bounded again
(bounds.py).  isolation() says what this machine allows;
Sandbox.applied says what a started sandbox actually got.

Inside a template_scope (a grading session), as root with a pid namespace, the child is not a
new interpreter but a fork of one pre-booted template process (harness/entry.py) that then
isolates itself the same way; saves starting Python and loading the harness per sandbox.  A
student's sandboxes (a Family: its own and its substitution variants) are forked by one student
root instead (roots.StudentRoot): the minimal root built and the source compiled once per student.

Deliberate details: fresh=False calls run in one long-lived "shared worker" forked from the
zygote, so the zygote itself never imports the student module and every fresh fork starts
clean.  The wall-clock limit is enforced in three layers: a soft timer in the request process
(keeps the partial transcript), a hard SIGKILL by the zygote GRACE later (trusted code that
never runs student code), and the grader's own poll() deadline SLACK after that, which kills
the whole sandbox.  Python runs with -s -S -P -B rather than -I (see launch._spawn).  Isolation is set
up by the child itself, as root, before any student code exists in it, then it drops to the
sandbox uid; the uid must only be able to read the standard library (checked; the runtime is
bind-mounted into the new root at its own path, so a Python under /root works).

This file is the client (Sandbox: run, run_batch, close); the rest lives by job in
life.py (its zygote started and stopped: the config, the spawn or fork, the cgroup, the cleanup),
protocol.py (Request, Limits, Outcome, the request line), outcomes.py (result line -> Outcome, its
messages), isolation.py (what the machine allows, uid slots, killing) and launch.py (spawning or
forking the sandbox process, the harness it is sent, the grader's end of its pipes).
"""

from __future__ import annotations

import os
import threading
import time
import weakref
from typing import Any

from . import guards
from .isolation import UID_BASE, descendants, isolation, uid_processes, use_python
from .launch import _Proc, template_scope
from .life import Starting, _State
from .outcomes import _build, _internal, _number, _secs, answer_by_bytes, parse_answer
from .protocol import (
    INTERNAL,
    STATUSES,
    Limits,
    Outcome,
    Request,
    _encode,
    _parse,
    _parse_trailer,
    _payload,
    _payload_data,
    planned_line,
)
from .roots import Family

# The sandbox's API, wherever each piece lives (protocol, outcomes, isolation, launch):
__all__ = ["INTERNAL", "STATUSES", "UID_BASE", "Limits", "Outcome", "Request", "Sandbox", "descendants", "isolation",
           "template_scope", "uid_processes", "use_python"]

GRACE = 0.5                      # the zygote kills a request this long after its soft timeout (harness/base.py GRACE)
SLACK = 2.0                      # ...and the grader gives up on the zygote this much later


# ---------------------------------------------------------------------------------------
# The sandbox.
# ---------------------------------------------------------------------------------------
class Sandbox(Starting):
    """One life's client: requests in, outcomes out (its zygote's start: life.Starting)."""

    def __init__(self, source: str, filename: str = "submission.py", limits: Limits | None = None,
                 hidden_paths: list[str] | None = None, reference: str | None = None):
        self.source = source
        self.reference = reference            # source whose functions requests may substitute
        self.filename = filename
        self.limits = limits or Limits()
        self.hidden_paths = [os.path.realpath(p) for p in hidden_paths or []]
        self.applied: dict[str, Any] = {}     # what the running sandbox got (filled when it starts)
        self.family: Family | None = None     # one student's sandboxes: forked by one student root
        self._state = _State()
        self._seq = 0
        self._wall_stopped = False       # the last request collected was stopped by its wall backstop
        self.retries = 0                 # requests run again at the long backstop (Sandbox._retry)
        self.strict = False              # after its first timeout: plain wall-clock limits (no backstop
        #                                  beyond the limit, no retry), so a program that spins through
        #                                  its limit costs the extra wall time of a loaded machine once
        self.starts = 0                       # zygotes started so far (a new one has a new shared worker)
        self.aside_end: object = None         # what the zygote said at the end of the last aside batch
        self._lock = threading.Lock()
        self._closed = False
        self._finalizer = weakref.finalize(self, self._state.shutdown)

    @property
    def wall_stopped(self) -> bool:
        """The last request collected was stopped by its wall-clock backstop under its CPU limit."""
        return self._wall_stopped

    @property
    def retry_state(self) -> tuple[bool, int, bool]:
        """What its requests so far set for the next ones (strict, retries, wall_stopped): kept and
        put back around runs whose outcomes may be dropped unseen (Plan's tries)."""
        return self.strict, self.retries, self._wall_stopped

    @retry_state.setter
    def retry_state(self, kept: tuple[bool, int, bool]) -> None:
        self.strict, self.retries, self._wall_stopped = kept

    @property
    def uid(self) -> int | None:
        """The dedicated uid of this sandbox (root only; None before the first request)."""
        return self._state.slot.uid if self._state.slot is not None else None

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._finalizer()

    def end_input(self) -> None:
        """close()'s start, to end several together (Program.close): a pid-1 zygote's input ends, and
        it exits (~20 ms of wall, mostly kernel teardown) while the caller ends others'; no requests."""
        with self._lock:
            self._closed = True
            self._state.end_input()

    def start(self) -> None:
        """Start the sandbox now, if it is not running, instead of at its first request: a caller
        can start one while another sandbox serves requests (Program.prefetch).  A start that
        fails leaves it stopped: the first request starts it again and reports what went wrong."""
        with self._lock:
            if not self._closed and self._state.proc is None:
                self._start()

    def run(self, request: Request, limit: float | None = None, longer: bool = False) -> Outcome:
        """Run one request.  Never raises on anything the student's code does.

        LIMIT (CPU seconds, below the request's own limit): a trial at that short limit, with its
        wall-clock backstop scaled from it; its timeout neither makes the sandbox strict nor is
        retried here (Program._trial decides whether it runs again at the request's own limit).
        Messages still name the request's own limit.  LONGER: a trial run again after its backstop
        stopped it under its CPU limit (the machine was busy), with a backstop retry_factor longer."""
        began = guards.wait_begins()
        try:
            outcome = self._run_one(request, limit, longer)
            if self.reference is not None:
                outcome.lent = True             # (engine/lent.py)
            return outcome
        finally:
            guards.wait_ends(began)

    def _run_one(self, request: Request, limit: float | None, longer: bool) -> Outcome:
        timeout = self._timeout(request)
        trial = limit is not None and limit < timeout
        with self._lock:
            if self._closed:
                raise RuntimeError("this Sandbox is closed")
            self._seq += 1
            if trial:
                wall = self._trial_wall(limit, retry=longer)
                payload = _payload(request, self._seq, limit, wall)
            else:
                wall = self._wall(timeout)
                payload = _payload(request, self._seq, timeout, wall)  # a bad Request: raises
            try:
                outcome = self._run(request, payload, timeout, wall, trial)
                return outcome if trial else self._retry(request, outcome, timeout)
            except Exception as e:                              # a grader bug must not blame the student
                self._state.stop()
                return _internal(f"{type(e).__name__}: {e}", 0.0)

    def _timeout(self, request: Request) -> float:
        """The request's limit: CPU seconds (its wall-clock backstop is _wall of it)."""
        return max(float(request.timeout if request.timeout is not None else self.limits.wall_s), 0.01)

    def _trial_wall(self, limit: float, retry: bool = False) -> float:
        """A trial's backstop: always the load-tolerant one (its timeout is not final)."""
        return self._backstop(limit, retry)

    def _wall(self, timeout: float, retry: bool = False) -> float:
        return timeout if self.strict else self._backstop(timeout, retry)

    def _backstop(self, limit: float, retry: bool) -> float:
        """LIMIT's wall-clock backstop under load; RETRY: the longer one of a run tried again."""
        return limit * max(self.limits.wall_factor, 1.0) * (max(self.limits.retry_factor, 1.0) if retry else 1.0)

    def _run(self, request: Request, payload: bytes, timeout: float, wall: float, trial: bool = False) -> Outcome:
        proc = self._proc()
        if isinstance(proc, Outcome):
            return proc
        proc.raw_tail.clear()
        proc.send(payload)
        outcome, _ = self._collect(proc, request, self._seq, timeout, time.monotonic(), wall=wall, trial=trial)
        return outcome

    def _retry(self, request: Request, outcome: Outcome, timeout: float) -> Outcome:
        """A request stopped by its wall-clock backstop while under its CPU limit (the machine was
        busy, not the program) runs once more with the long backstop before the timeout counts.
        (Deterministic: the same stdin, seed and dice; a fresh request runs in a fresh process.)"""
        if not self._wall_stopped or self.strict:
            self.strict = self.strict or outcome.status == "timeout"
            return outcome
        self._wall_stopped = False
        self.retries += 1
        self._seq += 1
        wall = self._wall(timeout, retry=True)
        again = self._run(request, _payload(request, self._seq, timeout, wall), timeout, wall)
        self._wall_stopped = False
        self.strict = again.status == "timeout"
        again.elapsed = round(again.elapsed + outcome.elapsed, 4)
        return again

    def _proc(self) -> _Proc | Outcome:
        proc = self._state.proc
        return self._start() if proc is None else proc

    def run_batch(self, requests: list[Request], reset_worker: bool = False,
                  budget: float | None = None, limits: list[float | None] | None = None,
                  planned: bool = False, aside: bool = False, public: int | None = None) -> list[Outcome]:
        """Run REQUESTS in one round trip (see _run_batch): the outcomes of the first of them, in
        their order, up to the first that did not run.  Where the sandbox has a fresh runner, the
        fresh requests are sent first, each kind in its own order (_fresh_first): the runner that
        served them then becomes the shared worker (harness Zygote.runner_as_worker), one request
        process for both instead of two forks.  A fresh request's outcome depends on nothing but
        itself, and the shared calls keep their order (the same history), so every outcome is the
        one it would be in the plan's order; a request sent after the first one that did not run
        in the plan's order is dropped (the caller runs the rest one by one, as before).
        PLANNED: REQUESTS are a plan's, never changed (their lines: protocol.planned_line).
        ASIDE: a tried run of shared calls (Program.prefetch): the sandbox runs them only where
        nothing ran yet but fresh requests (else none runs), in a worker of their own (the clean
        fresh runner there is, which is made the runner again at its end), and then leaves the
        sandbox as it was before them; the batch's end says how (aside_end).  PUBLIC: the first
        PUBLIC requests are public ones, the rest hidden (Program's "public first", ahead.py):
        every public one sent before every hidden one, the public fresh ones first, the hidden
        shared calls first where shared calls ran (the worker then made the runner again for the
        hidden fresh requests: _runner_at, harness Zygote.worker_as_runner)."""
        began = guards.wait_begins()
        try:
            outcomes = self._run_batch_ordered(requests, reset_worker, budget, limits, planned, aside, public)
            if self.reference is not None:
                for outcome in outcomes:
                    outcome.lent = True         # (engine/lent.py)
            return outcomes
        finally:
            guards.wait_ends(began)

    def _run_batch_ordered(self, requests: list[Request], reset_worker: bool, budget: float | None,
                           limits: list[float | None] | None, planned: bool, aside: bool,
                           public: int | None) -> list[Outcome]:
        self.aside_end = None
        if aside:
            return self._run_batch(requests, True, budget, limits, planned, aside=True)
        order = self._fresh_first(requests, budget, public)
        if order is None:
            return self._run_batch(requests, reset_worker, budget, limits, planned)
        t0 = time.monotonic()
        outcomes = self._run_batch([requests[i] for i in order], reset_worker, budget,
                                   [limits[i] for i in order] if limits else None, planned,
                                   runner_at=_runner_at([requests[i] for i in order]))
        got = dict(zip(order, outcomes))
        last = order[len(outcomes) - 1] if outcomes else -1
        before = [i for i in range(last) if i not in got]
        if before and self._state.proc is not None:
            # It stopped at a fresh request (unclean, or its trial ran out) with shared calls planned
            # before it not run yet: they run now, in order (the plan's order would have run them
            # before it), so the outcomes are the plan's up to that request, as without reordering.
            left = None if budget is None else budget - (time.monotonic() - t0)
            got.update(zip(before, self._run_batch([requests[i] for i in before], False, left,
                                                   [limits[i] for i in before] if limits else None, planned)))
        ran: list[Outcome] = []
        while len(ran) < len(requests) and len(ran) in got:
            ran.append(got[len(ran)])
        return ran

    def _fresh_first(self, requests: list[Request], budget: float | None = None,
                     public: int | None = None) -> list[int] | None:
        """The positions of REQUESTS with the fresh ones first (each kind in its order), within
        each group (the first PUBLIC ones, the rest: never one of the rest before one of those;
        the rest's shared calls first when shared calls end the first group: one switch from
        shared calls to fresh requests at most, where the worker is made the runner again),
        or None: send them as they are (no shared call before a fresh request; no fresh runner
        that could become the worker: every fresh request a fork of its own; or a program that
        has used half its time budget (BUDGET: what is left), whose batch could reach the budget:
        it stops at the same request as in the plan's order)."""
        n = len(requests)
        groups = (range(public), range(public, n)) if public and public < n else (range(n),)
        order: list[int] = []
        for group in groups:
            fresh = [i for i in group if requests[i].runs_fresh]
            shared = [i for i in group if not requests[i].runs_fresh]
            # After shared calls, the hidden ones first: the worker serves on with its history,
            # then is made the runner for the hidden fresh requests (_runner_at); one request
            # process for the life, the shared calls' history as in the plan's order.
            if order and not requests[order[-1]].runs_fresh:
                order += shared + fresh
            else:
                order += fresh + shared
        if order == list(range(n)) and _runner_at(requests) is None:
            return None
        if budget is not None and budget < self.limits.budget_s / 2:
            return None
        self.start()
        if not self.applied.get("fresh_runner"):
            return None
        return order

    def _run_batch(self, requests: list[Request], reset_worker: bool = False,
                   budget: float | None = None, limits: list[float | None] | None = None,
                   planned: bool = False, aside: bool = False, runner_at: int | None = None) -> list[Outcome]:
        """Run REQUESTS in order in one round trip: each exactly as run() would (a fork per fresh
        request, the shared worker for the others).  The sandbox stops after the first request
        that did not end cleanly (a timeout, memory, a replaced worker...): the outcomes of the
        requests that ran come back, the caller runs the rest one by one.  RESET_WORKER first
        replaces the shared worker (a new one imports the module again on its first request).
        BUDGET (seconds): the sandbox starts no further request once the batch has run that long.
        LIMITS: per request, a trial's short limit or None (see run); a trial that times out ends
        the batch (as any timeout does) and comes back as it is, not retried here.
        RUNNER_AT: the position of the fresh requests that follow the shared calls (_fresh_first):
        the zygote makes its clean worker the fresh runner there (harness Zygote.worker_as_runner)."""
        if not requests:
            return []
        with self._lock:
            if self._closed:
                raise RuntimeError("this Sandbox is closed")
            first = self._seq + 1
            timeouts = [self._timeout(r) for r in requests]
            trials = [lim if lim is not None and lim < t else None
                      for lim, t in zip(limits or [None] * len(requests), timeouts)]
            walls = [self._wall(t) if lim is None else self._trial_wall(lim) for lim, t in zip(trials, timeouts)]
            # the batch message, then one line per request (the sandbox sends each on as it is)
            line = planned_line if planned else _line
            lines = [line(r, first + i, t if lim is None else lim, w)
                     for i, (r, t, lim, w) in enumerate(zip(requests, timeouts, trials, walls))]
            head = {"op": "batch", "reset_worker": reset_worker, "lines": len(lines), "budget": budget}
            if aside:
                head["aside"] = True
            if runner_at is not None:
                head["runner_at"] = runner_at
            message = b"\n".join([_encode(head), *lines])   # a bad Request: raises, as run() does
            self._seq += len(requests)
            outcomes: list[Outcome] = []
            try:
                proc = self._proc()
                if isinstance(proc, Outcome):
                    return [proc]
                proc.raw_tail.clear()
                proc.send(message + b"\n")
                t0 = time.monotonic()
                for i, request in enumerate(requests):
                    trial = trials[i] is not None
                    outcome, msg = self._collect(proc, request, first + i, timeouts[i], t0, batch=True,
                                                 wall=walls[i], trial=trial)
                    if msg is None:              # the batch ended before this request (or the sandbox died)
                        if outcome is not None:
                            outcomes.append(outcome)
                        return outcomes
                    if trial and outcome.status == "timeout":    # the caller decides (Program._trial)
                        if self._state.proc is proc:
                            self._batch_end(proc)
                        outcomes.append(outcome)
                        return outcomes
                    if self._wall_stopped:       # the batch stops here: retried alone, then the rest singly
                        if self._state.proc is proc:
                            self._batch_end(proc)
                        outcomes.append(outcome if aside else self._retry(request, outcome, timeouts[i]))
                        return outcomes          # (a try is never run again: ahead.py drops it)
                    outcomes.append(outcome)
                    t0 = time.monotonic()
                    if self._state.proc is None:  # stopped (timeout, garbage): the rest run one by one
                        return outcomes
                self._batch_end(proc)
            except Exception as e:               # a grader bug must not blame the student
                self._state.stop()
                outcomes.append(_internal(f"{type(e).__name__}: {e}", 0.0))
            return outcomes

    def _batch_end(self, proc: _Proc) -> None:
        deadline = time.monotonic() + SLACK + GRACE
        while True:
            kind, line = proc.next_line(deadline)
            msg = _parse(line) if kind == "line" else None
            if kind != "line" or (msg is None and not line.startswith(b'{"t":"done"')):
                self._state.stop()
                return
            if msg is not None and msg.get("t") == "batch_end":
                self.aside_end = msg.get("aside")
                return

    def _collect(self, proc: _Proc, request: Request, seq: int, timeout: float, t0: float,
                 batch: bool = False, wall: float | None = None,
                 trial: bool = False) -> tuple[Outcome | None, dict | None]:
        """Read the sandbox's lines until the trailer of request SEQ: (its Outcome, the trailer).
        In a batch, (None, None) when the batch ended before SEQ ran.  Sets _wall_stopped."""
        self._wall_stopped = False
        deadline = t0 + max(wall or timeout, timeout) + GRACE + SLACK
        result, garbled = None, False
        while True:
            kind, line = proc.next_line(deadline)
            if kind == "timeout":
                self._state.stop()
                self.strict = True
                out = Outcome(status="timeout", elapsed=round(time.monotonic() - t0, 4),
                              stdin_lines=len(request.stdin or []),
                              message=f"your program was stopped after {_secs(timeout)} s")
                out.hidden_message = out.message
                out.error = {"internal": "the sandbox did not answer in time; it was killed"}
                return out, None
            if kind != "line":
                detail = f"sandbox {kind} (exit {proc.popen.poll()}); output: {proc.raw_text()[-2000:]}"
                self._state.stop()
                return _internal(detail, time.monotonic() - t0), None
            outcome, msg, middle = answer_by_bytes(line, request, seq, self.limits, time.monotonic() - t0, timeout)
            if outcome is not None:     # an ok answer seen before, read by its bytes (outcomes.py)
                return self._collected(proc, outcome, msg, None, trial)
            msg, inside = parse_answer(line) if middle is not None else (_parse(line), False)
            if msg is None and line.startswith(b'{"t":"done"'):   # the answer in it could not be read:
                msg = _parse_trailer(line)                      # the zygote's own part can
                garbled = msg is not None
            if msg is None:
                self._state.stop()
                return _internal(f"unreadable line from the sandbox: {line[:300]!r}", time.monotonic() - t0), None
            if batch and msg.get("t") == "batch_end":
                self.aside_end = msg.get("aside")
                return None, None
            if msg.get("seq") == seq and msg.get("t") == "done":
                result = msg.pop("result", None)
                if result is not None and not isinstance(result, dict):
                    result, garbled = None, True
                break
        outcome = _build(request, timeout, self.limits, result, msg, time.monotonic() - t0, garbled,
                         None if garbled else middle, inside and not garbled)
        return self._collected(proc, outcome, msg, result, trial)

    def _collected(self, proc: _Proc, outcome: Outcome, msg: dict, result: dict | None,
                   trial: bool) -> tuple[Outcome, dict]:
        """_collect's end: what the zygote's part (MSG) adds to OUTCOME, and what it tells this Sandbox."""
        status = outcome.status
        if status == "crash" and proc.raw_tail:
            outcome.error = dict(outcome.error or {}, raw_output=proc.raw_text())
        outcome.worker = (msg.get("ran_in"), msg.get("worker_gen"))
        outcome.wait = min(max(_number(msg.get("wait")), 0.0), outcome.elapsed)   # the zygote's figure
        # Retry only what the harness says its backstop stopped (the student's process could claim
        # it: the cost is one more run at the long backstop, once per request).
        if status != "timeout":
            self._wall_stopped = outcome.wall_stopped = False
        else:
            self._wall_stopped = outcome.wall_stopped = isinstance(result, dict) and result.get("wall_stopped") is True
            if not self._wall_stopped and not trial:
                self.strict = True
        if _number(msg.get("zygote_cpu")) > self.limits.cpu_s / 2:
            self._state.stop(graceful=True)     # its CPU limit would soon kill it: start a new one
        return outcome, msg


def _runner_at(requests: list[Request]) -> int | None:
    """The position of the first fresh request after a shared call in REQUESTS, or None."""
    shared = False
    for i, request in enumerate(requests):
        if not request.runs_fresh:
            shared = True
        elif shared:
            return i
    return None


def _line(request: Request, seq: int, timeout: float, wall: float | None) -> bytes:
    return _encode(_payload_data(request, seq, timeout, wall))
