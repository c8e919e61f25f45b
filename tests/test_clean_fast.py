"""The clean-state check's fast paths (harness/clean.py) and their blind spots.

The open fds (_fd_reader): one poll of every fd number below the hard RLIMIT_NOFILE instead of a
listing of /proc/self/fd, where no fd can have a number at or above it.  Its blind spot would be
an fd it does not poll: it must fall back to the listing whenever one is open there or the limit
is too high to poll, and see every change the listing sees (an fd left open, one closed, one moved
to another number with the count unchanged).

Children: not looked for by the runner's own check; the zygote reads them after every answer.

The random generator's state (_random_reader): put back only when its bytes differ from the
snapshot's, read in its C struct and written back there; it must read exactly what getstate
says, see any draw, seed or setstate, and its bytes written back must be setstate's state.
"""

from __future__ import annotations

import os
import resource

import pytest
from helpers.harness import in_child as _in_child
from helpers.harness import loaded as _harness

from autograder.engine.sandbox import Limits, Request, Sandbox


def _limit_fds(hard: int) -> None:
    """This process with no fd at or above HARD (but the ones below it kept) and HARD as its limit."""
    os.closerange(hard, resource.getrlimit(resource.RLIMIT_NOFILE)[1])
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def test_the_polled_fds_see_every_change_the_listing_sees():
    ns = _harness()

    def job():
        _limit_fds(64)
        os.closerange(63, 64)      # (the number an fd is moved to below: free, whatever this process held there)
        read = ns._fd_reader()
        assert read is not ns._fds, "the poll reader where no fd can be at or above the limit"
        seen = []
        base = read()
        seen.append(read() == base)                 # a look changes nothing
        r, w = os.pipe()
        seen.append(read() != base)                 # fds left open
        os.close(w)
        seen.append(read() != base)                 # one of them closed (one still open)
        os.close(r)
        seen.append(read() == base)                 # both closed: as before
        r, w = os.pipe()
        with_pipe = read()
        os.dup2(r, 63)                              # the highest number there can be
        os.close(r)
        seen.append(read() != with_pipe)            # moved to another number: as many fds open
        os.dup2(63, r)
        os.close(63)
        seen.append(read() == with_pipe)            # moved back
        os.close(w)
        seen.append(read() != with_pipe)            # closed
        os.close(r)
        seen.append(read() == base)
        spare = os.dup(0)
        os.close(0)
        seen.append(read() != base)                 # one the process had at its start closed
        os.dup2(spare, 0)
        os.close(spare)
        seen.append(read() == base)
        return seen
    assert _in_child(job) == str([True] * 10)


@pytest.mark.parametrize("case", ["an fd at the limit", "a limit too high to poll", "no limit"])
def test_the_listing_is_used_where_an_fd_could_escape_the_poll(case):
    ns = _harness()

    def job():
        if case == "an fd at the limit":
            os.dup2(0, 64)                          # (opened before the limit was lowered)
            _limit_fds(65)
            resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))
        elif case == "a limit too high to poll":
            _limit_fds(ns._POLLED_FDS + 1)
        else:
            soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
            if hard != resource.RLIM_INFINITY:
                return True                         # (this machine has a hard limit: case 2 covers it)
        return ns._fd_reader() is ns._fds
    assert _in_child(job) == "True"


FDS = '''
import os
import time


def pid():
    return os.getpid()


def leave_open():
    global kept
    kept = os.open("/dev/null", os.O_RDONLY)
    return os.getpid()


def move_stdin():
    os.dup2(0, 60)
    os.close(0)
    return os.getpid()


def child():
    if os.fork() == 0:
        time.sleep(5)
    return os.getpid()


def zombie():
    if os.fork() == 0:
        os._exit(0)
    time.sleep(0.05)
    return os.getpid()
'''


@pytest.mark.parametrize("change", ["leave_open", "move_stdin", "child", "zombie"])
def test_a_fresh_request_that_leaves_fds_or_children_is_the_last_its_runner_serves(change):
    """(Children alive or not: the zygote's look after each answer, Zygote.settled, not the
    runner's own check, retires it.)"""
    with Sandbox(FDS, "yahtzee.py", Limits(wall_s=2)) as box:
        def call(func):
            out = box.run(Request("call", func, fresh=True))
            assert out.status == "ok", out
            return out.value
        first = [call("pid") for _ in range(2)]
        if not box.applied.get("fresh_runner"):
            pytest.skip("no fresh runner here (no dict versions)")
        assert len(set(first)) == 1
        assert call(change) == first[0]             # it ran in the runner, and retired it
        after = call("pid")
        assert after != first[0]
        assert call("pid") == after                 # the next runner serves on


def test_the_random_reader_reads_the_generators_state_and_sees_every_change():
    import ctypes  # noqa: F401  (the reader uses ctypes only where the snapshot loaded it)
    import random
    import struct
    import sys

    ns = _harness()
    saved_state = random.getstate()
    try:
        state = random.getstate()
        seen = ns._random_reader(state)
        if sys.implementation.name != "cpython" or not (3, 6) <= sys.version_info[:2] <= (3, 13):
            assert seen is None
            return
        read, expected, write = seen
        internal = state[1]
        assert read() == expected == struct.pack(f"=i{len(internal) - 1}I", internal[-1], *internal[:-1])
        random.random()
        assert read() != expected                   # a draw
        write(expected)                             # its bytes written back: setstate(state) for
        assert random.getstate() == state           # the generator (restore's put back)
        write(expected)
        drawn = [random.random() for _ in range(700)]    # (past a twist of the 624 words)
        random.setstate(state)
        assert drawn == [random.random() for _ in range(700)]
        random.setstate(state)
        assert read() == expected                   # put back
        random.seed(4242)
        assert read() != expected                   # a seed
        random.setstate(state)
        random.getrandbits(1)
        assert read() != expected
        random.setstate(state)
        other = random.Random(7).getstate()
        assert ns._random_reader(other) is None     # bytes not the generator's: no reader
    finally:
        random.setstate(saved_state)


def _installed_as(change: str) -> str:
    """In a fork: the harness's patches installed for good and a snapshot taken (as the template
    does), then CHANGE, then a zygote's installed_as and a request process's guard from it."""
    import builtins
    import ctypes  # noqa: F401  (the snapshot's readers use it)
    import sys

    ns = _harness()
    ns.prepare_random()
    ns.install_patches("<template>")
    snapshot = ns.CleanState("<template>", patched=True)
    if snapshot.patch_read is None:
        return "no dict versions"
    name = "yahtzee.py"
    if change == "stdout":
        sys.stdout = sys.__stdout__ = open(os.devnull, "w")     # a patch undone before the zygote
    elif change == "builtins":
        builtins.input = lambda prompt="": ""
    elif change == "argv_items":
        sys.argv.append("more")                                  # (argv is always looked at)
    tags = snapshot.installed_as(name)
    guard = ns.Untouched(snapshot.patch_read, False).known_as(tags)
    written = guard.tags is None
    ns.install_patches(name, guard)                              # a request process's first
    return repr([tags is not None, written, ns.patches_in_place(name), sys.argv == [name]])


@pytest.mark.parametrize("change", ["none", "stdout", "builtins", "argv_items"])
def test_a_request_process_writes_no_patch_only_where_its_zygote_found_them_untouched(change):
    """CleanState.installed_as: the template's patches found as it left them (their modules' tags
    unchanged since its snapshot): sys.argv made the file's, and a request process's guard on them
    starts known (its first install_patches writes nothing); any write to those modules since
    (a patch replaced, another name bound, even one written back) or argv's items changed: no
    tags, the guard starts unknown and install_patches writes them all, as before.  Either way
    the patches are in place afterwards."""
    got = _in_child(lambda: _installed_as(change))
    if got == "no dict versions":
        pytest.skip(got)
    known = change in ("none", "argv_items")
    assert got == repr([known, not known, True, True]), got
