"""A stopped sandbox's control group kept for the grader's next sandbox (issue 13: cgroup.py,
Group.release): only once nothing is left in it, only for the same limits, never while its
sandbox lives, and removed at the grader's exit."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from autograder.engine import cgroup
from autograder.engine.sandbox import Limits, Request, Sandbox, isolation, template_scope

ISO = isolation()
pytestmark = pytest.mark.skipif(not ISO["uid_drop"], reason="cgroups need root")

WHERE = "import os\n\ndef where():\n    return open('/proc/self/cgroup').read()\n"


def _groups(text: str) -> set[str]:
    return {line.split(":", 2)[2] for line in text.splitlines() if "autograder-" in line}


def _reaped(seconds: float = 5.0) -> None:
    """Until the released groups have nothing left in them (a zygote is reaped by its parent,
    the template, a moment after the grader saw it exit)."""
    deadline = time.monotonic() + seconds
    while any(not g._empty() for g in cgroup._later) and time.monotonic() < deadline:
        time.sleep(0.01)


def test_a_stopped_sandboxs_group_serves_the_next_one_and_two_live_sandboxes_never_share():
    limits = Limits(memory_mb=96)
    with template_scope():
        with Sandbox(WHERE, "w.py", limits=limits) as first:
            before = first.run(Request("call", "where"))
            if not first.applied.get("cgroup"):
                pytest.skip("this machine gives no writable cgroup")
        _reaped()
        with Sandbox(WHERE, "w.py", limits=limits) as second, Sandbox(WHERE, "w.py", limits=limits) as third:
            again = second.run(Request("call", "where"))
            other = third.run(Request("call", "where"))
        with Sandbox(WHERE, "w.py", limits=Limits(memory_mb=97)) as fourth:   # other limits: a group of its own
            elsewhere = fourth.run(Request("call", "where"))
    assert _groups(before.value) and _groups(again.value) == _groups(before.value)
    assert not _groups(other.value) & _groups(again.value)
    assert not _groups(elsewhere.value) & (_groups(before.value) | _groups(other.value))


def test_a_group_with_a_process_left_in_it_is_not_given_out_until_it_is_gone():
    limits = (64 << 20, 8)
    group = cgroup.Group.create(*limits)
    if group is None:
        pytest.skip("this machine gives no writable cgroup")
    left = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        assert group.add(left.pid)
        assert not group._empty()
        group.release()
        assert group not in cgroup._pool.get(group.key, []) and group in cgroup._later
        other = cgroup.Group.create(*limits)            # not the one a process is still in
        assert other is not None and other is not group and not set(other.dirs) & set(group.dirs)
        other.release()
        assert cgroup.Group.create(*limits) is other    # (an empty one: given out again)
        other.remove(wait=1)
        left.kill()
        left.wait()
        assert cgroup.Group.create(*limits) is group    # empty now: given out
    finally:
        left.kill()
        left.wait()
        group.remove(wait=1)
    assert not any(os.path.exists(folder) for folder in group.dirs)


def test_groups_that_emptied_while_waiting_do_not_block_the_next_one():
    """_later full of groups whose processes have gone since (their own key's pool never ran dry,
    so create() never looked at them): the next group released with a process in it still
    waits there, and they move to their pool.  (A test worker that had graded a class kept eight
    such groups, and every later one was removed on the spot: CI, pass 24.)"""
    cgroup.remove_kept()                                # (this worker's earlier sandboxes' groups)
    limits, other_limits = (48 << 20, 8), (40 << 20, 8)
    waiting = [cgroup.Group.create(*limits) for _ in range(cgroup._POOL_MAX)]
    if waiting[0] is None:
        pytest.skip("this machine gives no writable cgroup")
    sleepers = [subprocess.Popen(["sleep", "30"]) for _ in waiting]
    late = cgroup.Group.create(*other_limits)
    last = subprocess.Popen(["sleep", "30"])
    try:
        for group, sleeper in zip(waiting, sleepers):
            assert group.add(sleeper.pid)
            group.release()
        assert cgroup._later == waiting
        for sleeper in sleepers:
            sleeper.kill()
            sleeper.wait()
        deadline = time.monotonic() + 5
        while not all(g._empty() for g in waiting) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert late.add(last.pid)
        late.release()
        assert cgroup._later == [late]
        assert cgroup._pool[waiting[0].key] == waiting
    finally:
        for process in [*sleepers, last]:
            process.kill()
            process.wait()
        cgroup.remove_kept()
    assert not any(os.path.exists(folder) for g in [*waiting, late] for folder in g.dirs)


def test_kept_groups_are_removed_at_the_graders_exit(tmp_path):
    """A grader process's kept groups are gone once it exits (atexit), and a child forked from
    it does not remove its parent's kept groups when the child exits."""
    script = tmp_path / "keep.py"
    script.write_text(
        "import os, sys\n"
        f"sys.path.insert(0, {os.getcwd()!r})\n"
        "from autograder.engine import cgroup\n"
        "group = cgroup.Group.create(64 << 20, 8)\n"
        "if group is None:\n    print('none'); sys.exit()\n"
        "group.release()\n"
        "assert cgroup._pool[group.key] == [group]\n"
        "pid = os.fork()\n"
        "if pid == 0:\n    sys.exit(0)\n"
        "os.waitpid(pid, 0)\n"
        "assert all(os.path.isdir(d) for d in group.dirs), 'a child removed its parent\\'s group'\n"
        "print('\\n'.join(group.dirs))\n")
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    if out.stdout.strip() == "none":
        pytest.skip("this machine gives no writable cgroup")
    folders = out.stdout.split()
    assert folders and not any(os.path.exists(folder) for folder in folders)


def test_the_end_of_a_grading_session_removes_the_kept_groups():
    """A grade-all worker ends with os._exit (no atexit): close_references, its session's last
    act, removes what it kept."""
    from autograder.engine.program import close_references

    group = cgroup.Group.create(64 << 20, 8)
    if group is None:
        pytest.skip("this machine gives no writable cgroup")
    group.release()
    assert group in cgroup._pool[group.key]
    close_references()
    assert not cgroup._pool and not cgroup._later
    assert not any(os.path.exists(folder) for folder in group.dirs)
