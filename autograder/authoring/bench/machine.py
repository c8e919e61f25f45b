"""The machine under the bench's figures (issue 13's eighteenth pass, docs/floor.md "Pass 18").

The same commit grades ~1.3x slower on one 2-core machine than on another, and the cause is the
machine, not the kit: its CPU runs the same Python slower, and a hand-over between two processes
costs several times more across CPUs there.  So the bench names the machine by two yardsticks,
measured in ~0.3 s before its sections: the CPU of a pure-Python loop of the grader's kind (dict
reads, a call, an int's text), and a byte passed from this process to a forked child and back,
on one CPU and across two (every request's trip between a grader, a sandbox's zygote and its
request process is such hand-overs; across two CPUs each one wakes the other CPU).  Figures of two
runs compare when their yardsticks do.
"""

from __future__ import annotations

import os
import struct
import time


def python_step_ns(steps: int = 100_000, rounds: int = 3) -> float:
    """CPU ns a step of a small pure-Python loop, the best of ROUNDS."""
    table = {"a": 1, "b": 2}
    best = float("inf")
    for _ in range(rounds):
        t0 = time.thread_time()
        total = 0
        for i in range(steps):
            total += table["a"] + len(str(i & 7))
        best = min(best, time.thread_time() - t0)
    return best / steps * 1e9


def handover_us(here: int, there: int, trips: int = 2000) -> tuple[float, float] | None:
    """(wall, CPU of both processes) in us a round trip of one byte between this process on CPU
    HERE and a forked child on CPU THERE; None where the CPUs cannot be chosen or the child failed.
    This process's own CPU set is put back."""
    try:
        allowed = os.sched_getaffinity(0)
    except (AttributeError, OSError):
        return None
    if here not in allowed or there not in allowed:
        return None
    to_child, from_parent = os.pipe()[::-1]
    from_child, to_parent = os.pipe()
    pid = 0
    try:
        os.sched_setaffinity(0, {here})
        pid = os.fork()
        if pid == 0:                                  # (only os calls until _exit: safe after fork)
            code = 1
            try:
                os.close(to_child)
                os.close(from_child)
                os.sched_setaffinity(0, {there})
                t0 = time.thread_time()
                for _ in range(trips):
                    os.read(from_parent, 1)
                    os.write(to_parent, b"x")
                os.write(to_parent, struct.pack("d", time.thread_time() - t0))
                code = 0
            finally:
                os._exit(code)
        os.close(from_parent)
        os.close(to_parent)
        from_parent = to_parent = -1
        c0, t0 = time.thread_time(), time.perf_counter()
        for _ in range(trips):
            os.write(to_child, b"x")
            if not os.read(from_child, 1):
                break
        wall, mine = time.perf_counter() - t0, time.thread_time() - c0
        theirs = os.read(from_child, 8)
        os.waitpid(pid, 0)
        pid = 0
        if len(theirs) != 8:
            return None
        return wall / trips * 1e6, (mine + struct.unpack("d", theirs)[0]) / trips * 1e6
    except OSError:
        return None
    finally:
        for fd in (to_child, from_child, from_parent, to_parent):
            if fd >= 0:
                os.close(fd)
        if pid:                                       # it failed: our ends closed, it ends; reap it
            try:
                os.waitpid(pid, 0)
            except OSError:
                pass
        try:
            os.sched_setaffinity(0, allowed)
        except OSError:
            pass


def machine_line() -> str:
    """The bench's line naming the machine by its yardsticks."""
    text = f"machine: a pure-Python step {python_step_ns():.0f} ns CPU"
    try:
        cpus = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = []
    if cpus:
        one = handover_us(cpus[0], cpus[0])
        if one:
            text += f"; a byte to another process and back {one[0]:.0f} us wall ({one[1]:.0f} us CPU) on one CPU"
        two = handover_us(cpus[0], cpus[1]) if len(cpus) > 1 else None
        if two:
            text += f", {two[0]:.0f} us ({two[1]:.0f}) across two"
    return text + " (the figures below are this machine's: README, Benchmark)"
