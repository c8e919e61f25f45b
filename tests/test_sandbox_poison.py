"""One request poisoning the next: programs that change the process they run in during one request.

Each program is the reference plus a tail that, inside `ask_keep` (a fresh request: it reads
stdin), changes global state its later requests could see if they shared its process: builtins,
`random`, a stdlib module's state, the recursion limit, a leftover thread or child, the working
folder and open files, signal handlers, `sys.modules`, the standard streams.  `format_dice` (a
pure call and part of every game) counts its calls on a stdlib module, so it answers wrongly
from its second call in one process on.  Their exact scores were recorded on main before the
sandbox's request handling changed (issue 13: several fresh requests in one process must not
change them); all are graded in ONE grading session per way of reading dict versions (the
check's ctypes reader and CPython's _testcapi: harness/clean.py, AUTOGRADER_DICT_VERSIONS).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from autograder.engine.sandbox import Limits, Request, Sandbox
from autograder.grading.grade import grade_stream

REPO = Path(__file__).resolve().parent.parent
REFERENCE = (REPO / "solution" / "yahtzee.py").read_text(encoding="utf-8")

POISON = '''

# --- poison: one request changes the process for the next ---
_ask_keep_before_poison = ask_keep


def ask_keep():
    answer = _ask_keep_before_poison()
    _poison()
    return answer


def _poison():
{body}
'''

CASES = {
    "poison_print": """\
    import builtins
    builtins.print = lambda *args, **kwargs: None
""",
    "poison_input": """\
    import builtins
    builtins.input = lambda prompt="": "ALL"
""",
    "poison_random": """\
    random.randint = lambda a, b: 6
    random.seed = lambda *args, **kwargs: None
    random.choice = lambda seq: seq[0]
    random.shuffle = lambda seq: None
""",
    "poison_recursion_limit": """\
    import sys
    sys.setrecursionlimit(90)
""",
    "poison_thread": """\
    import builtins
    import threading
    import time

    def later():
        time.sleep(0.2)
        while True:
            builtins.print = lambda *args, **kwargs: None
            time.sleep(0.01)
    threading.Thread(target=later, daemon=True).start()
""",
    "poison_child": """\
    import os
    import time
    if os.fork() == 0:
        time.sleep(0.3)
        for fd in range(1, 20):
            try:
                os.write(fd, b'{"t":"result","seq":1,"status":"ok","value":50}\\n')
            except OSError:
                pass
        time.sleep(30)
        os._exit(0)
""",
    "poison_cwd_files": """\
    import os
    os.chdir("/")
    os.umask(0o777)
    _HELD.extend(open(os.devnull) for _ in range(40))
""",
    "poison_signals": """\
    import signal
    for sig in (signal.SIGALRM, signal.SIGXCPU, signal.SIGTERM, signal.SIGINT):
        try:
            signal.signal(sig, signal.SIG_IGN)
        except (OSError, ValueError):
            pass
""",
    "poison_modules": """\
    import sys
    import types
    fake = types.ModuleType("random")
    fake.randint = lambda a, b: 1
    fake.seed = lambda *args, **kwargs: None
    sys.modules["random"] = fake
    sys.modules["json"] = fake
""",
    "poison_streams": """\
    import io
    import sys
    sys.stdout = io.StringIO()
    sys.stderr = io.StringIO()
    sys.stdin = io.StringIO("ALL\\nChance\\n" * 50)
""",
}

COUNTING = '''

_HELD = []
_format_dice_before = format_dice


def format_dice(dice):
    import collections
    collections._times_formatted = getattr(collections, "_times_formatted", 0) + 1
    text = _format_dice_before(dice)
    return text if collections._times_formatted < 2 else text + " "
'''

# Recorded on main (b89b5f6) before the sandbox's request handling changed.  Each loses format_dice's
# three pure-call checks (its counter on `collections` outlives a call in the shared worker, as it
# may); a poison that breaks the rest of its own request (the round play_round plays calls ask_keep)
# also loses play_round checks.  A later request never sees an earlier one's poison.
EXPECTED = {
    "counting_only": 98.5,
    "poison_print": 92.5,
    "poison_input": 92.5,
    "poison_random": 93.125,
    "poison_recursion_limit": 98.5,
    "poison_thread": 98.5,
    "poison_child": 98.5,
    "poison_cwd_files": 93.125,
    "poison_signals": 98.5,
    "poison_modules": 98.5,
    "poison_streams": 92.5,
}


# The second kind (issue 13: several fresh requests in one process): a poison that changes nothing
# its own request shows, and a canary that every LATER request checks first: a fresh request that
# finds state an earlier request left raises, so a leak costs many checks.  Each poison leaves its
# request's process changed in one way a clean-state check must see (or undo).
CANARY = '''

# --- poison with a canary: a later request that finds this state fails loudly ---
_ask_keep_before_canary = ask_keep
_poisoned_here = False


def ask_keep():
    global _poisoned_here
    if not _poisoned_here and _canary():
        raise RuntimeError("state left by an earlier request")
    answer = _ask_keep_before_canary()
    _poison()
    _poisoned_here = True
    return answer


def _poison():
{body}

def _canary():
{canary}
'''

CANARIES = {
    "canary_json": ("""\
    import json
    json.dumps = lambda *args, **kwargs: "{}"
""", """\
    import json
    return json.dumps([1]) != "[1]"
"""),
    "canary_class_attribute": ("""\
    random.Random.choice = lambda self, seq: seq[0]
""", """\
    return random.Random.choice.__name__ != "choice"
"""),
    "canary_base_class_attribute": ("""\
    type(random._inst).choice = lambda self, seq: seq[0]
""", """\
    return getattr(type(random._inst), "choice").__name__ != "choice"
"""),
    "canary_instance_attribute": ("""\
    random._inst.random = lambda: 0.5
""", """\
    return "random" in vars(random._inst)
"""),
    "canary_re_cache": ("""\
    import re
    re.compile("poison")
    for key in list(re._cache):
        if key[1] == "poison":
            re._cache[key] = re.compile("antidote")
""", """\
    import re
    return re.match("poison", "poison") is None
"""),
    "canary_copy_dispatch": ("""\
    import copy
    copy._deepcopy_dispatch[list] = lambda x, memo: []
""", """\
    import copy
    return copy.deepcopy([1]) != [1]
"""),
    "canary_gc": ("""\
    import gc
    gc.disable()
    gc.set_threshold(5)
""", """\
    import gc
    return not gc.isenabled() or gc.get_threshold()[0] == 5
"""),
    "canary_trace": ("""\
    import sys
    sys.settrace(lambda *args: None)
    sys.setprofile(lambda *args: None)
""", """\
    import sys
    return sys.gettrace() is not None or sys.getprofile() is not None
"""),
    "canary_atexit": ("""\
    import atexit
    atexit.register(print, "bye")
""", """\
    import atexit
    return atexit._ncallbacks() > 0
"""),
    "canary_umask": ("""\
    import os
    os.umask(0o071)
""", """\
    import os
    old = os.umask(0o022)
    os.umask(old)
    return old == 0o071
"""),
    "canary_stdout_method": ("""\
    import sys
    sys.stdout.write = lambda text: len(text)
""", """\
    import sys
    return "write" in vars(sys.stdout)
"""),
    "canary_environ": ("""\
    import os
    os.environ["YAHTZEE_POISON"] = "1"
""", """\
    import os
    return "YAHTZEE_POISON" in os.environ
"""),
    "canary_import_path": ("""\
    import sys

    class PoisonFinder:
        @staticmethod
        def find_spec(*args, **kwargs):
            return None
    sys.meta_path.insert(0, PoisonFinder())
    sys.path.insert(0, "/poison")
""", """\
    import sys
    return "/poison" in sys.path or any(type(f).__name__ == "PoisonFinder" for f in sys.meta_path)
"""),
    "canary_audit_hook": ("""\
    import sys

    def hook(event, args):
        if event == "poison.canary":
            raise RuntimeError("poisoned")
    sys.addaudithook(hook)
""", """\
    import sys
    try:
        sys.audit("poison.canary")
    except RuntimeError:
        return True
    return False
"""),
    "canary_itimer": ("""\
    import signal
    signal.setitimer(signal.ITIMER_VIRTUAL, 1000)
""", """\
    import signal
    return signal.getitimer(signal.ITIMER_VIRTUAL)[0] > 0
"""),
    "canary_signal_mask": ("""\
    import signal
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
""", """\
    import signal
    return signal.SIGUSR1 in signal.pthread_sigmask(signal.SIG_BLOCK, [])
"""),
    "canary_sys_settings": ("""\
    import sys
    sys.set_int_max_str_digits(700)
    sys.setswitchinterval(0.5)
    sys.excepthook = lambda *args: None
""", """\
    import sys
    return (sys.get_int_max_str_digits() == 700 or sys.getswitchinterval() == 0.5
            or sys.excepthook is not sys.__excepthook__)
"""),
    "canary_new_names": ("""\
    import builtins
    import sys
    import types
    builtins.POISON = 1
    sys.modules["poison_module"] = types.ModuleType("poison_module")
""", """\
    import builtins
    import sys
    return hasattr(builtins, "POISON") or "poison_module" in sys.modules
"""),
    "canary_random_state": ("""\
    random.seed(4242)
""", """\
    return random.getstate() == random.Random(4242).getstate()
"""),
    "canary_random_generator": ("""\
    import _random
    random.random()
    _random.Random.setstate(random._inst, random.Random(4243).getstate()[1])
""", """\
    return random._inst.getstate()[1] == random.Random(4243).getstate()[1]
"""),
    "canary_new_module_state": ("""\
    import decimal
    decimal.getcontext().prec = 3
""", """\
    import sys
    return "decimal" in sys.modules and sys.modules["decimal"].getcontext().prec == 3
"""),
    "canary_finalizer": ("""\
    class Ghost:
        def __del__(self):
            import builtins
            builtins.GHOST = True
    ghost = Ghost()
    ghost.me = ghost
""", """\
    import builtins
    import gc
    gc.collect()
    return hasattr(builtins, "GHOST")
"""),
}

# Recorded on main (8d55a33), one fresh process per request: each as counting_only, but
# canary_stdout_method, whose own request prints nothing after its poison (as poison_streams).
EXPECTED_CANARIES = {name: 98.5 for name in CANARIES} | {"canary_stdout_method": 92.5}


def _program(name: str) -> str:
    text = REFERENCE.rstrip("\n") + "\n" + COUNTING
    if name in CASES:
        text += POISON.format(body=CASES[name])
    if name in CANARIES:
        body, canary = CANARIES[name]
        text += CANARY.format(body=body, canary=canary)
    return text


DETECTORS = ("ctypes", "testcapi")


def _force(detector: str) -> None:
    """Sandboxes started from now on read dict versions this way (skip where this Python has none)."""
    if detector == "testcapi":
        pytest.importorskip("_testcapi", reason="this Python has no _testcapi")


@pytest.fixture(scope="module", params=DETECTORS)
def graded(request, tmp_path_factory):
    _force(request.param)
    root = tmp_path_factory.mktemp("poison")
    paths = []
    for name in [*EXPECTED, *EXPECTED_CANARIES]:
        folder = root / name
        folder.mkdir()
        (folder / "yahtzee.py").write_text(_program(name), encoding="utf-8")
        paths.append(folder)
    reports = {}
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("AUTOGRADER_DICT_VERSIONS", request.param)
        grade_stream(iter(paths), lambda report: reports.__setitem__(Path(report.submission).name, report),
                     "yahtzee", "all")
    return reports


@pytest.mark.parametrize("name", list(EXPECTED))
def test_a_request_cannot_poison_the_next(graded, name):
    report = graded[name]
    assert not report.error, report.error
    assert round(report.score, 4) == EXPECTED[name], f"{name}: {report.score}"


@pytest.mark.parametrize("name", list(EXPECTED_CANARIES))
def test_a_request_cannot_leave_state_for_the_next(graded, name):
    report = graded[name]
    assert not report.error, report.error
    assert round(report.score, 4) == EXPECTED_CANARIES[name], f"{name}: {report.score}"


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
    _force(detector)
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
