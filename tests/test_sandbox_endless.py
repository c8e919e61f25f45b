"""Endless loops proved in the sandbox (harness/endless.py) and charged without a full-limit run.

A request whose code is back at a loop head with the very same locals, having run only opcodes
that change nothing, while nothing else could change its state, stops at once as a timeout marked
`endless`.  Every finite loop below would be a false timeout if that proof were wrong: each waits
for something outside the loop's own state (a thread, a signal from a process that is not its
child, memory another process writes, an object it mutates in place, ids the allocator could
reuse) and must answer.  One sandbox, fresh requests, a 4 s limit (a loaded machine's tests).
"""

from __future__ import annotations

import pytest

from autograder.engine.harness import endless
from autograder.engine.program import Program
from autograder.engine.sandbox import Limits, Request, Sandbox

LIMITS = Limits(wall_s=4.0)
pytestmark = pytest.mark.serial      # how soon an endless loop is stopped, in CPU seconds: alone in make test

SOURCE = '''
import collections, functools, mmap, os, signal, threading, time, types

SEEN = [1, 2, 2]

def spin():
    while True:
        pass

def sleeps_then_spins(seconds):  # off the CPU through the early ticks (no look then), then still
    time.sleep(seconds)
    while True:
        pass

def flag_never_set(n):
    waiting = n > 0
    while waiting:
        waiting = True

class Game:
    def play(self):
        rounds = 0
        while rounds < 13:
            rounds = 0

def forgot_to_step(dice):       # the classic: i never moves on (len() only reads its argument)
    i, count = 0, 0
    while i < len(dice):
        if dice[i] == 7:
            count = count + 1

def cycles(counts):              # the state comes back every three passes
    i = 0
    while 3 not in counts:
        i = (i + 1) % len(counts)

def a_global_never_changes():  # a global list read by `in` and a subscript: still
    while 3 not in SEEN and SEEN[0] < 5:
        pass

def calls_in_the_loop():         # the clock is state from outside the loop
    while time.time() > 0:
        pass

def steps_through_next():        # next() changes the iterator: not a function that only reads
    it = iter(range(3_000_000))
    while next(it) < 2_999_999:
        pass
    return "next"

def steps_through_a_partial():   # a call the profiler cannot name (a partial of next)
    step = functools.partial(next, iter(range(3_000_000)))
    while step() < 2_999_999:
        pass
    return "partial"

# The finite loops below run for about 0.2-0.5 s: long enough to be looked at (LOOK_AFTER).
def counts_up():
    x = 0
    while x < 3_000_000:
        x = x + 1
    return x

def ids_could_repeat():          # x's old int is freed before its next one is made: the same
    x = 10 ** 6                  # address, unless the look keeps the objects it saw alive
    while x < 10 ** 6 + 6_000_000:
        y = x + 1
        x = None
        x = y + 0
        y = None
    return x

def grows_in_place():            # the same list object on every pass, longer each time
    acc, one, stop = [], [1], [1] * 3_000_000
    while acc != stop:
        acc += one
    return len(acc)

# The finite loops below keep every local the same object: their progress is inside a container
# whose C code changes it (redteam, round three: each was proved endless, a false timeout).
def consumes_an_iterator_with_in():   # `x in iterator` consumes it (list_iterator: C code)
    it = iter([0] * 3_000_000 + [1])
    while 0 in it:
        pass
    return "in"

def grows_a_defaultdict():       # a missing key inserted by the C factory: no Python frame
    d = collections.defaultdict(int)
    while len(d) < 2_000_000:
        d[-len(d)]
    return len(d)

def grows_through_a_mappingproxy():
    d = collections.defaultdict(int)
    view = types.MappingProxyType(d)
    while len(d) < 2_000_000:
        view[len(d)]
    return len(d)

def waits_for_a_thread():
    done = []
    threading.Timer(0.3, done.append, [1]).start()
    while not done:
        pass
    return "thread"

def traced():
    import sys
    return [sys.gettrace() is None, sys.getprofile() is None]

def _orphan(then):
    child = os.fork()
    if child == 0:
        if os.fork() == 0:
            time.sleep(0.3)
            then()
        os._exit(0)
    os.waitpid(child, 0)

def waits_for_a_signal():
    got = []
    signal.signal(signal.SIGUSR1, lambda *a: got.append(1))
    parent = os.getpid()
    _orphan(lambda: (os.kill(parent, signal.SIGUSR1), os._exit(0)))
    while not got:
        pass
    return "signal"

def waits_for_shared_memory():
    shared = mmap.mmap(-1, 1)
    def write():
        shared[0] = 1
        os._exit(0)
    _orphan(write)
    while shared[0] == 0:
        pass
    return "memory"
'''


@pytest.fixture(scope="module")
def sandbox():
    with Sandbox(SOURCE, "m.py", LIMITS) as box:
        yield box


ARGS = {"flag_never_set": [1], "sleeps_then_spins": [0.003], "forgot_to_step": [[1, 2, 3, 4, 5]], "cycles": [[1, 2, 2]]}


@pytest.mark.parametrize("func", ["spin", "flag_never_set", "Game.play", "forgot_to_step", "cycles",
                                  "a_global_never_changes", "sleeps_then_spins"])
def test_a_loop_that_cannot_change_is_stopped_at_once(sandbox, func):
    request = Request("call", func, ARGS.get(func, []), instance={} if "." in func else None)
    outcome = sandbox.run(request)
    assert (outcome.status, outcome.endless) == ("timeout", True)
    assert outcome.stopped_in is not None and outcome.stopped_in[0] == func.split(".")[-1]
    # stopped long before its limit: in CPU time, which the machine's load does not stretch (the
    # wall time, asserted before pass 19, also counts how late a starved grader read the answer)
    assert 0 < outcome.cpu < LIMITS.wall_s / 4
    assert outcome.message == "your program was stopped after 4 s"   # the request's own limit


def test_a_loop_met_after_the_early_ticks_is_stopped_at_a_later_look(sandbox):
    """Asleep past LOOK_AFTER (every early tick found no CPU time run: no look), then a loop that
    cannot change: the wall ticks still look, and prove it."""
    outcome = sandbox.run(Request("call", "sleeps_then_spins", [endless.LOOK_AFTER * 3]))
    assert (outcome.status, outcome.endless) == ("timeout", True)
    assert 0 < outcome.cpu < LIMITS.wall_s / 4      # (CPU time: see above)


def test_the_early_look_waits_for_cpu_time_run():
    """The early tick (LOOK_EARLY into the student's code) looks only when that code ran LOOK_CPU
    of CPU time by then: a request kept off the CPU (the machine's load, a sleep) gets no look
    there, only its next tick, at LOOK_AFTER as before (or its deadline, if sooner)."""
    began, deadline = 10.0, 12.0
    look_at, now = began + endless.LOOK_AFTER, began + endless.LOOK_EARLY
    assert endless.LOOK_CPU < endless.LOOK_EARLY < endless.LOOK_AFTER
    for used in (endless.LOOK_CPU, endless.LOOK_EARLY, 1.0):
        assert endless.early_wait(now, used, look_at, deadline) is None          # a spin: look now
    for used in (0.0, endless.LOOK_CPU / 10, endless.LOOK_CPU * 0.99):          # starved, or asleep
        assert endless.early_wait(now, used, look_at, deadline) == pytest.approx(look_at - now)
    assert endless.early_wait(now, 0.0, look_at, now + 0.003) == pytest.approx(0.003)   # (its deadline first)
    assert endless.early_wait(look_at - 0.0002, 0.0, look_at, deadline) == 0.0005     # (the tick's floor)


TICKS = """
import signal

def spin():
    while True:
        pass

def first_tick():                # the soft timer's first tick, as the student's code sees it armed
    return signal.getitimer(signal.ITIMER_REAL)[0]
"""


def test_only_a_life_that_had_a_loop_proved_ticks_early():
    """The early tick is armed only in a life whose zygote saw a request proved endless, in the
    request processes it forks after that (the shared worker forked before keeps its ticks): an
    honest life, and every other life of the same program, pay no early tick.  (Three reads
    each: under load a process can be kept off the CPU between the timer's arming and its read.)"""
    def armed(box: Sandbox, fresh: bool) -> str:
        seen = []
        for _ in range(3):
            outcome = box.run(Request("call", "first_tick", fresh=fresh))
            assert outcome.status == "ok", outcome
            seen.append(outcome.value)
        return "early" if min(seen) <= endless.LOOK_EARLY else "late" if max(seen) > endless.LOOK_EARLY else "?"

    with Sandbox(TICKS, "m.py", LIMITS) as box:
        assert (armed(box, True), armed(box, False)) == ("late", "late")
        outcome = box.run(Request("call", "spin", fresh=True))
        assert (outcome.status, outcome.endless) == ("timeout", True)
        assert (armed(box, True), armed(box, False)) == ("early", "late")       # (the worker: forked before)
        outcome = box.run(Request("call", "spin"))       # (in that worker: proved all the same)
        assert (outcome.status, outcome.endless) == ("timeout", True)
        assert armed(box, True) == "early"
    with Sandbox(TICKS, "m.py", LIMITS) as other:
        assert (armed(other, True), armed(other, False)) == ("late", "late")


def test_a_loop_that_calls_is_left_to_its_limit(sandbox):
    outcome = sandbox.run(Request("call", "calls_in_the_loop", timeout=0.5))
    assert (outcome.status, outcome.endless) == ("timeout", False)


@pytest.mark.parametrize("func, value", [
    ("counts_up", 3_000_000), ("ids_could_repeat", 10 ** 6 + 6_000_000), ("grows_in_place", 3_000_000),
    ("consumes_an_iterator_with_in", "in"), ("grows_a_defaultdict", 2_000_000),
    ("grows_through_a_mappingproxy", 2_000_000), ("steps_through_next", "next"), ("steps_through_a_partial", "partial"), ("waits_for_a_thread", "thread"), ("waits_for_a_signal", "signal"), ("waits_for_shared_memory", "memory"),
])
def test_a_finite_loop_is_never_proved_endless(sandbox, func, value):
    outcome = sandbox.run(Request("call", func))
    assert (outcome.status, outcome.value, outcome.endless) == ("ok", value, False)


REFERENCE = '''
def f(n):
    return n

def g(n):
    return f(n)
'''

STUDENT = '''
def f(n):
    while True:
        pass

def g(n):
    return f(n)
'''


def test_a_proved_loop_is_charged_without_a_full_limit_run():
    reference = Program(REFERENCE, "m.py", limits=LIMITS, cache=True, label="the reference")
    student = Program(STUDENT, "m.py", limits=LIMITS)
    student.timing = reference
    try:
        for func in ("f", "g"):
            assert reference.call(func, 1, fresh=True).status == "ok"
        first = student.call("f", 1, fresh=True)     # a trial, proved endless: charged as it is
        assert (first.status, first.endless) == ("timeout", True)
        assert student.trials == [1, 0, 1]
        assert [name for name, _ in student.loops] == ["f"]
        through = student.call("g", 1, fresh=True)   # the same loop through a caller
        assert (through.status, through.stopped_in[0]) == ("timeout", "f")
        assert student.trials == [2, 0, 2]
        assert 0 < first.cpu + through.cpu < LIMITS.wall_s / 2     # (CPU time: load-proof)
    finally:
        student.close()
        reference.close()


MODULE_LOOP = '''
x = 10 ** 6                      # at the module's top level: no frame dict keeps the old int alive
while x < 10 ** 6 + 6_000_000:
    y = x + 1
    x = None
    x = y + 0
    y = None

def value():
    return x
'''


def test_a_finite_loop_at_import_whose_ids_repeat_is_never_proved_endless():
    with Sandbox(MODULE_LOOP, "m.py", LIMITS) as box:
        outcome = box.run(Request("call", "value"))
    assert (outcome.status, outcome.value, outcome.endless) == ("ok", 10 ** 6 + 6_000_000, False)


def test_no_trace_function_outlives_a_look(sandbox):
    """A look that was still watching when the request ended (counts_up: its state changes, so no
    proof) leaves nothing behind in the process that serves the next request."""
    for fresh in (False, True):
        assert sandbox.run(Request("call", "counts_up", fresh=fresh)).value == 3_000_000
        assert sandbox.run(Request("call", "traced", fresh=fresh)).value == [True, True]
