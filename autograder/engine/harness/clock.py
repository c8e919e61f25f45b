"""The clock student code reads (patches.py installs it): the same in every run of a request.

A program may print how long its game took, stamp a log line, or wait on the clock.  Read from the
machine, each run prints other digits, so the same submission would get other feedback (and a
check of what it printed, another verdict).  So inside a request's student code, time.time,
time.monotonic, time.perf_counter (and their _ns), the calendar functions without a time
argument (localtime, gmtime, ctime, asctime, strftime) and datetime.datetime's now, utcnow and
today read a clock of the request's own: a fixed start per phase (the import's, then the call's
one second later), plus TICK at every read (a loop that waits on the clock ends), plus the seconds
time.sleep really slept.  The harness's own limits, timers and flushes read the machine's clocks
(base._monotonic, _real_sleep, bound before any patch); so does code that is not the student's
(the harness between two of its lines).

Pass 20: time.clock_gettime(_ns) too, by clock (the wall clock's, else the monotonic one's), and
os.times()'s elapsed field (a clock since boot).  The CPU clocks stay the machine's (process_time,
thread_time, clock_gettime of a CPU clock, getrusage, os.times' user and system times): a program
that spins on them for a CPU budget must spend it (the cost corpus's slow programs do), which no
clock of reads and ticks can promise; what they read is the program's own work.
"""

import datetime
import os
import posix
import resource
import time

from .base import _real_sleep
from .run import _RUN

EPOCH = 1_767_225_600.0     # time.time() at the start of a request's import: 2026-01-01 00:00 UTC
START = 1_000.0             # time.monotonic() and time.perf_counter() there
CALL_AFTER = 1.0            # the call phase's clock starts this many seconds after the import's
TICK = 1e-6                 # every read advances the clock by this much

_real_time, _real_time_ns = time.time, time.time_ns
_real_localtime, _real_gmtime, _real_ctime = time.localtime, time.gmtime, time.ctime
_real_asctime, _real_strftime = time.asctime, time.strftime
_REAL_CLOCKS = {"monotonic": time.monotonic, "monotonic_ns": time.monotonic_ns,
                "perf_counter": time.perf_counter, "perf_counter_ns": time.perf_counter_ns}
_RealDatetime = datetime.datetime
_real_clock_gettime, _real_clock_gettime_ns = time.clock_gettime, time.clock_gettime_ns
_real_getrusage = resource.getrusage     # (the harness's own reads: clean.py's peak memory)
# clock_gettime's clocks (Linux's ids) that read the wall clock (REALTIME, its COARSE and ALARM, TAI),
# and the CPU clocks (a thread's or process's own from pthread_getcpuclockid: negative), left real;
# the rest are monotonic
_WALL_CLOCKS = frozenset((0, 5, 8, 11))
_CPU_CLOCKS = frozenset(getattr(time, name) for name in ("CLOCK_PROCESS_CPUTIME_ID", "CLOCK_THREAD_CPUTIME_ID")
                        if hasattr(time, name))


def _students_clock():
    """The Run whose student code is reading the clock, its clock at the current phase's (a new
    phase: its own start), or None."""
    run = _RUN
    if run is None or not run.in_student:
        return None
    if run.clock_phase != run.phase:
        run.clock_phase, run.clock_reads, run.slept = run.phase, 0, 0.0
    return run


def _clock_read():
    """Seconds since the start of the current request's import on its clock (advanced by this
    read), or None outside student code."""
    run = _students_clock()
    if run is None:
        return None
    run.clock_reads += 1
    return (0.0 if run.phase == "import" else CALL_AFTER) + run.clock_reads * TICK + run.slept


def _wall():
    """time.time() as student code reads it (the machine's elsewhere)."""
    elapsed = _clock_read()
    return _real_time() if elapsed is None else EPOCH + elapsed


def _time_ns():
    elapsed = _clock_read()
    return _real_time_ns() if elapsed is None else int((EPOCH + elapsed) * 1e9)


def _clock(name):
    """time.NAME (monotonic or perf_counter, seconds or _ns) as student code reads it."""
    real = _REAL_CLOCKS[name]
    ns = name.endswith("_ns")

    def read():
        elapsed = _clock_read()
        if elapsed is None:
            return real()
        return int((START + elapsed) * 1e9) if ns else START + elapsed
    read.__name__ = read.__qualname__ = name
    return read


def _clock_gettime_at(clk_id, ns):
    """clock_gettime(CLK_ID) on the request's clocks (its errors the real one's)."""
    real = (_real_clock_gettime_ns if ns else _real_clock_gettime)(clk_id)
    if _students_clock() is None:
        return real
    if clk_id in _WALL_CLOCKS:
        return _time_ns() if ns else _wall()
    if clk_id in _CPU_CLOCKS or clk_id < 0:
        return real                     # (a CPU clock: the program's own work, as process_time)
    now = START + _clock_read()
    return int(now * 1e9) if ns else now


def _clock_gettime(clk_id, /):
    return _clock_gettime_at(clk_id, False)


def _clock_gettime_ns(clk_id, /):
    return _clock_gettime_at(clk_id, True)


def _times():
    """os.times for student code: the CPU times its own (real), the elapsed clock the request's."""
    real = _real_times()
    elapsed = _clock_read()
    return real if elapsed is None else posix.times_result(tuple(real)[:4] + (START + elapsed,))


_real_times = os.times


def _sleep(secs):
    """time.sleep: really sleeps (what a sleep costs is the program's), and the request's clock
    moves on by as much."""
    _real_sleep(secs)
    run = _students_clock()
    if run is not None:
        run.slept += float(secs)


def _localtime(secs=None):
    return _real_localtime(_wall() if secs is None else secs)


def _gmtime(secs=None):
    return _real_gmtime(_wall() if secs is None else secs)


def _ctime(secs=None):
    return _real_ctime(_wall() if secs is None else secs)


def _asctime(t=None):
    return _real_asctime(_localtime() if t is None else t)


def _strftime(format, t=None):
    return _real_strftime(format, _localtime() if t is None else t)


def _named(name, f):
    """F, named NAME as time's own function is (a traceback, a repr)."""
    f.__name__ = f.__qualname__ = name
    return f


class _Datetime(_RealDatetime):
    """datetime.datetime as student code finds it in the datetime module: now, utcnow and today
    read the request's clock."""

    @classmethod
    def now(cls, tz=None):
        return cls.fromtimestamp(_wall(), tz)

    @classmethod
    def utcnow(cls):
        return cls.utcfromtimestamp(_wall())

    @classmethod
    def today(cls):
        return cls.fromtimestamp(_wall())


_Datetime.__name__ = _Datetime.__qualname__ = "datetime"
_Datetime.__module__ = "datetime"

# (module, name, the object patches.py binds there)
CLOCK_PATCHES = tuple((time, name, _named(name, f)) for name, f in (
    ("time", _wall), ("time_ns", _time_ns), ("sleep", _sleep), ("localtime", _localtime),
    ("gmtime", _gmtime), ("ctime", _ctime), ("asctime", _asctime), ("strftime", _strftime))) + tuple(
    (time, name, _clock(name)) for name in _REAL_CLOCKS) + ((datetime, "datetime", _Datetime),) + (
    (time, "clock_gettime", _named("clock_gettime", _clock_gettime)),
    (time, "clock_gettime_ns", _named("clock_gettime_ns", _clock_gettime_ns)),
    (os, "times", _named("times", _times)), (posix, "times", _named("times", _times)))
