"""What the grader asks of a sandbox (Request, with its Limits), what comes back (Outcome), and
the request line sent to the harness."""

from __future__ import annotations

import json
import marshal
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from . import bounds
from . import typed as typed_values

HARNESS_EXIT = 117               # a request process that exits with this never got to report
INTERNAL = "the grader could not run your program (internal error)"
STATUSES = frozenset({"ok", "exception", "timeout", "memory", "output_limit", "exit", "crash", "syntax_error",
                      "import_error", "input_exhausted", "dice_exhausted", "no_function"})


@dataclass
class Limits:
    wall_s: float = 5.0          # per request wall-clock limit (enforced by the grader side)
    cpu_s: int = 10              # RLIMIT_CPU for the sandbox process tree (seconds)
    memory_mb: int = 512         # RLIMIT_AS
    nproc: int = 64              # RLIMIT_NPROC (as root: a dedicated uid per sandbox, so only its processes)
    fsize_mb: int = 8            # RLIMIT_FSIZE
    output_chars: int = 200_000  # max captured print output per request; more -> status "output_limit"
    nofile: int = 64
    budget_s: float = 0.0        # total seconds of requests per submission (Program; 0 = no budget)
    # A request's timeout (Request.timeout, else wall_s) is a limit on its CPU time: one that is
    # starved by the machine's load runs on up to wall_factor times as long on the wall clock (the
    # backstop); one stopped by the backstop under its CPU limit runs once more with a backstop
    # retry_factor times longer before the timeout counts (harness Run.extension, Sandbox.run).
    wall_factor: float = 3.0
    retry_factor: float = 2.0


@dataclass
class Request:
    """One run in a sandbox.  kind "call": import the file as a module, then call FUNC(*args, **kwargs):
    a module function, or "Class.method" of a class the student wrote -- with INSTANCE the object
    is constructed there (Class(*init, **kwargs); stdin, dice and seed apply to the constructor and
    the call), its STATE attributes set, the method called, and Outcome.state_after carries the
    object's public attributes after it; without INSTANCE the method is called on the class.
    kind "script": run the file as __main__.  See Program.call and Program.script."""

    kind: str = "call"            # "call": import as module <stem>, then call func; "script": run as __main__
    func: str | None = None
    args: list = field(default_factory=list)     # JSON-able
    kwargs: dict = field(default_factory=dict)
    stdin: list[str] | None = None   # scripted input lines; None = no input available
    seed: int | None = None          # random.seed(seed) right before the call / before the script
    dice: list[int] | None = None    # random.randint returns these, in order
    fresh: bool = True               # False: may run in the shared long-lived worker (pure functions)
    timeout: float | None = None     # overrides Limits.wall_s
    substitute: dict | None = None   # {"names": [...], "keep": [...], "own": [...]}: the reference's functions NAMES
    #                                  replace the student's for this call (see harness/targets.py)
    instance: dict | None = None     # func "Class.method": {"init": [...], "kwargs": {...}, "state": {...}}
    #                                  constructs Class(*init, **kwargs) (stdin/dice/seed apply), sets the
    #                                  STATE attributes, calls the method; Outcome.state_after holds the
    #                                  instance's public attributes after it.  None: Class.method(*args)
    typed: bool = False              # tuples, sets, int-keyed dicts go in (args, kwargs, instance) and come
    #                                  back (value, args_after, state_after) as such: engine/typed.py

    @property
    def runs_fresh(self) -> bool:
        """Whether it runs in a freshly executed module (a script always does)."""
        return bool(self.fresh) or self.kind == "script"


@dataclass
class Outcome:
    status: str                   # "ok" | "exception" | "timeout" | "memory" | "output_limit" | "exit" | "crash"
    #                               | "syntax_error" | "import_error" | "input_exhausted" | "dice_exhausted"
    #                               | "no_function"
    value: Any = None             # the return value as plain JSON data ({"__type__": name} for other objects)
    error: dict | None = None     # {"type", "message", "line", "trace"} (student frames only); syntax errors add
    #                               "text"; no_function: {"type", "message", "suggestion"}; internal: {"internal"}
    stdout: str = ""              # everything printed (stdout and stderr, input echoed), cut at output_chars
    events: list = field(default_factory=list)   # ["out", text] (consecutive writes joined), ["in", prompt,
    #                               answer|None], ["roll", v], ["random", name, args], ["seed", args]
    args_after: list | None = None  # the args after the call, normalised
    state_after: dict | None = None  # a "Class.method" call with an instance: its public attributes after
    #                               the call (from __dict__ and __slots__, normalised like any value)
    import_stdout: str = ""       # what the module printed while being imported
    import_prompted: dict | None = None  # {"line", "prompt"} when input() was called during the import
    inputs_asked: int = 0         # how many times input() was called
    stdin_lines: int = 0          # len(request.stdin or [])
    dice_used: int = 0
    exit_code: int | None = None
    elapsed: float = 0.0          # wall seconds of the request
    cpu: float = 0.0              # CPU seconds of the request process
    wait: float = field(default=0.0, compare=False, repr=False)  # of elapsed, seconds its process waited
    #                               for a CPU (the machine's load; measured by the zygote, 0 if unknown)
    message: str = ""             # one plain-English sentence for a non-ok status
    hidden_message: str = ""      # the same from grader text only (no name, number or text the program chose)
    worker: tuple | None = field(default=None, compare=False, repr=False)
    #                               (shared worker generation it ran in, generation after it) or None:
    #                               lets a Program know which shared-worker history a call saw
    stopped_in: tuple | None = field(default=None, compare=False, repr=False)
    #                               (function, first line): the student's function its soft timer stopped
    #                               (a timeout; claimed by the student's process, see Program._trial)
    wall_stopped: bool = field(default=False, compare=False, repr=False)
    #                               a timeout its wall-clock backstop stopped under its CPU limit (starved)
    endless: bool = field(default=False, compare=False, repr=False)
    #                               a timeout stopped early: the harness proved an endless loop (harness/
    #                               endless.py; claimed by the student's process, see Program._after_trial)
    attempts: list = field(default_factory=list)  # what the code tried beyond the assignment (files outside
    #                               the library, network, programs, signals, forged protocol lines): for the instructor
    lent: bool = field(default=False, compare=False, repr=False)
    #                               it ran in a sandbox that holds the reference (a substitution variant's):
    #                               what the program said there may carry the reference's code (engine/lent.py)


def _payload(request: Request, seq: int, timeout: float, wall: float | None = None) -> bytes:
    return _encode(_payload_data(request, seq, timeout, wall)) + b"\n"


def _encode(data: Any) -> bytes:
    """DATA as a request line's JSON; a Request whose arguments are not JSON data raises TypeError."""
    try:
        return _ENCODE(data).encode()
    except (TypeError, ValueError) as e:
        raise TypeError(f"Request arguments must be JSON data: {e}") from None
    except RecursionError:
        raise TypeError("Request arguments must be JSON data: circular or nested too deeply") from None


def json_encoder(**options: Any) -> Any:
    """json.JSONEncoder(**options).encode with its C encoder made once, not at every call (what
    encode and json.dumps do: about half of encoding a request line), kept if it writes what
    encode writes.  It has no circular check (that needs per-call state, which an encoding that
    raised would leave behind; the encoder is shared by threads): circular data ends in a
    RecursionError (_encode reports it as json.dumps's ValueError was)."""
    encoder = json.JSONEncoder(**options)
    make = json.encoder.c_make_encoder
    if make is None or encoder.indent is not None:
        return encoder.encode
    encode = make(None, encoder.default, json.encoder.encode_basestring_ascii if encoder.ensure_ascii
                  else json.encoder.encode_basestring, None, encoder.key_separator, encoder.item_separator,
                  encoder.sort_keys, encoder.skipkeys, encoder.allow_nan)
    join = "".join

    def fast(data: Any) -> str:
        return join(encode(data, 0))

    probe = {"seq": 1, "args": [1, -2.5, None, True, "\u00e9\n", {"k": [1e300 * 10]}]}
    try:
        return fast if fast(probe) == encoder.encode(probe) else encoder.encode
    except Exception:           # (another signature of the C encoder)
        return encoder.encode


_ENCODE = json_encoder()


def _payload_data(request: Request, seq: int, timeout: float, wall: float | None = None) -> dict:
    """What the harness reads of REQUEST (as a dict: a batch encodes its requests in one go)."""
    if request.kind not in ("call", "script"):
        raise ValueError(f"Request.kind must be 'call' or 'script', not {request.kind!r}")
    if request.kind == "call" and not isinstance(request.func, str):
        raise ValueError("a 'call' Request needs func (a function name)")
    data = {
        "seq": seq, "kind": request.kind, "func": request.func, "args": list(request.args),
        "kwargs": dict(request.kwargs), "stdin": None if request.stdin is None else [str(s) for s in request.stdin],
        "seed": request.seed, "dice": None if request.dice is None else list(request.dice),
        "fresh": request.runs_fresh, "timeout": timeout,
        "wall": max(wall or timeout, timeout),
    }
    if request.instance is not None:
        data["instance"] = _instance_spec(request)
    if request.typed:
        data["typed"] = True
        data["args"] = typed_values.encode(list(request.args))
        data["kwargs"] = {key: typed_values.encode(v) for key, v in dict(request.kwargs).items()}
        if "instance" in data:
            spec = data["instance"]
            data["instance"] = {"init": typed_values.encode(spec["init"]),
                                "kwargs": {k: typed_values.encode(v) for k, v in spec["kwargs"].items()},
                                "state": {k: typed_values.encode(v) for k, v in spec["state"].items()}}
    if request.substitute:
        data["substitute"] = {key: [str(n) for n in request.substitute.get(key, ())] for key in ("names", "keep")}
        if request.substitute.get("own"):       # an in-stage retry's control run (Program._also_substitute)
            data["substitute"]["own"] = [str(n) for n in request.substitute["own"]]
        if request.substitute.get("stand_in") is True:      # a tried run's (ahead.py: stand-ins, no reference)
            data["substitute"]["stand_in"] = True
    return data


_ITEM, _KEY = json.JSONEncoder.item_separator.encode(), json.JSONEncoder.key_separator.encode()   # _ENCODE's
_LINE_PARTS: dict[int, tuple[Request, list]] = {}
_LINE_PARTS_MAX = 1 << 14


def planned_line(request: Request, seq: int, timeout: float, wall: float | None = None) -> bytes:
    """_encode(_payload_data(REQUEST, SEQ, TIMEOUT, WALL)), the same bytes, for a plan's REQUEST:
    its own fields are encoded once per Request object (a worker sends the same plan, the same
    objects, ahead for every student; keyed by identity and kept alive with the entry, so an id is
    never reused; nothing changes a plan's Request: see keys.plan_key), the run's fields each time."""
    parts = by_identity(_LINE_PARTS, request, lambda: _line_parts(request), _LINE_PARTS_MAX)
    wall = max(wall or timeout, timeout)
    # The whole line of the last run asked, again when this run's figures are the same values of
    # the same types (every student's plan has the same sequence numbers and limits; equal
    # values of one type write the same text, 0.0 and -0.0 aside, which no limit is).
    run = (seq, timeout, wall, type(seq), type(timeout), type(wall))
    if parts[2] == run:
        return parts[3]
    line = b"".join((b'{"seq"', _KEY, _number_text(seq), _ITEM, parts[0], _ITEM, b'"timeout"', _KEY,
                     _number_text(timeout), _ITEM, b'"wall"', _KEY, _number_text(wall), parts[1], b"}"))
    if timeout != 0 and wall != 0:          # (a zero's sign is not in ==)
        parts[2:] = run, line
    return line


def _line_parts(request: Request) -> list:
    """REQUEST's own fields of its line, encoded: those before "timeout" and those after "wall";
    then the last run's figures and its whole line (planned_line), none yet."""
    data = _payload_data(request, 0, 1.0)           # a bad Request raises here, as _encode would
    keys = list(data)                               # seq, ...its own..., timeout, wall, ...its own...
    before = {k: data[k] for k in keys[1:keys.index("timeout")]}
    after = {k: data[k] for k in keys[keys.index("wall") + 1:]}
    return [_encode(before)[1:-1], _ITEM + _encode(after)[1:-1] if after else b"", None, None]


def by_identity(table: dict[int, tuple[Any, Any]], obj: Any, compute: Callable[[], Any], most: int) -> Any:
    """compute() once per object OBJ in TABLE (emptied when it holds MOST): for objects nothing
    changes, such as a plan's Requests.  Keyed by identity and kept alive with the entry, so an
    id is never reused while its entry is there."""
    entry = table.get(id(obj))
    if entry is not None and entry[0] is obj:
        return entry[1]
    value = compute()
    if len(table) >= most:
        table.clear()
    table[id(obj)] = (obj, value)
    return value


def by_marshal(table: dict[bytes, Any], content: Any, compute: Callable[[], Any], most: int) -> Any:
    """compute() once per CONTENT in TABLE (emptied when it holds MOST), keyed by marshal's bytes of
    CONTENT (version 2: no back-references, so equal values of equal types give equal bytes, and
    equal bytes are equal values of equal types, dicts in their order).  What marshal cannot write
    is not memoized.  COMPUTE must not return None (a miss)."""
    try:
        key = marshal.dumps(content, 2)
    except ValueError:
        return compute()
    value = table.get(key)
    if value is None:
        if len(table) >= most:
            table.clear()
        value = table[key] = compute()
    return value


def _number_text(x: Any) -> bytes:
    """X as _ENCODE writes it (an exact int or a finite float: its repr, as the C encoder does)."""
    if type(x) is int or (type(x) is float and x - x == 0):
        return repr(x).encode()
    return _encode(x)


def _instance_spec(request: Request) -> dict:
    spec = request.instance
    if request.kind != "call" or "." not in (request.func or ""):
        raise ValueError("Request.instance needs a call of func 'Class.method'")
    if not isinstance(spec, dict) or set(spec) - {"init", "kwargs", "state"}:
        raise ValueError(f"Request.instance must be a dict with keys init, kwargs, state, not {spec!r}")
    init, kwargs, state = spec.get("init") or [], spec.get("kwargs") or {}, spec.get("state") or {}
    if not isinstance(init, (list, tuple)) or not isinstance(kwargs, dict) or not isinstance(state, dict):
        raise ValueError("Request.instance: init must be a list, kwargs and state dicts")
    if not all(isinstance(k, str) and k.isidentifier() for k in [*kwargs, *state]):
        raise ValueError("Request.instance: kwargs and state keys must be identifiers")
    return {"init": list(init), "kwargs": dict(kwargs), "state": dict(state)}


_DECODER = json.JSONDecoder()
_DECODE, _SCAN = _DECODER.decode, _DECODER.scan_once


def _parse(line: bytes | None) -> dict | None:
    """A line from the sandbox as a dict, or None; never raises."""
    if line is None:
        return None
    try:
        if line.startswith(b'{"'):      # (json.loads would guess the encoding: a line starting '{"' is UTF-8)
            text = line.decode("utf-8", "surrogatepass")
            try:                        # one value that ends the line (the usual case) without decode's
                msg, end = _SCAN(text, 0)   # two whitespace matches around it
            except StopIteration:
                end = -1
            if end != len(text):        # anything else: decode's own answer (trailing whitespace, or why not)
                msg = _DECODE(text)
        else:
            msg = json.loads(line)
    except (ValueError, RecursionError, MemoryError):      # garbage, nested too deeply, too big
        return None
    if not isinstance(msg, dict):
        return None
    if bounds.has_lone_surrogate(line):         # text no encoder takes: shown as escapes from here on
        msg = bounds.wellformed(msg)
    return msg


def _parse_trailer(line: bytes) -> dict | None:
    """The zygote's own part of a request's line ({"t":"done", ...its keys..., "result": the
    request process's answer}) when the whole does not parse: the keys before the first
    ,"result": (the zygote's flat JSON, where that text cannot occur inside a string)."""
    i = line.find(b',"result":')
    return _parse(line[:i] + b"}") if i > 0 else None
