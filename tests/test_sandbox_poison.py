"""One request poisoning the next: programs that change the process they run in during one request.

Each program is the reference plus a tail that, inside `ask_keep` (a fresh request: it reads
stdin), changes global state its later requests could see if they shared its process: builtins,
`random`, a stdlib module's state, the recursion limit, a leftover thread or child, the working
folder and open files, signal handlers, `sys.modules`, the standard streams.  `format_dice` (a
pure call and part of every game) counts its calls on a stdlib module, so it answers wrongly
from its second call in one process on.  Their exact scores were recorded on main before the
sandbox's request handling changed (issue 13: several fresh requests in one process must not
change them); all are graded in ONE grading session.
"""

from __future__ import annotations

from pathlib import Path

import pytest

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


def _program(name: str) -> str:
    text = REFERENCE.rstrip("\n") + "\n" + COUNTING
    if name in CASES:
        text += POISON.format(body=CASES[name])
    return text


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("poison")
    paths = []
    for name in EXPECTED:
        folder = root / name
        folder.mkdir()
        (folder / "yahtzee.py").write_text(_program(name), encoding="utf-8")
        paths.append(folder)
    reports = {}
    grade_stream(iter(paths), lambda report: reports.__setitem__(Path(report.submission).name, report),
                 "yahtzee", "all")
    return reports


@pytest.mark.parametrize("name", list(EXPECTED))
def test_a_request_cannot_poison_the_next(graded, name):
    report = graded[name]
    assert not report.error, report.error
    assert round(report.score, 4) == EXPECTED[name], f"{name}: {report.score}"
