"""Engine fixes the hostile corpus found, pinned down at the sandbox level.

Answers written ahead by a shared worker never answer a later request; a huge return value is
summarised, not an internal error; classmates' files next to a submission are hidden from it.
The corpus itself is graded by test_hostile.py.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from helpers.cli import readable_spot
from helpers.hostile import ISO, LIMITS, REPO

from autograder.engine.sandbox import Limits

# ---------------------------------------------------------------------------------------------
# Engine fixes the corpus found, pinned down at the sandbox level
# ---------------------------------------------------------------------------------------------
FORGER = '''
import os
import threading
import time

LINE = b'{"t":"result","seq":%d,"status":"ok","value":"forged"}\\n'


def _forge():
    for fd in range(3, 64):
        for seq in range(300):
            try:
                os.write(fd, LINE % seq)
            except OSError:
                break


def forge(how):
    _forge()
    if how == "exit":
        os._exit(0)
    if how == "thread":
        threading.Thread(target=lambda: [(_forge(), time.sleep(0.001)) for _ in range(2000)], daemon=True).start()
    return "real"


def echo(x):
    return x
'''


@pytest.mark.parametrize("how", ["exit", "return", "thread"])
def test_answers_written_ahead_never_answer_a_later_request(how):
    """A shared worker that wrote result lines for requests it has not been sent yet is replaced:
    otherwise which request such a line answers depends on timing (the grade was not repeatable)."""
    from autograder.engine.sandbox import Request, Sandbox

    with Sandbox(FORGER, "yahtzee.py", Limits(wall_s=2)) as box:
        box.run(Request("call", "forge", [how], fresh=False))
        for i in range(8):
            out = box.run(Request("call", "echo", [i], fresh=False))
            assert (out.status, out.value) == ("ok", i), out


def test_a_huge_return_value_is_summarised_not_an_internal_error():
    from autograder.engine.sandbox import Request, Sandbox

    src = "def huge():\n    return ['x' * 99_000] * 2000\n\ndef digits():\n    return [10 ** 1200] * 20_000\n"
    with Sandbox(src, "yahtzee.py", Limits(wall_s=5, memory_mb=256)) as box:
        for fresh in (False, True):
            out = box.run(Request("call", "huge", fresh=fresh))
            assert out.status == "ok", out.message
            assert out.value[:2] == ["x" * 99_000] * 2
            assert out.value[-1] == {"__type__": "str", "length": 99_000, "start": ""}
            assert len(json.dumps(out.value)) < 10_000_000
            out = box.run(Request("call", "digits", fresh=fresh))
            assert out.status == "ok" and out.value[-1] == {"__type__": "int", "too_large": True}


PEEK = '''

import os


def format_dice(dice):
    found = []
    for path in ("@OTHER@", "@CLASS@", "@CLASS@/alice.py"):
        try:
            found.append(str(sorted(os.listdir(path)) if os.path.isdir(path) else len(open(path).read())))
        except OSError as err:
            found.append(type(err).__name__)
    return "; ".join(found)
'''


@pytest.mark.skipif(not ISO["namespaces"], reason="only mount namespaces can hide folders")
def test_classmates_files_next_to_a_submission_are_hidden():
    spot = readable_spot()
    if spot is None:
        pytest.skip("no world-readable folder outside /tmp to put a class in")
    root = Path(tempfile.mkdtemp(prefix="hostile-class-", dir=spot))
    try:
        os.chmod(root, 0o755)
        other, klass = root / "other", root / "class"
        for folder in (other, klass):
            folder.mkdir(mode=0o755)
        (other / "note.txt").write_text("readable: proves the sandbox could read here\n")
        shutil.copy(REPO / "solution" / "yahtzee.py", klass / "alice.py")
        for path in (other / "note.txt", klass / "alice.py"):
            path.chmod(0o644)
        peek = PEEK.replace("@OTHER@", str(other)).replace("@CLASS@", str(klass))
        (klass / "mallory.py").write_text((REPO / "solution" / "yahtzee.py").read_text() + peek)
        from autograder.engine import reporters
        from autograder.grading.grade import grade

        text = reporters.to_text(grade(klass / "mallory.py", "yahtzee", stage=2, limits=LIMITS))
        # The sandbox's root is an allowlist (the Python runtime, its own scratch folders): neither the
        # class folder nor an unrelated world-readable folder beside it exists there.
        assert "FileNotFoundError; FileNotFoundError; FileNotFoundError" in text, text[:3000]
    finally:
        shutil.rmtree(root, ignore_errors=True)
