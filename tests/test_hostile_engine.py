"""Engine fixes the hostile corpus found, pinned down at the sandbox level.

Answers written ahead by a shared worker never answer a later request, one forged with the nonce
found in the harness's frames speaks for its own request only; a huge return value is
summarised, not an internal error; classmates' files next to a submission are hidden from it.
The corpus itself is graded by test_hostile.py.
"""

from __future__ import annotations

import json

import pytest
from helpers.cli import class_beside_a_readable_folder, peek_source
from helpers.hostile import LIMITS, REPO

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


NONCE_FORGER = '''
import os
import sys


def forge(garbled):
    """Find the harness's request (and its nonce) and result fd in the frames above, and write an
    answer of its own that ends as the harness ends it: a full one, or one that is not JSON."""
    frame = sys._getframe(1)
    while frame is not None and not isinstance(frame.f_locals.get("req"), dict):
        frame = frame.f_back
    req, names = frame.f_locals["req"], frame.f_locals
    fd = names["res_w"] if "res_w" in names else names["wfd"]
    key = "retire" if "res_w" in names else "recycle"
    body = '"status":"ok",GARBLED' if garbled else '"status":"ok","value":99'
    os.write(fd, ('{"t":"result","seq":%d,%s,"nonce":"%s","%s":false}\\n'
                  % (req["seq"], body, req["nonce"], key)).encode())
    return 7


def echo(x):
    return x
'''


@pytest.mark.parametrize("fresh", [True, False])
def test_an_answer_forged_with_the_nonce_speaks_for_its_own_request_only(fresh):
    """Code that finds the nonce sent with its request (in the harness's frames) can write the
    answer the zygote takes without parsing it: a full one is that request's answer (as any first
    answer with its seq is), one that is not JSON makes that request a crash; the requests after
    it get their own answers (docs/threat-model.md)."""
    from autograder.engine.protocol import INTERNAL
    from autograder.engine.sandbox import Request, Sandbox

    with Sandbox(NONCE_FORGER, "yahtzee.py", Limits(wall_s=2)) as box:
        assert box.run(Request("call", "echo", [1], fresh=fresh)).value == 1
        full = box.run(Request("call", "forge", [False], fresh=fresh))
        assert (full.status, full.value) == ("ok", 99), full
        for i in range(3):
            assert box.run(Request("call", "echo", [i], fresh=fresh)).value == i
        garbled = box.run(Request("call", "forge", [True], fresh=fresh))
        assert (garbled.status, garbled.message) == ("crash", INTERNAL), garbled
        for i in range(3):
            assert box.run(Request("call", "echo", [i], fresh=fresh)).value == i


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


def test_classmates_files_next_to_a_submission_are_hidden():
    with class_beside_a_readable_folder("hostile-class-") as (other, klass):
        peek = peek_source([other, klass, klass / "alice.py"])
        (klass / "mallory.py").write_text((REPO / "solution" / "yahtzee.py").read_text() + peek)
        from autograder.engine import reporters
        from autograder.grading.grade import grade

        text = reporters.to_text(grade(klass / "mallory.py", "yahtzee", stage=2, limits=LIMITS))
        # The sandbox's root is an allowlist (the Python runtime, its own scratch folders): neither the
        # class folder nor an unrelated world-readable folder beside it exists there.
        assert "PEEK FileNotFoundError; FileNotFoundError; FileNotFoundError" in text, text[:3000]
