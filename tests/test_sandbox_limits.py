"""The process sandbox's limits: time (CPU, not wall), memory, forks, output, exits.  Real child
processes and real limits, no mocks; test_sandbox_family.py and test_sandbox_template.py collect
these again with student roots and under the template."""

from __future__ import annotations

import os
import time

import pytest
from test_sandbox import call, needs_uid

from autograder.engine.sandbox import Limits, Request, uid_processes


def _stopped_within(timeout: float) -> float:
    """Wall seconds a request of TIMEOUT CPU seconds can take at most: its backstop, one retry at
    the long backstop, and the zygote's grace after each."""
    limits = Limits()
    return timeout * limits.wall_factor * (1 + limits.retry_factor) + 2 * 0.5 + 0.5


# -- limits -------------------------------------------------------------------------------
@pytest.mark.serial      # a wall-clock or CPU bound: alone in make test
def test_infinite_loop_times_out_and_the_sandbox_recovers(make):
    box = make("""
        import signal

        def spin():
            while True:
                pass

        def stubborn():
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            while True:
                try:
                    while True:
                        pass
                except BaseException:
                    pass

        def ok():
            return "fine"
    """)
    # The limit is CPU time: about 1 s of it, then stopped; on the wall clock 1 s on an idle machine
    # and never more than the backstop and its one retry (Limits.wall_factor, retry_factor) under load.
    t0 = time.monotonic()
    out = call(box, "spin", timeout=1.0)
    assert out.status == "timeout" and out.message == "your program was stopped after 1 s"
    assert out.cpu < 1.6
    assert time.monotonic() - t0 < _stopped_within(1.0)
    t0 = time.monotonic()
    out = call(box, "stubborn", timeout=1.0)
    assert out.status == "timeout"
    assert out.cpu < 2.1
    assert time.monotonic() - t0 < _stopped_within(1.0) + 0.5
    assert call(box, "ok").value == "fine"
    out = call(box, "spin", timeout=0.5, fresh=False)
    assert out.status == "timeout"
    assert call(box, "ok", fresh=False).value == "fine"


@pytest.mark.serial      # a wall-clock or CPU bound: alone in make test
def test_the_limit_is_cpu_time_a_starved_request_runs_on_a_sleeping_one_does_not(make):
    """A request held back by the machine's load (here: spinning children of its own, run
    alongside it) is under its CPU limit and runs on; one that sleeps stops at the limit."""
    box = make("""
        import os
        import time

        def crowded(n, work):
            kids = []
            for _ in range(n):
                pid = os.fork()
                if pid == 0:
                    while True:
                        pass
                kids.append(pid)
            start = time.process_time()
            while time.process_time() - start < work:
                pass

        def sleepy():
            time.sleep(30)
    """, limits=Limits(wall_factor=20))     # a backstop far enough for the machine's own load too
    # 3 spinners per core: the request gets about a quarter of a CPU, so its 0.3 s of CPU take
    # about 1 s of wall time (3 spinners on 2 cores left it half a CPU: 0.43-0.6 s, too close)
    out = call(box, "crowded", 3 * (os.cpu_count() or 2), 0.3, timeout=0.5)
    assert out.status == "ok", out.message
    # more wall time than the limit: a wall-clock limit would have stopped it (the request's run as the
    # grader timed it: since pass 19 the program's own time.monotonic() reads the request's clock)
    assert out.elapsed > 0.5
    assert not [a for a in out.attempts if "schedstat" in str(a)]   # the grader's look is not the program's
    retries = box.retries     # (a crowded run past its backstop on a very busy machine is retried once)
    t0 = time.monotonic()
    out = call(box, "sleepy", timeout=0.5)
    assert out.status == "timeout" and out.message == "your program was stopped after 0.5 s"
    # a sleeper is never retried, and stopped at its limit, not after its 30 s (the bound was 1.5 s of
    # wall time before pass 19: a loaded machine's late collection could cross it)
    assert time.monotonic() - t0 < 10 and out.cpu < 0.25 and box.retries == retries
    assert not [a for a in out.attempts if "schedstat" in str(a)], out.attempts


def test_swallowing_the_timeout_still_times_out_and_crashes_are_reported(make):
    box = make("""
        import ctypes

        def sneaky():
            try:
                while True:
                    pass
            except BaseException:
                return "escaped"

        def segfault():
            return ctypes.string_at(0)
    """)
    out = call(box, "sneaky", timeout=0.5)
    assert (out.status, out.value, out.message) == ("timeout", None, "your program was stopped after 0.5 s")
    out = call(box, "segfault")
    assert (out.status, out.message) == ("crash", "your program crashed (killed by SIGSEGV)")


@needs_uid
def test_fork_bomb_is_contained(make):
    box = make("""
        import os

        def bomb():
            while True:
                os.fork()

        def ok():
            return 1
    """)
    out = call(box, "bomb", timeout=3)
    assert out.status == "exception" and out.error["type"] == "BlockingIOError"
    assert len(uid_processes(box.uid)) == 1
    assert call(box, "ok").value == 1


def test_memory_bomb_is_memory(make):
    box = make("""
        def hog():
            data = []
            while True:
                data.append(bytearray(10 * 1024 * 1024))
    """, limits=Limits(memory_mb=256))
    out = call(box, "hog")
    assert out.status == "memory"
    assert out.message == "used more than 256 MB of memory"
    assert call(box, "hog", fresh=False).status == "memory"


@pytest.mark.serial      # a wall-clock or CPU bound: alone in make test
def test_print_flood_is_output_limit_and_raw_flood_cannot_block(make):
    box = make("""
        import os

        def flood():
            while True:
                print("x" * 1000)

        def raw_flood():
            for _ in range(500):
                os.write(1, b"y" * 65536)
                os.write(2, b"z" * 65536)
            return "done"
    """, limits=Limits(output_chars=50_000))
    out = call(box, "flood")
    assert out.status == "output_limit"
    assert out.message == "print output exceeded 50000 characters"
    assert len(out.stdout) == 50_000
    t0 = time.monotonic()
    assert call(box, "raw_flood").value == "done"
    assert time.monotonic() - t0 < 3


def test_junk_written_to_every_fd_does_not_confuse_the_grader(make):
    box = make("""
        import os

        def scribble():
            for fd in range(3, 64):
                for junk in (b'{"t":"result","seq":-1}\\n', b'{"t":"result" garbage\\n', b"\\x00junk\\n"):
                    try:
                        os.write(fd, junk)
                    except OSError:
                        pass
            return "done"
    """)
    assert call(box, "scribble").value == "done"
    assert call(box, "scribble", fresh=False).value == "done"


def test_sys_exit_and_os_exit_report_the_code(make):
    box = make("""
        import os
        import sys

        def quit_sys():
            print("bye")
            sys.exit(3)

        def quit_os():
            print("bye")
            os._exit(4)

        def ok():
            return 1
    """)
    out = call(box, "quit_sys")
    assert (out.status, out.exit_code, out.message, out.stdout) == ("exit", 3, "called sys.exit(3)", "bye\n")
    out = call(box, "quit_os")
    assert (out.status, out.exit_code, out.message, out.stdout) == ("exit", 4, "called os._exit(4)", "bye\n")
    out = call(box, "quit_os", fresh=False)       # kills the shared worker; the next call gets a new one
    assert (out.status, out.exit_code) == ("exit", 4)
    assert call(box, "ok", fresh=False).value == 1


def test_script_can_use_exit_builtin(make):
    box = make("""
        print("start")
        exit()
    """)
    out = box.run(Request("script"))
    assert (out.status, out.exit_code, out.message) == ("exit", 0, "called sys.exit()")
