"""The wire of a request, both ends (issue 13): result lines that leave out default fields, the
JSON shortcuts of the harness and the grader.  Each shortcut reads and writes exactly what the
plain way did: an absent field is its default, a line parses to the same answer."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autograder.engine import launch
from autograder.engine.harness import base
from autograder.engine.outcomes import _build
from autograder.engine.protocol import Limits, Request, _encode, _parse
from autograder.engine.sandbox import Sandbox, template_scope

FAST = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Every field of a result line with its default: the harness leaves these out (Run.result).
DEFAULTS = {"value": None, "error": None, "stdout": "", "events": [], "events_truncated": False,
            "args_after": None, "state_after": None, "import_stdout": "", "import_prompted": None,
            "inputs_asked": 0, "stdin_lines": 0, "has_stdin": False, "exhausted_at": None, "dice_used": 0,
            "dice_provided": None, "dice_failed_at": None, "exit_code": None, "exit_via": None,
            "exit_arg": None, "timed_out": False, "cpu_limited": False, "wall_stopped": False,
            "stopped_in": None, "endless": False, "output_chars": 0, "attempts": []}

FULL_RESULTS = [
    {"status": "ok", "value": 15, "args_after": ["Chance", [1, 2, 3, 4, 5]]},
    {"status": "ok", "value": None, "stdout": "hi\n", "events": [["out", "hi\n"]], "output_chars": 3},
    {"status": "exception", "error": {"type": "ValueError", "message": "bad", "line": 3}},
    {"status": "exit", "exit_code": 0, "exit_via": "sys.exit", "exit_arg": "0"},
    {"status": "exit", "exit_code": 3, "exit_via": "os._exit", "exit_arg": "3"},
    {"status": "input_exhausted", "inputs_asked": 3, "stdin_lines": 2, "has_stdin": True, "exhausted_at": 3,
     "events": [["in", "? ", "a"], ["in", "? ", "b"], ["in", "? ", None]]},
    {"status": "input_exhausted", "inputs_asked": 1, "exhausted_at": 1, "timed_out": True},
    {"status": "dice_exhausted", "dice_used": 5, "dice_provided": 5, "dice_failed_at": 6},
    {"status": "timeout", "timed_out": True, "stopped_in": ["spin", 4], "endless": True, "wall_stopped": True},
    {"status": "timeout", "cpu_limited": True},
    {"status": "import_error", "import_prompted": {"line": 2, "prompt": "name? "}, "import_stdout": "loading"},
    {"status": "ok", "value": {"a": 1}, "state_after": {"x": 2}, "attempts": ["opened /etc/passwd"]},
]


def _lines_of(result: dict, lean: bool) -> dict:
    """RESULT as the harness wrote it before (every field) or now (defaults left out)."""
    whole = {"t": "result", "seq": 1, **DEFAULTS, **result, "timeout": 1.0, "cpu": 0.01}
    return {k: v for k, v in whole.items() if not (lean and k in DEFAULTS and v == DEFAULTS[k]
                                                   and type(v) is type(DEFAULTS[k]))}


@pytest.mark.parametrize("result", FULL_RESULTS, ids=lambda r: r["status"])
def test_an_absent_field_reads_as_its_default(result):
    request = Request("call", "f", stdin=["a", "b"], dice=[1, 2, 3, 4, 5])
    trailer = {"t": "done", "seq": 1, "killed": False, "exited": False}
    full, lean = _lines_of(result, lean=False), _lines_of(result, lean=True)
    assert len(lean) < len(full)
    before = _build(request, 1.0, Limits(), full, trailer, 0.1, False)
    after = _build(request, 1.0, Limits(), lean, trailer, 0.1, False)
    assert after == before
    assert (after.stopped_in, after.endless, after.wall_stopped) == (before.stopped_in, before.endless,
                                                                      before.wall_stopped)


def test_the_harness_writes_only_what_differs_from_a_default(monkeypatch):
    """Real result lines of a sandbox (a plain call, a print, an exception, an exit(0), input that
    ran out): t, seq and status first, no field at its default, the outcomes as they always were."""
    seen: list[bytes] = []
    next_line = launch._Proc.next_line

    def spy(self, deadline):
        kind, line = next_line(self, deadline)
        seen.append(line or b"")
        return kind, line
    monkeypatch.setattr(launch._Proc, "next_line", spy)
    source = ("import sys\n"
              "def add(a, b):\n    return a + b\n"
              "def talk():\n    print('hi')\n"
              "def boom():\n    raise ValueError('bad')\n"
              "def leave():\n    sys.exit(0)\n"
              "def ask():\n    return input('? ') + input('? ')\n")
    requests = [Request("call", "add", [1, 2], fresh=False), Request("call", "talk", fresh=False),
                Request("call", "boom"), Request("call", "leave"), Request("call", "ask", stdin=["x"])]
    with template_scope(), Sandbox(source, "wire.py") as box:
        outcomes = box.run_batch(requests)
    assert [o.status for o in outcomes] == ["ok", "ok", "exception", "exit", "input_exhausted"]
    assert outcomes[0].value == 3 and outcomes[0].args_after == [1, 2]
    assert outcomes[1].stdout == "hi\n" and outcomes[1].events == [["out", "hi\n"]]
    assert outcomes[3].exit_code == 0 and outcomes[3].message == "called sys.exit(0)"
    assert outcomes[4].inputs_asked == 2 and "has 1 line" in outcomes[4].message
    answers = [json.loads(line)["result"] for line in seen if line.startswith(b'{"t":"done"')]
    assert len(answers) == len(requests)
    for answer in answers:
        assert list(answer)[:3] == ["t", "seq", "status"]
        at_default = [k for k, v in answer.items() if k in DEFAULTS and v == DEFAULTS[k]
                      and type(v) is type(DEFAULTS[k])]
        assert at_default == []
    left = [a for a in answers if a["status"] == "exit"]      # (the batch may send fresh requests first)
    assert len(left) == 1 and left[0]["exit_code"] == 0      # an exit code 0 is not a default: it is said


def _old_parse(line: bytes | None) -> dict | None:
    """protocol._parse before the shortcut."""
    if line is None:
        return None
    try:
        msg = (json.JSONDecoder().decode(line.decode("utf-8", "surrogatepass")) if line.startswith(b'{"')
               else json.loads(line))
    except (ValueError, RecursionError, MemoryError):
        return None
    return msg if isinstance(msg, dict) else None


def _same(a, b) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)     # (NaN != NaN)


json_text = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
                         lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=5), c, max_size=3),
                         max_leaves=10).map(json.dumps)
lines = st.one_of(
    st.binary(max_size=80).map(lambda b: b'{"' + b),                      # garbage after the usual start
    st.tuples(json_text, st.sampled_from(["", " ", "\t", "x", "}", " {}", "\r", "\n"]))
    .map(lambda p: ('{"k": ' + p[0] + "}" + p[1]).encode()),             # one value, then anything
    st.builds(lambda a, b: ('{"a": ' + a + ', "b": ' + b + "}").encode("utf-8", "surrogatepass"),
              json_text, st.text(max_size=5).map(json.dumps)))


@FAST
@given(lines)
def test_the_grader_parses_every_line_as_before(line):
    assert _same(_parse(line), _old_parse(line))


@FAST
@given(lines)
def test_the_sandbox_reads_a_request_line_as_json_loads_does(line):
    try:
        expected = ("value", json.loads(line))
    except (ValueError, RecursionError) as e:
        expected = ("error", type(e))
    try:
        got = ("value", base._loads_line(line))
    except (ValueError, RecursionError) as e:
        got = ("error", type(e))
    assert got[0] == expected[0] and (_same(got[1], expected[1]) if got[0] == "value" else got[1] == expected[1])


@FAST
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
                    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=5), c, max_size=3),
                    max_leaves=20))
def test_both_encoders_write_what_json_wrote(value):
    assert _encode({"args": value}) == json.dumps({"args": value}).encode()
    plain = json.JSONEncoder(ensure_ascii=True, separators=(",", ":")).encode
    assert base._dumps({"value": value}) == plain({"value": value})


def test_circular_or_foreign_arguments_are_the_same_type_error():
    loop: list = []
    loop.append(loop)
    for bad in ({"x": loop}, {"x": object()}, {"x": {1, 2}}):
        with pytest.raises(TypeError, match="must be JSON data"):
            _encode(bad)


WORKER_LIES = """\
import _thread
import os
import threading
import time

SEEN = []


def _quiet():
    _thread._count = lambda: 0          # the worker's own thread count now says none
    os.waitpid = lambda *a: (0, 0)      # ...and its own child test (not asked with /proc)


def thread():
    _quiet()
    threading.Thread(target=lambda: (time.sleep(0.3), SEEN.append("thread")), daemon=True).start()
    return len(SEEN)


def child():
    _quiet()
    if os.fork() == 0:
        time.sleep(30)
        os._exit(0)
    SEEN.append("child")
    return len(SEEN)


def later():
    time.sleep(0.5)
    return SEEN
"""


def test_a_worker_that_hides_its_thread_or_child_from_itself_is_replaced():
    """The shared worker's own checks fooled (its _thread count and waitpid patched): the zygote's
    reading of its /proc task folder (link count: 2 + its threads) and children file still sees
    the thread or the child, and the next call gets a new worker (its module imported again)."""
    with template_scope(), Sandbox(WORKER_LIES, "lies.py") as box:
        box.start()
        if not box.applied.get("proc"):
            pytest.skip("no procfs of the sandbox's own: the worker's checks are the only ones")
        first = box.run(Request("call", "thread", fresh=False))
        after = box.run(Request("call", "later", fresh=False))
        assert first.value == 0 and after.status == "ok" and after.value == []
        assert after.worker[0] != first.worker[0]           # another worker generation
        forked = box.run(Request("call", "child", fresh=False))
        again = box.run(Request("call", "later", fresh=False))
        assert forked.value == 1 and again.value == []
        assert again.worker[0] != forked.worker[0]
