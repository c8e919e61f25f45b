"""What guards a grading session's checks in the grader's process: the backstop timer of a
check that hangs grader-side (as pytest-timeout's signal method), and the collector's settings
while submissions are graded (the session's setup frozen, a larger young generation).  Used by
the light runner (engine/light.py)."""

from __future__ import annotations

import _signal
import contextlib
import gc
import signal
import threading
import time

BACKSTOP_S = 120.0      # pytest-timeout's default for the suites (engine/pytest.ini)


def _on_backstop(signum, frame):
    if _WATCHING[0]:                # a watch (below): fail the running check only once it has run its limit
        started = _RUNNING[0]
        waiting = _WAITING[0]
        if started is not None and waiting is not None:
            # In a wait on a sandbox: the grader's own time stopped when it began (the wait is
            # bounded by the request's limits); looked at again at least a second later.
            left = started + _BACKSTOP[0] - waiting
            if left > 0:
                signal.setitimer(signal.ITIMER_REAL, max(left, 1.0))
                return
        left = _BACKSTOP[0] if started is None else started + _BACKSTOP[0] - time.perf_counter()
        if left > 0:
            signal.setitimer(signal.ITIMER_REAL, left)
            return
        _RUNNING[0] = None
    import pytest  # (here: the sandbox's client imports this module without pytest)

    pytest.fail(f"Timeout (>{_BACKSTOP[0]:g}s) from the grader's backstop.", pytrace=False)


_BACKSTOP = [BACKSTOP_S]
_WATCHING = [False]     # a watch is armed (watch())
# The running check's start (time.perf_counter), None between checks: the light runner sets it
# around each check under a watch (a list's item: cheaper than a call).
_RUNNING: list[float | None] = [None]
# The main thread's wait on a sandbox (its start, time.perf_counter), None outside one.  What a
# request takes is bounded by its own limits (CPU, the wall backstop and its retry, the
# submission's budget), so the backstop counts only the grader's own time: it stops grader-side
# hangs, and the machine's load cannot make it stop a check whose sandbox is merely slow (pass
# 21: under load ~18 a stage-5 contest's waits ran past the 120 s, and the grade moved).
_WAITING: list[float | None] = [None]


def wait_begins() -> float | None:
    """A wait on a sandbox begins (Sandbox.run, run_batch): its start where a watched check runs
    in the main thread and no wait is open, else None (pass it to wait_ends)."""
    if _RUNNING[0] is None or _WAITING[0] is not None or threading.current_thread() is not threading.main_thread():
        return None
    _WAITING[0] = began = time.perf_counter()
    return began


def wait_ends(began: float | None) -> None:
    """The wait wait_begins opened ends: the running check's start moves on by its length."""
    if began is None:
        return
    _WAITING[0] = None
    if _RUNNING[0] is not None:
        _RUNNING[0] += time.perf_counter() - began


def with_backstop(function, kwargs: dict, seconds: float):
    """FUNCTION(**KWARGS) under a SIGALRM timer, as pytest-timeout's signal method does (main thread
    only).  The handler, once set, stays for the session (backstop_handler restores the old one at
    its end): two signal.signal calls per check were a tenth of the light runner's own cost."""
    if not backstop_is_ours(seconds):
        return function(**kwargs)   # not ours to set, or an outer timer (pytest-timeout) already guards us
    return timed(function, kwargs, seconds)


def backstop_is_ours(seconds: float) -> bool:
    """Whether timed may set the timer: the main thread, a limit, and no outer timer armed (ours
    is disarmed after every check, so the answer holds for a session's checks: the light runner
    asks once per submission)."""
    return (threading.current_thread() is threading.main_thread() and seconds > 0
            and signal.getitimer(signal.ITIMER_REAL)[0] == 0)


def timed(function, kwargs: dict, seconds: float):
    """with_backstop once backstop_is_ours said yes."""
    _arm(seconds)
    try:
        return function(**kwargs)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


_BACKSTOP_OLD: list = []        # the SIGALRM handlers with_backstop replaced, oldest first


def _arm(seconds: float) -> None:
    """The backstop's handler on SIGALRM (the one it replaces kept for backstop_handler) and its
    timer set for SECONDS."""
    _BACKSTOP[0] = seconds
    if _signal.getsignal(signal.SIGALRM) is not _on_backstop:     # (signal.getsignal: + an enum lookup that raises)
        _BACKSTOP_OLD.append(signal.signal(signal.SIGALRM, _on_backstop))
    signal.setitimer(signal.ITIMER_REAL, seconds)


@contextlib.contextmanager
def watch(seconds: float):
    """Around one submission's checks, once backstop_is_ours(SECONDS) said yes: timed's backstop
    with ONE timer for them all (two setitimer calls a submission, not two a check).  Each check
    sets _RUNNING[0] to its start (time.perf_counter) and back to None at its end; when the timer
    fires, the handler fails the running check if it has run SECONDS, and otherwise sets the timer
    again for what that check has left (SECONDS between checks).  A check that hangs is stopped at
    the same limit as under timed.  pause() disarms it around a check pytest's protocol runs
    (pytest-timeout's own timer guards that one, and leaves SIGALRM's handler at SIG_DFL)."""
    _RUNNING[0] = None
    _WATCHING[0] = True
    _arm(seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        _WATCHING[0] = False
        _RUNNING[0] = None


@contextlib.contextmanager
def pause():
    """Inside a watch: its timer disarmed meanwhile (a check pytest's protocol runs), then set
    again for the watch's limit."""
    if not _WATCHING[0]:
        yield
        return
    signal.setitimer(signal.ITIMER_REAL, 0)
    _WATCHING[0] = False
    try:
        yield
    finally:
        _RUNNING[0] = None
        _WATCHING[0] = True
        if _signal.getsignal(signal.SIGALRM) is not _on_backstop:   # (pytest-timeout leaves SIG_DFL)
            signal.signal(signal.SIGALRM, _on_backstop)
        signal.setitimer(signal.ITIMER_REAL, _BACKSTOP[0])


@contextlib.contextmanager
def backstop_handler():
    """Around a session's checks: SIGALRM's handler as it was before them, afterwards."""
    try:
        yield
    finally:
        if _BACKSTOP_OLD and threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGALRM, _BACKSTOP_OLD[0])
            _BACKSTOP_OLD.clear()


@contextlib.contextmanager
def frozen():
    """Around a session's checks: what the session has set up (pytest, the suites, the reference's
    outcomes and plan: ~70k objects) frozen out of the collector's view (gc.freeze), so its older
    generations' collections, while submissions are graded, walk only what the grading made;
    given back to it afterwards (gc.unfreeze).  Meanwhile the youngest generation is collected
    every GRADING_GC_YOUNG net allocations, not 700: a grade makes ~1000 and leaves ~170 objects
    of cyclic garbage, and a young collection cost ~0.24 ms (it visits what the young objects
    refer to: outcomes, plans, results), ~0.4 ms a grade in all; now ~0.15."""
    frozen = gc.get_freeze_count() == 0 and threading.current_thread() is threading.main_thread()
    if frozen:
        gc.freeze()
        thresholds = gc.get_threshold()
        gc.set_threshold(max(thresholds[0], GRADING_GC_YOUNG), *thresholds[1:])
    try:
        yield
    finally:
        if frozen:
            gc.set_threshold(*thresholds)
            gc.unfreeze()


GRADING_GC_YOUNG = 7000
