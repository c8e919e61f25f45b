"""Whatever comes back from a sandbox, or whatever a student submits, grader-side parsing is bounded
and never raises (hypothesis fuzzing of the result boundary, the transcript reader, the notebook
reader) and student text is escaped for its reader (terminal, .txt, Markdown, CSV)."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autograder.assignments.yahtzee.suites import game
from autograder.engine import bounds, escape, outcomes
from autograder.engine.feedback import Fail
from autograder.engine.outcomes import _build
from autograder.engine.protocol import Limits, Outcome, Request, _parse
from autograder.engine.submission import SubmissionError, notebook_source, notebook_stage

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=50),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=10), children, max_size=5),
    max_leaves=40)
KEYS = ["status", "value", "error", "stdout", "events", "args_after", "state_after", "import_stdout", "import_prompted",
        "inputs_asked", "dice_used", "exit_code", "exit_via", "exit_arg", "exhausted_at", "dice_failed_at",
        "timed_out", "cpu", "type", "message", "line", "trace", "internal", "signal", "exit", "killed", "progress"]
fields = st.dictionaries(st.sampled_from(KEYS), json_values | st.sampled_from(
    ["ok", "exception", "exit", "input_exhausted", "dice_exhausted", "timeout", "crash", "no_function"]), max_size=12)


@FAST
@given(result=st.none() | fields, trailer=fields, stdin=st.none() | st.lists(st.text(max_size=5), max_size=3))
def test_any_result_line_becomes_an_outcome(result, trailer, stdin):
    out = _build(Request("call", "f", stdin=stdin, dice=[1, 2]), 1.0, Limits(), result, trailer, 0.1, False)
    assert isinstance(out, Outcome) and isinstance(out.message, str) and isinstance(out.hidden_message, str)
    json.dumps(out.value)                                          # plain data, whatever came in
    if out.error is not None:
        assert len(str(out.error.get("type", ""))) <= bounds.MAX_NAME


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(result=fields, value=json_values, trailer=fields)
def test_an_ok_result_met_before_is_the_outcome_bounding_it_again_gives(result, value, trailer):
    """outcomes._ok remembers a result's bounded fields by content: a result with the same
    content gets what bounding it afresh gives, types included (True is not 1, 1.0 is not 1)."""
    result = dict(result, status="ok", value=value)
    request = Request("call", "f", stdin=["1"])
    fresh = _build(request, 1.0, Limits(), json.loads(json.dumps(result)), trailer, 0.1, False)
    outcomes._OK_SEEN.clear()
    again = _build(request, 1.0, Limits(), json.loads(json.dumps(result)), trailer, 0.1, False)
    remembered = _build(request, 1.0, Limits(), json.loads(json.dumps(result)), trailer, 0.1, False)
    assert repr(vars(fresh)) == repr(vars(again)) == repr(vars(remembered))      # (repr: types too; nan)


def test_ok_results_equal_but_for_their_types_are_told_apart():
    made = {}
    for value in (1, True, 1.0, [1], [True], {"a": 1}, {"a": 1.0}):
        out = _build(Request("call", "f"), 1.0, Limits(), {"status": "ok", "value": value}, {}, 0.0, False)
        made[repr(value)] = out.value
        assert type(out.value) is type(value) and repr(out.value) == repr(value)
    forged = _build(Request("call", "f"), 1.0, Limits(), {"status": "ok", "value": 1}, {"forged": 2}, 0.0, False)
    plain = _build(Request("call", "f"), 1.0, Limits(), {"status": "ok", "value": 1}, {}, 0.0, False)
    assert forged.attempts and not plain.attempts          # each outcome's attempts are its own


@FAST
@given(st.binary(max_size=300))
def test_any_bytes_parse_or_are_refused(data):
    assert _parse(data) is None or isinstance(_parse(data), dict)


def test_pathological_lines_are_refused_not_raised():
    assert _parse(b"[" * 200_000 + b"]" * 200_000) is None             # RecursionError in json
    assert _parse(b'{"value": ' + b"9" * 5000 + b"}") is None           # int() refuses > 4300 digits
    huge = {"status": "exception", "error": {"type": "E" * 10_000_000, "message": "m" * 10_000_000, "line": 10 ** 40}}
    out = _build(Request("call", "f"), 1.0, Limits(), huge, {}, 0.0, False)
    assert out.error["type"] == "E" * bounds.MAX_NAME and len(out.message) < 3 * bounds.MAX_MESSAGE
    assert "line" not in out.error
    assert out.hidden_message == "raised an exception"                  # no student-chosen text at all


def test_deep_values_are_cut_without_recursion():
    deep: list = []
    for _ in range(50_000):
        deep = [deep]
    value = bounds.value(deep)
    depth = 0
    while isinstance(value, list) and value:
        value, depth = value[0], depth + 1
    assert depth <= bounds.MAX_DEPTH and value == {"__type__": "nested too deeply"}
    assert bounds.value(10 ** 2000) == {"__type__": "int"}


events = st.lists(st.one_of(
    st.tuples(st.just("out"), st.text(alphabet="Dice:Scored pointsFinal score0123456789 \n-\x1b", max_size=60)),
    st.tuples(st.just("in"), st.text(max_size=10), st.none() | st.text(max_size=5)),
    st.tuples(st.just("roll"), st.integers(-10, 10 ** 30)),
    st.tuples(st.just("random"), st.text(max_size=5), st.lists(st.integers(), max_size=3))).map(list), max_size=40)


@FAST
@given(events=events, digits=st.integers(1, 6000))
def test_any_transcript_is_read_without_raising(events, digits):
    events = events + [["out", "Final score: " + "9" * digits + "\n"], ["out", "Scored " + "7" * digits + " points in Chance\n"]]
    out = Outcome(status="ok", events=events, stdout="".join(e[1] for e in events if e[0] == "out"))
    read = game.read_game(out)
    assert all(isinstance(n, int) for n in read.finals)
    assert game.read_reference(out) is not None


@FAST
@given(st.text(max_size=400) | json_values.map(json.dumps))
def test_any_notebook_text_is_read_or_refused_plainly(text):
    try:
        source, notes = notebook_source(text)
        assert isinstance(source, str)
    except SubmissionError as err:
        assert str(err)
    notebook_stage(text)


def test_deep_notebooks_get_a_clear_message():
    deep = '{"cells": [], "metadata": ' + "[" * 100_000 + "]" * 100_000 + "}"
    try:
        notebook_source(deep)
        raise AssertionError("a notebook nested 100000 deep was accepted")
    except SubmissionError as err:
        assert "nested too deeply" in str(err)
    cells = [{"cell_type": "code", "source": "def f():\n    return 1\n"},
             {"cell_type": "code", "source": "_x = " + "-" * 200_000 + "1"}]
    source, notes = notebook_source(json.dumps({"cells": cells}))
    assert "def f()" in source and any("nested too deeply" in n for n in notes)


@FAST
@given(st.text())
def test_plain_text_has_no_control_characters(text):
    shown = escape.plain(text)
    assert not any((ord(c) < 32 and c not in "\n\t") or 0x7f <= ord(c) <= 0x9f for c in shown)


@FAST
@given(st.text())
def test_no_content_closes_its_fence(text):
    block = escape.fence(text)
    fence = block.split("\n", 1)[0]
    inner = block[len(fence) + 1:-len(fence) - 1]
    assert inner == text and fence not in text


@FAST
@given(st.text())
def test_csv_cells_never_start_a_formula(text):
    cell = escape.csv_cell(text)
    assert not cell.startswith(("=", "+", "-", "@", "\t", "\r"))


def test_hidden_feedback_keeps_only_summary_and_hint():
    fail = Fail("score_chance did not return normally (a secret case).", ran="score_chance([1, 2])",
                expected=1, got=2, output="LEAK", hint="Check the sum.")
    assert fail.render(hidden=True) == "score_chance did not return normally (a secret case).\nHint: Check the sum."
