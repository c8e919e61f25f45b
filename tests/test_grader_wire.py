"""The grader's end of the wire read and written by bytes (issue 13): a plan's request lines
built from parts encoded once (protocol.planned_line), and an ok answer whose content was seen
before read by its bytes (outcomes.answer_by_bytes).  Each gives exactly what the plain way gives:
the same request line, byte for byte; the same Outcome, or no shortcut at all."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autograder.engine import outcomes as outcomes_module
from autograder.engine.outcomes import _build, answer_by_bytes
from autograder.engine.protocol import Limits, Outcome, Request, _encode, _parse, _payload_data, planned_line
from autograder.engine.sandbox import Sandbox, template_scope

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

REQUESTS = [
    Request("call", "score", [[1, 2, 3, 4, 5], "Chance"]),
    Request("call", "parse_keep", ["1 3"], fresh=False),
    Request("script", stdin=["y", "1 2", "Chance"], seed=7, dice=[1, 2, 3, 4, 5, 6]),
    Request("call", "play", stdin=[], dice=None, seed=None, timeout=0.5),
    Request("call", "Card.total", instance={"init": [1], "kwargs": {"b": 2}, "state": {"x": [1]}}),
    Request("call", "f", [(1, 2), {3}], {"k": {4: "v"}}, typed=True,
            instance=None),
    Request("call", "Card.add", [(1, 2)], typed=True, instance={"init": [(3,)], "kwargs": {}, "state": {"s": {1}}}),
    Request("call", "round", ["é\n\u2028", -0.0, 1e300, None, True], substitute={"names": ["roll"], "keep": ["x"]}),
]


@pytest.mark.parametrize("request_", REQUESTS, ids=lambda r: f"{r.kind}-{r.func}")
@pytest.mark.parametrize("run", [(1, 2.0, None), (17, 0.25, 0.75), (123456, 1, 3.0), (2, 2.0, 1.0)])
def test_a_planned_line_is_the_plain_line(request_, run):
    seq, timeout, wall = run
    plain = _encode(_payload_data(request_, seq, timeout, wall))
    assert planned_line(request_, seq, timeout, wall) == plain
    assert planned_line(request_, seq, timeout, wall) == plain      # its parts remembered


@pytest.mark.parametrize("request_", REQUESTS[:3], ids=lambda r: f"{r.kind}-{r.func}")
def test_a_planned_line_remembered_serves_only_equal_figures_of_equal_types(request_):
    """planned_line keeps a Request's last whole line: a run whose figures are equal but written
    otherwise (1 and 1.0 and True, 0.0 and -0.0, another sequence number) gets its own line."""
    runs = [(5, 1, 3.0), (5, 1.0, 3.0), (5, True, 3.0), (5, 1.0, 3), (5, 1.0, 3.0), (6, 1.0, 3.0),
            (5, 0.0, None), (5, -0.0, None), (5, 0.0, None), (5, 0.25, -0.0), (5, 0.25, 0.0), (5, 0.25, -0.0)]
    for seq, timeout, wall in runs + runs[::-1]:
        assert planned_line(request_, seq, timeout, wall) == _encode(_payload_data(request_, seq, timeout, wall))


@given(args=st.lists(st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
                                  lambda inner: st.lists(inner, max_size=3)
                                  | st.dictionaries(st.text(max_size=4), inner, max_size=3), max_leaves=8),
                     max_size=4),
       stdin=st.none() | st.lists(st.text(max_size=6), max_size=3), seq=st.integers(1, 10 ** 6),
       timeout=st.floats(0.01, 100), fresh=st.booleans())
@FAST
def test_any_planned_line_is_the_plain_line(args, stdin, seq, timeout, fresh):
    request = Request("call", "f", args, stdin=stdin, fresh=fresh)
    assert planned_line(request, seq, timeout) == _encode(_payload_data(request, seq, timeout))


@pytest.mark.parametrize("bad", [Request("call", "f", [object()]), Request("eval", "f"), Request("call", None)])
def test_a_bad_planned_request_raises_as_the_plain_one(bad):
    with pytest.raises((TypeError, ValueError)) as plain:
        _encode(_payload_data(bad, 1, 1.0))
    with pytest.raises(plain.type):
        planned_line(bad, 1, 1.0)


# -- answers read by their bytes -------------------------------------------------------------
REQUEST = Request("call", "f", stdin=["a"])
LIMITS = Limits()


def _answer(result: dict, seq: int = 1, cpu: float = 0.001, nonce: str = "0a1b2c3d4e5f6789",
            zygote: dict | None = None, key: str = "recycle", fresh: bool = False) -> bytes:
    """An answer line as the zygote and the harness write it (compact JSON, the tail last)."""
    tail = {"timeout": 2.0, **({"output_chars": 7} if fresh else {}), "cpu": cpu, "nonce": nonce, key: False}
    raw = json.dumps({"t": "result", "seq": seq, **result, **tail}, separators=(",", ":"))
    head = json.dumps({"t": "done", "seq": seq, "zygote_cpu": 0.01, "killed": False, "exited": False,
                       "wait": 0.0001, "ran_in": 0, "worker_gen": 0, **(zygote or {})}, separators=(",", ":"))
    return head[:-1].encode() + b',"result":' + raw.encode() + b"}"


def _whole(line: bytes, seq: int = 1) -> tuple[Outcome, dict] | None:
    """What Sandbox._collect makes of LINE reading it whole (and remembers of it)."""
    msg = _parse(line)
    if msg is None or msg.get("seq") != seq or msg.get("t") != "done":
        return None
    result, garbled = msg.pop("result", None), False
    if result is not None and not isinstance(result, dict):
        result, garbled = None, True
    middle = answer_by_bytes(line, REQUEST, seq, LIMITS, 0.1)[2]
    return _build(REQUEST, 2.0, LIMITS, result, msg, 0.1, garbled, None if garbled else middle), msg


def _same(a: Outcome, b: Outcome) -> None:
    assert a.__dict__ == b.__dict__


OK_RESULTS = [
    {"status": "ok", "value": 15, "args_after": ["Chance", [1, 2, 3, 4, 5]]},
    {"status": "ok", "value": None, "stdout": "hi\n", "events": [["out", "hi\n"]]},
    {"status": "ok", "value": {"a": [1, 2.5, "x,\"timeout\":"]}, "state_after": {"x": 2}, "attempts": ["net"]},
    {"status": "ok", "value": "\u00e9\ud800", "inputs_asked": 1, "events": [["in", "? ", "a"]]},
]


@pytest.mark.parametrize("result", OK_RESULTS, ids=range(len(OK_RESULTS)))
def test_an_ok_answer_seen_before_reads_as_the_whole_line(result):
    first = _answer(result, seq=1)
    _whole(first)                                    # read whole once: remembered
    for line, seq in [(_answer(result, seq=2, cpu=0.25, nonce="ff"), 2),
                      (_answer(result, seq=3, cpu=0, key="retire", fresh=True), 3),
                      (_answer(result, seq=4, zygote={"forged": 3, "cpu": 0.5, "wait": 0.2}), 4),
                      (_answer(result, seq=5, cpu=1e-05), 5)]:
        fast, msg, _ = answer_by_bytes(line, REQUEST, seq, LIMITS, 0.1)
        assert fast is not None                      # the shortcut is taken...
        whole, whole_msg = _whole(line, seq)
        _same(fast, whole)                           # ...and gives what reading it whole gives
        assert msg == whole_msg
    assert fast.attempts == [*result.get("attempts", []),
                             "wrote forged grader-protocol lines (result messages of its own)"][:len(fast.attempts)]


def test_what_is_not_an_ok_answer_seen_before_is_read_whole():
    ok = {"status": "ok", "value": 41}
    _whole(_answer(ok))
    seen = _answer(ok, seq=9)
    assert answer_by_bytes(seen, REQUEST, 9, LIMITS, 0.1)[0] is not None
    assert answer_by_bytes(seen, REQUEST, 8, LIMITS, 0.1)[0] is None              # another request's
    assert answer_by_bytes(seen, REQUEST, 9, Limits(output_chars=5), 0.1)[0] is None  # other bounds
    internal = _answer(ok, seq=9, zygote={"internal": "the zygote failed"})
    assert answer_by_bytes(internal, REQUEST, 9, LIMITS, 0.1)[0] is None
    assert _whole(internal, 9)[0].error == {"internal": "the zygote failed"}
    for line in [seen.replace(b'"cpu":0.001', b'"cpu":NaN'), seen.replace(b',"cpu"', b', "cpu"'),
                 seen.replace(b'"seq":9,"status"', b'"seq":09,"status"'), seen[:-1] + b" }",
                 seen.replace(b'"nonce":"', b'"nonce":"Z'), seen.replace(b'"t":"done",', b'"t":"done" ,')]:
        assert answer_by_bytes(line, REQUEST, 9, LIMITS, 0.1)[0] is None, line
    for status in ("exception", "timeout", "exit"):                  # only ok answers are remembered
        other = {"status": status, "value": 41}
        _whole(_answer(other))
        assert answer_by_bytes(_answer(other, seq=3), REQUEST, 3, LIMITS, 0.1)[0] is None


def test_an_answer_that_closes_its_object_is_never_remembered():
    """A student's process that writes the harness's head and tail itself (with the nonce found
    in its memory) could make its MIDDLE close the answer and add keys of the zygote's part:
    such a MIDDLE is not remembered, so the keys it adds are read (whole) every time."""
    sneaky = (b'{"t":"done","seq":1,"zygote_cpu":0.01,"killed":false,"exited":false,"wait":0.0,"ran_in":0,'
              b'"worker_gen":0,"result":{"t":"result","seq":1,"status":"ok","value":1},"forged":0,"cpu":7,'
              b'"result":{"t":"result","seq":1,"status":"ok","value":2,"timeout":2.0,"cpu":0.0,'
              b'"nonce":"ab","recycle":false}}')
    whole, msg = _whole(sneaky)
    assert whole.value == 2 and msg["cpu"] == 7
    again = sneaky.replace(b'"cpu":0.0,', b'"cpu":0.5,')
    assert answer_by_bytes(again, REQUEST, 1, LIMITS, 0.1)[0] is None
    _same(_whole(again)[0], _whole(again)[0])


@given(value=st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
                          lambda inner: st.lists(inner, max_size=3)
                          | st.dictionaries(st.text(max_size=8), inner, max_size=3), max_leaves=10),
       extra=st.dictionaries(st.sampled_from(["status", "cpu", "seq", "t", "stdout", "timeout", "nonce"]),
                             st.none() | st.integers() | st.text(max_size=4), max_size=2),
       cut=st.integers(0, 400), junk=st.binary(max_size=6), seq=st.integers(1, 50))
@FAST
def test_any_line_reads_as_the_whole_line_or_is_read_whole(value, extra, cut, junk, seq):
    """Any answer, and any answer's bytes cut and spliced: the shortcut gives what the whole line
    gives, or is not taken."""
    result = {"status": "ok", "value": value, **extra}
    line = _answer(result, seq=seq)
    spliced = line[:cut] + junk + line[cut:]
    for each in (line, spliced, line):
        _whole(each, seq)
        fast, msg, _ = answer_by_bytes(each, REQUEST, seq, LIMITS, 0.1)
        if fast is not None:
            whole = _whole(each, seq)
            assert whole is not None
            _same(fast, whole[0])
            assert msg == whole[1]


class _Counted(dict):
    """_RAW_OK counting what it finds."""
    found = 0

    def get(self, key, default=None):
        value = super().get(key, default)
        self.found += value is not None
        return value


def test_a_sandbox_reads_a_repeated_ok_answer_by_its_bytes(monkeypatch):
    """The harness's own answers have the shape the shortcut reads (were it to change, this fails:
    the shortcut would silently never be taken)."""
    table = _Counted()
    monkeypatch.setattr(outcomes_module, "_RAW_OK", table)
    source = "def add(a, b):\n    return a + b\n\ndef talk():\n    print('hi')\n"
    requests = [Request("call", "add", [1, 2], fresh=False), Request("call", "talk", fresh=False),
                Request("call", "add", [1, 2]), Request("call", "talk"), Request("script")]
    with template_scope(), Sandbox(source, "wire.py") as box:
        first = box.run_batch(requests)
        found = table.found         # (add's and talk's answers are the same in a fresh process)
        assert found == 2 and len(table) == 3
        second = box.run_batch(requests)
    assert [o.status for o in first] == ["ok"] * 5
    assert table.found - found == 5
    for a, b in zip(first, second):
        assert (a.value, a.stdout, a.events, a.args_after) == (b.value, b.stdout, b.events, b.args_after)


# -- finished non-ok answers read by their bytes (given the request's timeout) ----------------------
DONE_RESULTS = [
    {"status": "exception", "error": {"type": "ValueError", "message": "bad die", "line": 12,
                                      "trace": ["yahtzee.py, line 12, in score"]}, "args_after": [[1, 2]]},
    {"status": "exception", "error": {"type": "NotImplementedError", "message": "Problem 3", "line": 40,
                                      "trace": []}, "stdout": "hi\n", "attempts": ["net"]},
    {"status": "no_function", "error": {"type": "NameError", "message": "name 'f' is not defined",
                                        "suggestion": "g"}},
    {"status": "input_exhausted", "exhausted_at": 2, "inputs_asked": 2, "timed_out": True,
     "events": [["in", "? ", "a"], ["in", "? ", None]]},
    {"status": "dice_exhausted", "dice_failed_at": 3, "dice_used": 2, "events": [["roll", 1], ["roll", 2]]},
    {"status": "exit", "exit_code": 3, "exit_via": "sys.exit", "exit_arg": "bye now"},
]


def _whole_of(line: bytes, request: Request, seq: int, timeout: float, limits: Limits = LIMITS):
    """What Sandbox._collect makes of LINE reading it whole, for REQUEST at TIMEOUT."""
    msg = _parse(line)
    result, garbled = msg.pop("result", None), False
    if result is not None and not isinstance(result, dict):
        result, garbled = None, True
    middle = answer_by_bytes(line, request, seq, limits, 0.1, timeout)[2]
    return _build(request, timeout, limits, result, msg, 0.1, garbled, None if garbled else middle), msg


@pytest.mark.parametrize("result", DONE_RESULTS, ids=[r["status"] + str(i) for i, r in enumerate(DONE_RESULTS)])
def test_a_finished_answer_seen_before_reads_as_the_whole_line(result):
    """Its message reads the request (the function, its input lines, its dice) and the timeout: the
    shortcut serves only the same of those, and gives what reading the line whole gives, content
    token (verdicts' same_content) included; a line claiming forged lines is read whole."""
    request = Request("call", "f", stdin=["a"], dice=[1, 2])
    first = _whole_of(_answer(result, seq=1), request, 1, 2.0)[0]
    assert first.status == result["status"] and outcomes_module.same_content(first) is not None
    for line, seq in [(_answer(result, seq=2, cpu=0.25, nonce="ff"), 2),
                      (_answer(result, seq=3, cpu=0, key="retire", fresh=True), 3),
                      (_answer(result, seq=4, zygote={"cpu": 0.5, "wait": 0.2}), 4)]:
        fast, msg, _ = answer_by_bytes(line, request, seq, LIMITS, 0.1, 2.0)
        assert fast is not None
        whole, whole_msg = _whole_of(line, request, seq, 2.0)
        _same(fast, whole)
        assert msg == whole_msg
        assert outcomes_module.same_content(fast) is outcomes_module.same_content(first)
    seen = _answer(result, seq=5)
    assert answer_by_bytes(seen, request, 5, LIMITS, 0.1)[0] is None              # no timeout given
    for other, timeout, limits in [(request, 3.0, LIMITS), (request, 2.0, Limits(output_chars=5)),
                                   (Request("call", "g", stdin=["a"], dice=[1, 2]), 2.0, LIMITS),
                                   (Request("call", "f", stdin=None, dice=[1, 2]), 2.0, LIMITS),
                                   (Request("call", "f", stdin=["a", "b"], dice=[1, 2]), 2.0, LIMITS),
                                   (Request("call", "f", stdin=["a"], dice=[1, 2, 3]), 2.0, LIMITS)]:
        assert answer_by_bytes(seen, other, 5, limits, 0.1, timeout)[0] is None
        _same(_whole_of(seen, other, 5, timeout, limits)[0], _whole_of(seen, other, 5, timeout, limits)[0])
    forged = _answer(result, seq=6, zygote={"forged": 2})
    assert answer_by_bytes(forged, request, 6, LIMITS, 0.1, 2.0)[0] is None
    whole = _whole_of(forged, request, 6, 2.0)[0]
    assert whole.attempts[-1].startswith("wrote forged") and outcomes_module.same_content(whole) is not None


def test_an_unfinished_answer_is_never_read_by_its_bytes():
    """Timeouts, crashes, memory, output limits and internal errors read their run's figures and
    the zygote's part (killed, signals): always read whole."""
    request = Request("call", "f")
    for result in [{"status": "timeout", "timed_out": True}, {"status": "crash"}, {"status": "memory"},
                   {"status": "output_limit"}, {"status": "syntax_error", "error": {"type": "SyntaxError"}},
                   {"status": "import_error", "error": {"type": "ValueError"}}, {"status": "internal"}]:
        _whole_of(_answer(result, seq=1), request, 1, 2.0)
        assert answer_by_bytes(_answer(result, seq=2), request, 2, LIMITS, 0.1, 2.0)[0] is None, result


@given(status=st.sampled_from(["exception", "no_function", "input_exhausted", "dice_exhausted", "exit", "timeout",
                               "crash"]),
       error=st.none() | st.dictionaries(st.sampled_from(["type", "message", "line", "suggestion"]),
                                         st.none() | st.integers() | st.text(max_size=6), max_size=3),
       extra=st.dictionaries(st.sampled_from(["exhausted_at", "dice_failed_at", "exit_arg", "exit_via", "timed_out",
                                              "cpu", "seq", "t", "timeout", "status"]),
                             st.none() | st.booleans() | st.integers() | st.text(max_size=4), max_size=2),
       cut=st.integers(0, 400), junk=st.binary(max_size=6), seq=st.integers(1, 50))
@FAST
def test_any_finished_line_reads_as_the_whole_line_or_is_read_whole(status, error, extra, cut, junk, seq):
    request = Request("call", "f", stdin=["a"])
    line = _answer({"status": status, "error": error, **extra}, seq=seq)
    spliced = line[:cut] + junk + line[cut:]
    for each in (line, spliced, line):
        if _parse(each) is None:
            continue
        whole = _whole_of(each, request, seq, 2.0)
        fast, msg, _ = answer_by_bytes(each, request, seq, LIMITS, 0.1, 2.0)
        if fast is not None and whole[1].get("seq") == seq:
            _same(fast, whole[0])
            assert outcomes_module.same_content(fast) is outcomes_module.same_content(whole[0])
            assert msg == whole[1]


@given(value=st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
                          lambda inner: st.lists(inner, max_size=3)
                          | st.dictionaries(st.text(max_size=8), inner, max_size=3), max_leaves=10),
       zygote=st.dictionaries(st.sampled_from(["result", "cpu", "seq", "t", "forged", "internal", "x"]),
                              st.none() | st.integers() | st.text(max_size=4), max_size=2),
       cut=st.integers(0, 400), junk=st.sampled_from([b"", b"}", b"{", b'"', b",", b'},"result":{"a":1', b"\\",
                                                      b',"result":', b"]", b" ", b"\xff", b'"}']),
       seq=st.integers(1, 50))
@FAST
def test_an_answer_read_in_two_parts_is_the_whole_line(value, zygote, cut, junk, seq):
    """parse_answer reads the zygote's part and the answer apart only when that gives what parsing
    the whole line gives (and then the answer's MIDDLE lies inside its object, as _inside says)."""
    from autograder.engine.outcomes import _inside, parse_answer, split_answer

    line = _answer({"status": "ok", "value": value}, seq=seq, zygote=zygote)
    for each in (line, line[:cut] + junk + line[cut:]):
        msg, split = parse_answer(each)
        assert json.dumps(msg) == json.dumps(_parse(each))            # (the keys in the same order; NaN too)
        parts = split_answer(each)
        if split and parts is not None:
            assert _inside(parts[1])


def test_an_answer_that_closes_its_object_is_read_whole():
    sneaky = (b'{"t":"done","seq":1,"zygote_cpu":0.01,"killed":false,"exited":false,"wait":0.0,"ran_in":0,'
              b'"worker_gen":0,"result":{"t":"result","seq":1,"status":"ok","value":1},"forged":0,"cpu":7,'
              b'"result":{"t":"result","seq":1,"status":"ok","value":2,"timeout":2.0,"cpu":0.0,'
              b'"nonce":"ab","recycle":false}}')
    from autograder.engine.outcomes import parse_answer

    msg, split = parse_answer(sneaky)
    assert not split and msg == _parse(sneaky) and msg["cpu"] == 7 and msg["result"]["value"] == 2
