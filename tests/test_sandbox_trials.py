"""Trial limits scaled from the reference's CPU time (Program._trial_limit, Program._after_trial).

A request the reference answered runs first at a short CPU limit; one that runs out runs again at
its own limit before a timeout counts, unless its timer stopped it in a function where one of the
student's full-limit runs already ran out.  Real sandboxes; one reference and one student each.
"""

from __future__ import annotations

import pytest

from autograder.engine.program import Program
from autograder.engine.protocol import Request
from autograder.engine.sandbox import Limits
from autograder.engine.trials import TRIAL_FLOOR_S

pytestmark = pytest.mark.serial      # trial limits scaled from measured CPU times: alone in make test

REFERENCE = '''
calls = []

def f(n):
    return n

def g(n):
    return n

def h(n):
    return f(n)

def k(n):
    calls.append(n)
    return len(calls)
'''

STUDENT = '''
import time
calls = []

def spin(seconds):
    t = time.process_time()
    while time.process_time() - t < seconds:
        pass

def f(n):
    while True:          # an endless loop that reads the clock on every pass (the sandbox
        time.time()      # cannot prove it endless: tests/test_sandbox_endless.py)

def g(n):                # slow but finite: over the trial limit, well under its own
    spin(0.35)
    return n

def h(n):
    return f(n)

def k(n):                # its answer depends on the calls the shared worker served before it
    calls.append(n)
    if len(calls) == 3:
        spin(0.35)
    return len(calls)
'''


FIXED_SLACK = 1.25      # a CPU timer fires a little late: a run may spend up to a quarter over its limit
LIMITS = Limits(wall_s=4.0)     # generous: after its first timeout a sandbox has plain wall-clock limits
#                                 (Sandbox.strict), and the kit's tests run on a loaded machine


@pytest.fixture(scope="module")
def reference():
    program = Program(REFERENCE, "m.py", limits=LIMITS, cache=True, label="the reference")
    try:
        yield program
    finally:
        program.close()


@pytest.fixture
def student(reference):
    program = Program(STUDENT, "m.py", limits=LIMITS)
    program.timing = reference
    try:
        yield program
    finally:
        program.close()


def test_trials_keep_slow_answers_and_charge_a_known_loop_at_the_short_limit(reference, student):
    for func in ("f", "g", "h"):
        assert reference.call(func, 1).status == "ok"
        assert reference.call(func, 1, fresh=True).status == "ok"
    assert reference.call("f", 1, timeout=1.0).status == "ok"
    assert TRIAL_FLOOR_S < 0.35

    slow = student.call("g", 1)                   # its trial runs out; again at 2 s: the right answer
    assert (slow.status, slow.value) == ("ok", 1)
    assert student.trials == [1, 1, 0]

    loop = student.call("f", 1, timeout=1.0)      # trial, then the full limit: the loop is known
    assert loop.status == "timeout"
    assert student.trials == [2, 2, 0]
    assert [name for name, _ in student.loops] == ["f"]

    for fresh in (False, True):                   # the same loop, reached through h: the trial counts
        limit = student._trial_limit(Request("call", "h", [1], {}, fresh=fresh))   # (2 x g's CPU: SLOW_FACTOR)
        assert limit is not None and FIXED_SLACK * 2 * limit < LIMITS.wall_s
        sent = student._sandbox._seq
        again = student.call("h", 1, fresh=fresh)
        runs = student._sandbox._seq - sent        # the trial, and again if the machine starved it
        assert again.status == "timeout"
        assert runs in (1, 2)
        assert again.cpu <= FIXED_SLACK * runs * limit   # never the full limit (4 s of CPU) again: each
        #   run at most its trial limit (was again.cpu < 2.0, a fixed bound: 2.43 s, a trial starved and
        #   run again, at load ~17, pass 22; before that elapsed < 3.0)
    assert student.trials == [4, 2, 2]

    later = student.call("g", 1, fresh=True)      # the program showed it is slow: its later trials
    assert (later.status, later.value) == ("ok", 1)   # are twice as long as that, and this one ends
    assert student.trials == [5, 2, 2]               # in time (was [5, 3, 2] before SLOW_FACTOR)
    assert student.slow_seen[0] >= 0.35


def test_a_shared_call_run_again_sees_the_calls_its_worker_served_before(reference, student):
    assert [reference.call("k", n).value for n in (1, 2, 3)] == [1, 2, 3]
    answers = [student.call("k", n) for n in (1, 2, 3)]
    # k(3)'s trial ran out in the shared worker (which then ended); it ran again in a new worker
    # after k(1) and k(2) were replayed into it, so it answers 3, exactly as without trials.
    assert [(a.status, a.value) for a in answers] == [("ok", 1), ("ok", 2), ("ok", 3)]
    assert student.trials == [3, 1, 0]


def test_no_reference_time_means_no_trial():
    student = Program(STUDENT, "m.py", limits=LIMITS)
    try:
        outcome = student.call("g", 1)
        assert (outcome.status, outcome.value) == ("ok", 1)
        assert student.trials == [0, 0, 0]
    finally:
        student.close()
