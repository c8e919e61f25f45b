"""The fresh runner that lets fresh requests share a process (issue 13), and how it tells a clean
process: dict versions (the ctypes reader, CPython's _testcapi), adopted copies, the private tmp
folders.  Split from tests/test_sandbox_poison.py (pass 24), which grades the programs that try to
poison the next request.
"""

from __future__ import annotations

import pytest
from helpers.detectors import DETECTORS, force

from autograder.engine.sandbox import Limits, Request, Sandbox

RUNNER = '''
import builtins
import os


def pid():
    return os.getpid()


def dirty():
    builtins.LEFT_BEHIND = True
    return os.getpid()


def loop():
    while True:
        pass
'''


def _call(box, func):
    out = box.run(Request("call", func, fresh=True))
    return out.value if out.status == "ok" else out.status


@pytest.mark.parametrize("detector", DETECTORS)
def test_fresh_requests_share_a_process_only_while_it_stays_clean(detector, monkeypatch):
    """The fresh runner: consecutive fresh requests run in one process (each with a freshly executed
    module); a request that leaves it changed, or ends unclean (a timeout), is the last one there."""
    force(detector)
    monkeypatch.setenv("AUTOGRADER_DICT_VERSIONS", detector)
    call = _call
    with Sandbox(RUNNER, "yahtzee.py", Limits(wall_s=0.3)) as box:
        first = [call(box, "pid") for _ in range(3)]
        assert box.applied["fresh_runner"] == detector
        assert len(set(first)) == 1
        assert call(box, "dirty") == first[0]         # it ran there, and retired the runner
        second = [call(box, "pid") for _ in range(2)]
        assert len(set(second)) == 1 and second[0] != first[0]
        assert call(box, "loop") == "timeout"
        assert call(box, "pid") not in second


def test_without_dict_versions_every_fresh_request_is_a_fork_of_its_own(monkeypatch):
    """Where the check cannot read dict versions (AUTOGRADER_DICT_VERSIONS=none stands for a Python
    whose layout the ctypes reader refuses and that has no _testcapi) there is no fresh runner."""
    monkeypatch.setenv("AUTOGRADER_DICT_VERSIONS", "none")
    with Sandbox(RUNNER, "yahtzee.py", Limits(wall_s=0.3)) as box:
        pids = [_call(box, "pid") for _ in range(3)]
        assert box.applied["fresh_runner"] is False
    assert len(set(pids)) == 3 and all(isinstance(p, int) for p in pids)


def test_the_ctypes_reader_reads_the_dict_versions_testcapi_reads_and_refuses_other_layouts():
    """harness/clean.py's portable reader: the version tag of each dict at its offset in the dict's
    struct, which every write changes and no read does; _testcapi's values where it exists; None
    (no fresh runner) for a Python whose layout it does not know, or anything but a dict."""
    import collections
    import os
    import sys

    from autograder.engine import harness
    ns: dict = {"__name__": "harness_under_test"}
    exec(compile(harness.source(), "<sandbox-harness>", "exec"), ns)
    dicts = [{}, vars(os), {"a": 1}]
    read = ns["_ctypes_reader"](dicts)
    if sys.implementation.name != "cpython" or not (3, 6) <= sys.version_info[:2] <= (3, 13):
        assert read is None
        return
    before = read()
    assert read() == before
    dicts[2]["a"] = 2
    after = read()
    assert after[:2] == before[:2] and after[2] != before[2]
    dicts[0]["new"] = None
    assert read()[0] != before[0]
    try:
        from _testcapi import dict_get_version
    except ImportError:
        dict_get_version = None
    if dict_get_version is not None:
        assert list(read()) == [dict_get_version(d) for d in dicts]
    assert ns["version_reader"](dicts, "ctypes")[1] == "ctypes"
    assert ns["_ctypes_reader"](dicts, (3, 14)) is None
    assert ns["_ctypes_reader"]([*dicts, collections.OrderedDict()]) is None
    assert ns["version_reader"](dicts, "none") == (None, None)
    assert ns["_ctypes_reader"]([])() == ()


def test_the_unordered_reader_reads_the_same_tags_in_one_struct_unpack_and_sees_every_write():
    """The clean-state check's reader of its ~950 dicts (CleanState.versions, ordered=False): one
    struct unpack of the tags in address order, the words between skipped.  It reads exactly
    the tags the ordered reader reads (as a multiset, in a fixed order), and a write to ANY of
    the dicts (first, last, in between; a rebinding, an insertion, a deletion, a clear) moves
    its reading; it never moves on a read.  Where it cannot be made (the same dict twice) the
    ordered reader is used."""
    import sys

    from autograder.engine import harness
    ns: dict = {"__name__": "harness_under_test"}
    exec(compile(harness.source(), "<sandbox-harness>", "exec"), ns)
    if sys.implementation.name != "cpython" or not (3, 6) <= sys.version_info[:2] <= (3, 13):
        return
    dicts = [{"k": i} for i in range(300)] + [vars(sys), {}, ns]
    dicts = dicts[::3] + dicts[1::3] + dicts[2::3]          # (not in address order)
    ordered = ns["_ctypes_reader"](dicts)
    read, how = ns["version_reader"](dicts, "ctypes", ordered=False)
    assert how == "ctypes" and read.__qualname__.startswith("_struct_reader")
    assert sorted(read()) == sorted(ordered()) and len(read()) == len(dicts)
    base = read()
    assert read() == base and [d.get("k") for d in dicts[:5]] and read() == base
    for i, write in [(0, lambda d: d.update(k=-1)), (len(dicts) - 1, lambda d: d.setdefault("x", 1)),
                     (150, lambda d: d.pop("k")), (77, lambda d: d.clear()), (200, lambda d: d.__setitem__("k", str(d["k"])))]:
        before = read()
        write(dicts[i])
        after = read()
        assert after != before and sum(a != b for a, b in zip(after, before)) == 1, i
    same = {"a": 1}
    assert ns["_ctypes_reader"]([same, same], ordered=False)() == ns["_ctypes_reader"]([same, same])()
    assert ns["_ctypes_reader"]([same, same], ordered=False).__qualname__ == "_ctypes_reader.<locals>.read"


def test_adopted_copies_are_checked_before_student_code_and_an_unchecked_check_says_unclean():
    """CleanState.adopt leaves the reading of the lists' and sets' items to where it is used (a
    runner's start: base, before any student code): read there, it is the process's own (a list
    changed after the walk included, its items held alive), and a later in-place change is seen;
    a check that finds it unread says unclean, never compares with a reading of another state."""
    import sys
    import types

    from helpers.harness import loaded
    ns = loaded()
    saved_main, saved_path = sys.modules.get("__main__"), list(sys.path)
    sys.modules["__main__"] = ns
    try:
        snapshot = ns.CleanState("yahtzee.py")
        if snapshot.versions is None:
            return
        sys.path.append("/changed-after-the-walk")
        adopted = snapshot.adopt("yahtzee.py")
        assert adopted.copies_checked is False
        unchecked = types.SimpleNamespace(guard=None, dirty=False)
        assert adopted.same(None, unchecked) is False          # (before any other look)
        adopted.base()
        assert adopted.copies_checked is True
        base = adopted.ids_base                 # (the lists' and sets' items: by identity)
        assert adopted.ids.same(base)
        held = [items for group in getattr(adopted.ids, "extra", [base]) for items in group]
        assert any(items == tuple(sys.path) and items[-1] is sys.path[-1] for items in held)
        sys.path.append("/changed-by-a-request")
        assert not adopted.ids.same(base)
    finally:
        sys.path[:] = saved_path
        sys.modules["__main__"] = saved_main


TMP_NOTES = '''
import os

TOPS = ("/tmp", "/var/tmp", "/dev/shm")


def write(tag):
    for top in TOPS:     # (entries only: no content written, which inotify would also report)
        os.close(os.open(os.path.join(top, "note-" + tag), os.O_CREAT | os.O_WRONLY))
        os.makedirs(os.path.join(top, "dir-" + tag, "inner"))
    os.link("/tmp/note-" + tag, "/tmp/link-" + tag)
    os.rename("/var/tmp/note-" + tag, "/var/tmp/moved-" + tag)
    return tag


def found():
    return sorted(os.path.join(top, name) for top in TOPS for name in os.listdir(top)
                  if os.path.join(top, name) != "/tmp/work")
'''


def test_files_a_request_leaves_in_the_private_tmp_folders_are_gone_for_the_next_fresh_request():
    """The zygote empties /tmp, /var/tmp and /dev/shm (all but its work folder) after every fresh
    request; it lists them only when its inotify watch saw an entry appear, move or go there."""
    with Sandbox(TMP_NOTES, "yahtzee.py", Limits(wall_s=2)) as box:
        if not box.run(Request("call", "found")).status == "ok" or box.applied.get("private_tmp") is None:
            pytest.skip("this machine gives the sandbox no private tmp folders (not root)")
        for tag in "abc":
            assert box.run(Request("call", "write", [tag])).value == tag
            assert box.run(Request("call", "found")).value == []
        assert box.run(Request("call", "write", ["d"], fresh=False)).value == "d"      # the shared worker
        left = box.run(Request("call", "found")).value          # (a fresh request empties them after it)
        assert "/tmp/note-d" in left and "/var/tmp/moved-d" in left and "/dev/shm/dir-d" in left
        assert box.run(Request("call", "found")).value == []
        assert box.run(Request("call", "found", fresh=False)).value == []
