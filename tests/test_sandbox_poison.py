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
from helpers.detectors import DETECTORS, force

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


@pytest.fixture(scope="module", params=DETECTORS)
def graded(request, tmp_path_factory):
    force(request.param)
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
