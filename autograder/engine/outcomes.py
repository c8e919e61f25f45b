"""A sandbox's result line -> Outcome (untrusted data: every field type-checked and bounded),
with one plain-English sentence per non-ok status (and its hidden-check form from grader text only)."""

from __future__ import annotations

import dataclasses
import marshal
import re
import signal
from typing import Any

from . import bounds
from .feedback import ordinal
from .protocol import HARNESS_EXIT, INTERNAL, STATUSES, Limits, Outcome, Request, _parse


# ---------------------------------------------------------------------------------------
# Results -> Outcome (the child's data is untrusted: every field is type-checked).
# ---------------------------------------------------------------------------------------
def _build(request: Request, timeout: float, limits: Limits, res: dict | None, trailer: dict,
           elapsed: float, garbled: bool, raw: bytes | None = None, inside: bool = False) -> Outcome:
    """RAW: the middle of the answer's bytes (split_answer) when the line parsed whole: an ok
    outcome is remembered under it (answer_by_bytes); INSIDE: RAW is known to lie inside its
    answer's object (parse_answer read the answer alone), else _inside checks it."""
    if isinstance(trailer.get("internal"), str):
        return _internal(trailer["internal"], elapsed)
    if res is not None and res.get("status") == "internal":
        return _internal(str(res.get("internal")), elapsed)
    final = res is not None and isinstance(res.get("status"), str) and res["status"] in STATUSES
    data = res if final else (trailer.get("progress") if isinstance(trailer.get("progress"), dict) else {})
    if final and data["status"] == "ok":
        out = _ok(data, limits, raw, inside)
    else:
        out = Outcome(status="crash")
        _fill(out, data, limits)
    _per_run(out, request, trailer, data.get("cpu"), elapsed)
    if out.status == "ok":
        return out
    facts = {"timed_out": data.get("timed_out") is True, "cpu_limited": data.get("cpu_limited") is True}
    if final:
        out.status = data["status"]
    else:
        facts.update(_status_without_result(out, data, trailer, limits, garbled))
        if facts.get("internal"):
            return _internal(facts["internal"], elapsed)
    if out.status != "ok":
        out.value = None
    out.endless = out.status == "timeout" and data.get("endless") is True
    out.message = _message(out, request, data, facts, limits, timeout)
    out.hidden_message = _hidden_message(out, request, facts, limits, timeout)
    if out.status in _TOKEN_STATUSES:
        _token(out)
        if (raw is not None and final and "_same" in out.__dict__ and not _forged(trailer)
                and len(raw) <= _OK_KEY_MAX and (inside or _inside(raw))):
            fields = dict(out.__dict__)     # (its token with them: _from_fields keeps it)
            _remember(_RAW_OK, _RAW_OK_BYTES, _done_key(raw, request, limits, timeout), fields)
    return out


# A finished non-ok answer's content token (same_content): every field but its run's own figures.
_TOKEN_STATUSES = frozenset({"exception", "no_function", "input_exhausted", "dice_exhausted", "exit"})
_RUN_FIELDS = frozenset({"elapsed", "cpu", "wait", "worker"})
_CONTENT_FIELDS = tuple(f for f in Outcome.__dataclass_fields__ if f not in _RUN_FIELDS)
_TOKENS: dict[bytes, dict] = {}
_TOKENS_BYTES = [0]


def _token(out: Outcome) -> None:
    """OUT's content token: one dict per distinct content (marshal's bytes of its _CONTENT_FIELDS,
    types included) in the process, holding its attempts as same_content's readers expect."""
    try:
        key = marshal.dumps(tuple(map(out.__dict__.get, _CONTENT_FIELDS)), 2)
    except ValueError:
        return
    if len(key) > _OK_KEY_MAX:
        return
    token = _TOKENS.get(key)
    if token is None:
        token = _remember(_TOKENS, _TOKENS_BYTES, key, {"attempts": list(out.attempts)})
    out._same = token


def _status_without_result(out: Outcome, data: dict, trailer: dict, limits: Limits, garbled: bool) -> dict:
    """The request process died or was killed before it reported: decide from how it ended."""
    sig, code = trailer.get("signal"), trailer.get("exit")
    if trailer.get("killed") is True:          # it ignored the soft timeout: killed by the zygote
        out.status = ("input_exhausted" if data.get("exhausted_at") else
                      "dice_exhausted" if data.get("dice_failed_at") else "timeout")
        return {"timed_out": True}
    if isinstance(sig, int):
        if sig in (signal.SIGXCPU, signal.SIGKILL) and out.cpu >= limits.cpu_s - 0.5:
            out.status = "timeout"
            return {"cpu_limited": True}
        out.status = "crash"
        return {"signal": sig}
    if isinstance(code, int) and code != HARNESS_EXIT and not garbled:
        out.status, out.exit_code = "exit", code
        return {"exit_unreported": True}
    why = "its result could not be read" if garbled else f"the request process ended without a result ({code})"
    return {"internal": why}


# An ok outcome is a function of these fields of its result (and of limits.output_chars) alone;
# what differs from run to run (seq, cpu, the nonce, the worker's bookkeeping) is set per run.
_OK_FIELDS = ("value", "error", "stdout", "events", "args_after", "state_after", "import_stdout",
              "import_prompted", "inputs_asked", "dice_used", "exit_code", "stopped_in", "attempts")
_OK_SEEN: dict[bytes, dict] = {}        # those fields' marshal bytes -> the bounded Outcome's fields
_OK_SEEN_BYTES = [0]
_OK_KEY_MAX = 1 << 16                   # a bigger result is bounded afresh (not remembered)
_OK_SEEN_MAX_BYTES = 1 << 22            # (about twice that in memory with the values)


def _per_run(out: Outcome, request: Request, trailer: dict, cpu: Any, elapsed: float) -> None:
    """What an outcome takes from its run, not from its answer's content (CPU: the answer's own figure)."""
    out.stdin_lines = len(request.stdin or [])
    out.elapsed = round(elapsed, 4)
    out.cpu = _number(trailer.get("cpu")) or _number(cpu)
    if _forged(trailer):
        out.attempts.append("wrote forged grader-protocol lines (result messages of its own)")
        out.__dict__.pop("_same", None)     # (its attempts are no longer its content's)


def _forged(trailer: dict) -> bool:
    forged = trailer.get("forged")
    return isinstance(forged, int) and forged > 0


def _ok(data: dict, limits: Limits, raw: bytes | None = None, inside: bool = False) -> Outcome:
    """An ok result's Outcome, its fields bounded once per distinct content in a process: most
    students' results are byte for byte another's (the checks ask every student the same
    requests), and comparing marshal's bytes is ~10x cheaper than bounding them again.  marshal
    writes every value with its type (True is not 1, 1.0 is not 1: equal bytes are equal fields of
    equal types; version 2 has no back-references).  The bounded values are shared between the
    outcomes, as the reference's cached outcomes are shared by every check: outcomes are read,
    never changed in place (attempts, which _build appends to, is a list of each outcome's own)."""
    try:
        key = marshal.dumps((limits.output_chars, *map(data.get, _OK_FIELDS)), 2)
    except ValueError:                  # nested deeper than marshal writes: bound it as it is
        key = b""
    fields = _OK_SEEN.get(key) if key else None
    if fields is None:
        out = Outcome(status="ok")
        _fill(out, data, limits)
        if key and len(key) <= _OK_KEY_MAX:
            fields = _remember(_OK_SEEN, _OK_SEEN_BYTES, key, dict(out.__dict__))
            out._same = fields
    else:
        out = _from_fields(fields)
    if raw is not None and fields is not None and len(raw) <= _OK_KEY_MAX and (inside or _inside(raw)):
        _remember(_RAW_OK, _RAW_OK_BYTES, (limits.output_chars, raw), fields)
    return out


def _remember(table: dict, size: list[int], key: Any, fields: dict) -> dict:
    """FIELDS under KEY in TABLE, which is emptied first when it would pass _OK_SEEN_MAX_BYTES of keys."""
    n = len(key) if isinstance(key, bytes) else len(key[1])
    if size[0] + n > _OK_SEEN_MAX_BYTES:
        table.clear()
        size[0] = 0
    table[key] = fields
    size[0] += n
    return fields


def _from_fields(fields: dict) -> Outcome:
    """A new Outcome sharing FIELDS' bounded values (attempts: a list of its own); its content
    token is FIELDS (an ok outcome's) or the one FIELDS hold (a finished non-ok one's, _token)."""
    out = object.__new__(Outcome)
    out.__dict__.update(fields)
    out.attempts = list(fields["attempts"])
    if "_same" not in fields:
        out._same = fields
    return out


def same_content(outcome: Outcome) -> dict | None:
    """OUTCOME's content token (engine/verdicts.py), or None: an ok outcome's is the bounded fields
    it shares with every outcome of the same content read in this process (_ok); a finished non-ok
    one's (_TOKEN_STATUSES) is one dict per distinct content (_token).  Two outcomes with the same
    token have equal fields of equal types (marshal's bytes), their run's own figures (elapsed,
    cpu, wait, worker) aside.  A timeout, a crash or a result too big to remember has none."""
    return outcome.__dict__.get("_same")


# ---------------------------------------------------------------------------------------
# An ok answer read by its bytes.  A request's answer line is the zygote's flat JSON, then
# ',"result":' and the request process's answer, which the harness writes as HEAD + MIDDLE + TAIL:
#   {"t":"result","seq":N,  ...the answer's content...  ,"timeout":T[,"output_chars":K],"cpu":C,
#   "nonce":"HEX","recycle"|"retire":true|false}
# Only MIDDLE says what the outcome is (HEAD and TAIL are per run: seq, limits, CPU, nonce, and
# no key of theirs is read but the CPU figure).  Two thirds of the answers of a session repeat
# another's MIDDLE byte for byte (every student is asked the same requests).  A MIDDLE whose line
# was parsed whole (JSON) and gave an ok outcome is remembered; a line whose HEAD and TAIL match
# the strict patterns below and whose MIDDLE is remembered is then the same JSON text up to those
# fixed-shape tokens: it would parse to the same answer (the same keys, the same values; where
# MIDDLE repeats a HEAD or TAIL key, JSON's last-one-wins gives the same value in both), so its
# outcome is the remembered one without parsing or bounding it again.  Its zygote part is parsed
# on its own, as the whole line's would be.  Anything else (another shape, whitespace, NaN, a
# MIDDLE not seen) is read the usual way: a hit depends on nothing but the line's bytes.
# ---------------------------------------------------------------------------------------
_NUM = rb"-?(?:0|[1-9][0-9]{0,17})(?:\.[0-9]{1,17})?(?:[eE][-+]?[0-9]{1,3})?"
_RESULT_AT = b',"result":'
_DONE = b'{"t":"done",'
_HEAD = re.compile(rb'\{"t":"result","seq":(?:0|[1-9][0-9]{0,17}),')
_TAIL_AT = b',"timeout":'
_TAIL = re.compile(_TAIL_AT + _NUM + rb'(?:,"output_chars":(?:0|[1-9][0-9]{0,17}))?,"cpu":(' + _NUM
                   + rb'),"nonce":"[0-9a-f]{0,64}","(?:recycle|retire)":(?:true|false)\}')
_RAW_OK: dict[tuple[int, bytes], dict] = {}     # (output_chars, MIDDLE) -> the bounded fields (_OK_SEEN's)
_RAW_OK_BYTES = [0]


def split_answer(line: bytes) -> tuple[bytes, bytes, bytes] | None:
    """(the zygote's part as a JSON object, MIDDLE, the answer's CPU figure's text) of an answer
    LINE of the harness's shape, or None."""
    at = _split_at(line)
    if at is None:
        return None
    i, start, j, tail = at
    return line[:i] + b"}", line[start:j], tail.group(1)


def _split_at(line: bytes) -> tuple[int, int, int, re.Match] | None:
    """Where an answer LINE of the harness's shape parts (split_answer): the index of ',"result":',
    MIDDLE's start and end, and the TAIL's match; or None."""
    if not line.startswith(_DONE) or not line.endswith(b"}}"):
        return None
    i = line.find(_RESULT_AT)
    if i < 0:
        return None
    head = _HEAD.match(line, i + len(_RESULT_AT))
    if head is None:
        return None
    start = head.end()
    j = line.rfind(_TAIL_AT, start)
    tail = _TAIL.fullmatch(line, j, len(line) - 1) if j > start else None
    return None if tail is None else (i, start, j, tail)


def parse_answer(line: bytes) -> tuple[dict | None, bool]:
    """(_parse(LINE), and whether it was read in two parts) for an answer LINE that split_answer
    splits: its zygote's part and its answer (the bytes between ',"result":' and the last '}')
    parsed apart, when both are objects.  The line is then the zygote's members, ',"result":' and
    that one object, closed: it parses to the zygote's part with "result" set to the answer (in
    its place if the part had that key: JSON's last one wins), the same dict _parse(LINE) gives,
    and the answer's MIDDLE lies inside the answer's object (an answer that closed its object
    early would not parse alone as one object).  Else (False): LINE parsed whole, as always."""
    i = line.find(_RESULT_AT)
    answer = line[i + len(_RESULT_AT):-1] if i > 0 and line.endswith(b"}") else b""
    if answer.startswith(b'{"'):
        zygote = _parse(line[:i] + b"}")
        if zygote is not None:
            result = _parse(answer)
            if result is not None:
                zygote["result"] = result
                return zygote, True
    return _parse(line), False


def _inside(middle: bytes) -> bool:
    """MIDDLE lies inside the answer's object (it closes nothing it did not open: no key of the
    zygote's part can hide in it), so the zygote part of a line is the JSON before ',"result":'."""
    return _parse(_HEAD_0 + middle + b',"timeout":0}') is not None


_HEAD_0 = b'{"t":"result","seq":0,'


def _done_key(middle: bytes, request: Request, limits: Limits, timeout: float) -> tuple:
    """What a finished non-ok answer's Outcome is a function of (_build): its MIDDLE, the bounds,
    and what its message reads of its request (the function named, how many lines of input and
    dice it had) and of its run (the timeout it kept going to)."""
    stdin = request.stdin
    return (limits.output_chars, middle, timeout, request.func, None if stdin is None else len(stdin),
            len(request.dice or ()))


def answer_by_bytes(line: bytes, request: Request, seq: int, limits: Limits, elapsed: float,
                    timeout: float | None = None) -> tuple[Outcome, dict, bytes | None] | tuple[None, None, bytes | None]:
    """(the Outcome, the zygote's part) that reading answer LINE of request SEQ whole would give,
    when it is an ok answer of a MIDDLE seen before (see above), or (given the request's TIMEOUT)
    a finished non-ok one (_TOKEN_STATUSES: its message also reads the request and the timeout,
    _done_key) whose zygote part claims no forged lines; else (None, None).  Last: its MIDDLE, to
    remember it by (_build's RAW) once the line is read whole, or None: not that shape."""
    at = _split_at(line)
    if at is None:
        return None, None, None
    i, start, j, tail = at
    middle = line[start:j]
    fields = _RAW_OK.get((limits.output_chars, middle))
    if fields is None:
        if timeout is None:
            return None, None, middle
        fields = _RAW_OK.get(_done_key(middle, request, limits, timeout))
        if fields is None:
            return None, None, middle
    trailer = _parse(line[:i] + b"}")         # (the zygote's part: made only for a MIDDLE seen before)
    if (trailer is None or trailer.get("seq") != seq or trailer.get("t") != "done" or "result" in trailer
            or isinstance(trailer.get("internal"), str) or ("_same" in fields and _forged(trailer))):
        return None, None, middle
    out = _from_fields(fields)
    cpu = tail.group(1)
    _per_run(out, request, trailer, int(cpu) if cpu.lstrip(b"-").isdigit() else float(cpu), elapsed)  # as JSON
    return out, trailer, middle


def _fill(out: Outcome, data: dict, limits: Limits) -> None:
    def typed(key: str, kind: type | tuple[type, ...], default: Any) -> Any:
        value = data.get(key)
        return value if isinstance(value, kind) else default

    # Untrusted: every field bounded (engine/bounds.py), so nothing grader-side can blow up on it.
    out.value = bounds.value(data.get("value"))
    out.error = bounds.error(data.get("error"))
    out.stdout = typed("stdout", str, "")[:limits.output_chars]
    out.events = bounds.events(data.get("events"))
    args_after = data.get("args_after")
    out.args_after = bounds.value(args_after) if isinstance(args_after, list) else None
    state_after = data.get("state_after")
    out.state_after = bounds.value(state_after) if isinstance(state_after, dict) else None
    out.import_stdout = typed("import_stdout", str, "")[:limits.output_chars]
    prompted = data.get("import_prompted")
    out.import_prompted = ({"line": bounds.integer(prompted.get("line")), "prompt": bounds.text(prompted.get("prompt"), 500)}
                           if isinstance(prompted, dict) else None)
    out.inputs_asked = bounds.integer(data.get("inputs_asked"), 0, 0, 10 ** 9)
    out.dice_used = bounds.integer(data.get("dice_used"), 0, 0, 10 ** 9)
    out.exit_code = bounds.integer(data.get("exit_code"), None, -(1 << 31), 1 << 31)
    where = data.get("stopped_in")
    out.stopped_in = ((bounds.text(where[0], 200), bounds.integer(where[1], 0, 0, 10 ** 9))
                      if isinstance(where, list) and len(where) == 2
                      and isinstance(where[0], str) else None)
    out.attempts = [bounds.text(a, 160) for a in typed("attempts", list, []) if isinstance(a, str)][:20]


def _number(x: Any) -> float:
    if type(x) is float:        # (what a result line's figures are: ~4 a request)
        return x
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else 0.0


def _internal(detail: str, elapsed: float) -> Outcome:
    return Outcome(status="crash", error={"internal": bounds.text(detail, 4000)}, elapsed=round(elapsed, 4),
                   message=INTERNAL, hidden_message=INTERNAL)


# ---------------------------------------------------------------------------------------
# Messages: one plain-English sentence per non-ok status.
# ---------------------------------------------------------------------------------------
def _message(out: Outcome, request: Request, data: dict, facts: dict, limits: Limits, timeout: float) -> str:
    status, error = out.status, out.error or {}
    stopped = f"was stopped after {_secs(timeout)} s"
    if status == "ok":
        return ""
    if status == "timeout":
        if facts.get("cpu_limited"):
            return f"your program used more than {limits.cpu_s} s of CPU time"
        return f"your program {stopped}"
    if status in ("input_exhausted", "dice_exhausted", "output_limit"):
        text = _limit_message(status, out, request, data, limits)
        if facts.get("timed_out"):
            text += f"; it kept going and {stopped}"
        return text
    if status == "memory":
        return f"used more than {limits.memory_mb} MB of memory"
    if status == "exit":
        via, arg = data.get("exit_via"), data.get("exit_arg")
        if via in ("sys.exit", "os._exit") and isinstance(arg, str):
            return f"called {via}({bounds.text(arg, 200)})"
        return f"ended with exit code {out.exit_code}"
    if status == "exception":
        return f"raised {error.get('type')}{_on_line(error)}{_colon(error.get('message'))}"
    if status == "syntax_error":
        return f"has a syntax error{_on_line(error)}{_colon(error.get('message'))}"
    if status == "import_error":
        return f"raised {error.get('type')} while being loaded{_on_line(error)}{_colon(error.get('message'))}"
    if status == "no_function":
        return _no_function_message(request, error)
    if isinstance(facts.get("signal"), int):
        return f"your program crashed (killed by {_signal_name(facts['signal'])})"
    return INTERNAL


def not_another(out: Outcome, request: Request, handout: frozenset[str]) -> Outcome:
    """A no_function OUT whose did-you-mean names another function of the handout (HANDOUT: every
    name its problems give) offers the next close name instead, or none: a missing
    score_small_straight is not a misspelt score_large_straight, which is graded as itself."""
    error = out.error or {}
    suggestion = error.get("suggestion")
    if out.status != "no_function" or suggestion not in handout:
        return out
    error = {**error, "suggestion": next((n for n in error.get("close") or () if n not in handout), None)}
    return dataclasses.replace(out, error=error, message=_no_function_message(request, error))


def _no_function_message(request: Request, error: dict) -> str:
    hint = error.get("suggestion")
    return _missing(request, error) + (f"; did you mean {hint}?" if hint else "")


def _missing(request: Request, error: dict) -> str:
    """What a no_function outcome did not find: a function, a class, or a method of a class."""
    func = str(request.func)
    if "." not in func:
        return f"has no function named {func}"
    cls, _, method = func.partition(".")
    if error.get("type") == "AttributeError":
        return f"has no method {method} in class {cls}"
    return f"has no class named {cls}"


HIDDEN_MESSAGES = {
    "exception": "raised an exception", "import_error": "raised an exception while being loaded",
    "syntax_error": "has a syntax error", "input_exhausted": "asked for more input than this run provides",
    "dice_exhausted": "rolled more dice than this scenario provides", "exit": "ended the program (an exit call)",
    "crash": "crashed",
}


def _hidden_message(out: Outcome, request: Request, facts: dict, limits: Limits, timeout: float) -> str:
    """A non-ok outcome in words that come from the grader alone (for hidden checks): the status
    and the grader's own limits, never an exception's name or text, a line number or an exit code."""
    status = out.status
    if status == "ok":
        return ""
    if status == "timeout":
        return (f"your program used more than {limits.cpu_s} s of CPU time" if facts.get("cpu_limited")
                else f"your program was stopped after {_secs(timeout)} s")
    if status == "memory":
        return f"used more than {limits.memory_mb} MB of memory"
    if status == "output_limit":
        return f"print output exceeded {limits.output_chars} characters"
    if status == "no_function":
        return _missing(request, out.error or {})
    if status == "crash" and out.message == INTERNAL:
        return INTERNAL
    if status == "exception" and (out.error or {}).get("type") == "NotImplementedError":
        return "is not written yet (it raises NotImplementedError)"
    return HIDDEN_MESSAGES.get(status, "did not finish normally")


def _limit_message(status: str, out: Outcome, request: Request, data: dict, limits: Limits) -> str:
    if status == "output_limit":
        return f"print output exceeded {limits.output_chars} characters"
    if status == "dice_exhausted":
        n = bounds.integer(data.get("dice_failed_at"), out.dice_used + 1, 0, 10 ** 9)
        provided = len(request.dice or [])
        return f"rolled {_a(n)} {ordinal(n)} die; this scenario provides {provided}"
    asked = out.inputs_asked
    if request.stdin is None:
        text = "asked for input, but this run provides no input"
        return text + (f" (it asked {asked} times)" if asked > 1 else "")
    lines = len(request.stdin)
    first = bounds.integer(data.get("exhausted_at"), lines + 1, 0, 10 ** 9)
    text = (f"asked for input {_a(first)} {ordinal(first)} time; "
            f"this game's script has {lines} line{'' if lines == 1 else 's'}")
    return text + (f" (it asked {asked} times in all)" if asked > first else "")


def _on_line(error: dict) -> str:
    return f" on line {error['line']}" if isinstance(error.get("line"), int) else ""


def _colon(text: Any) -> str:
    return f": {text}" if text else ""


def _secs(t: float) -> str:
    return f"{t:g}"


def _a(n: int) -> str:
    """'an' before numbers read with a vowel sound: 8, 11, 18, 80-89, 800..., 11000..."""
    digits = str(n)
    vowel = digits.startswith("8") or (len(digits) % 3 == 2 and digits[:2] in ("11", "18"))
    return "an" if vowel else "a"


def _signal_name(sig: int) -> str:
    try:
        return signal.Signals(sig).name
    except ValueError:
        return f"signal {sig}"
