"""Everything that comes back from a sandbox is untrusted data: bound it before the grader uses it.

The harness inside the sandbox already normalises values, but the student's process can write
any line to its result pipe, so the grader re-checks every field here with bounded code (no
recursion deeper than MAX_DEPTH, no string longer than its cap, no collection longer than
MAX_ITEMS, no int with more than MAX_INT_DIGITS digits) and never raises on any input.
"""

from __future__ import annotations

import builtins
import re
from typing import Any

MAX_DEPTH = 24
MAX_ITEMS = 10_000             # per collection
MAX_TOTAL = 200_000            # items in one value, all levels together
MAX_STR = 100_000              # characters of one string inside a value
MAX_INT_DIGITS = 1_000
MAX_NAME = 80                  # an exception type or function name
MAX_MESSAGE = 2_000            # an exception message
MAX_TRACE = 30                 # frames of a traceback
MAX_EVENTS = 20_000
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*\Z")
BUILTIN_EXCEPTIONS = frozenset(name for name, v in vars(builtins).items()
                               if isinstance(v, type) and issubclass(v, BaseException))
TOO_BIG = 10 ** 30
_INT_CAP = 10 ** MAX_INT_DIGITS             # what a number printed with absurdly many digits reads as


_LONE = re.compile("[\ud800-\udfff]")       # a surrogate in a str is a lone one (a pair decodes to one char)
_LONE_IN_LINE = re.compile(rb"\\u[dD][89a-fA-F]|\xed[\xa0-\xbf]")     # a surrogate escaped, or as raw UTF-8


def _shown_lone(match: re.Match) -> str:
    return f"\\u{ord(match.group()):04x}"


def wellformed(x: Any, replacement: str | None = None) -> Any:
    """X (a decoded JSON value) with every lone surrogate of its strings and keys replaced: by
    REPLACEMENT, or by its visible escape (`\\ud800`, as escape.plain shows a control character).

    JSON may spell a lone surrogate (`"\\ud800"`); Python keeps it in the str, and the first
    encode to UTF-8 (a terminal, a file, SQLite) raises: one student's text would stop the batch."""
    fix = (lambda s: _LONE.sub(replacement, s)) if replacement is not None else (lambda s: _LONE.sub(_shown_lone, s))
    if isinstance(x, str):
        return fix(x) if _LONE.search(x) else x
    top: list = [x]
    stack: list = [(top, 0)]
    while stack:                                # iterative: as deep as the JSON parser allowed
        holder, key = stack.pop()
        v = holder[key]
        if isinstance(v, str):
            if _LONE.search(v):
                holder[key] = fix(v)
        elif isinstance(v, list):
            stack.extend((v, i) for i in range(len(v)))
        elif isinstance(v, dict):
            if any(isinstance(k, str) and _LONE.search(k) for k in v):
                items = [(fix(k) if isinstance(k, str) else k, w) for k, w in v.items()]
                v.clear()
                v.update(items)
            stack.extend((v, k) for k in v)
    return top[0]


def has_lone_surrogate(line: bytes) -> bool:
    """Whether a JSON line's bytes may decode to a lone surrogate (a cheap test first)."""
    return (b"\\u" in line or b"\xed" in line) and _LONE_IN_LINE.search(line) is not None


def text(x: Any, limit: int = MAX_STR) -> str:
    """X as a string of at most LIMIT characters ('' for a non-string)."""
    if not isinstance(x, str):
        return ""
    return x if len(x) <= limit else x[:limit] + f"...[{len(x) - limit} chars cut]"


def name(x: Any) -> str:
    """An identifier-like name (an exception type, a function) or '?'; long names are cut."""
    if not isinstance(x, str) or not x:
        return "?"
    x = x[:MAX_NAME]
    return x if NAME.match(x) else "?"


def integer(x: Any, default: int | None = None, low: int = -(1 << 62), high: int = 1 << 62) -> int | None:
    """A plain int within [LOW, HIGH], else DEFAULT (bools are not ints here)."""
    if isinstance(x, int) and not isinstance(x, bool) and low <= x <= high:
        return x
    return default


def number(digits: str) -> int:
    """int() of a run of digits a student's program printed, bounded: never ValueError on length.

    More than 30 significant digits reads as TOO_BIG (never equal to any expected score)."""
    if len(digits) <= 30 and digits.isdecimal():        # the usual case: a die, a score
        return int(digits)
    sign = -1 if digits.startswith("-") else 1
    body = digits.lstrip("+-").lstrip("0") or "0"
    if not body.isdigit():
        raise ValueError(f"not a number: {digits[:40]!r}")
    return sign * (int(body) if len(body) <= 30 else TOO_BIG)


def value(x: Any) -> Any:
    """A JSON value, bounded in depth, length and size (iteratively: no recursion)."""
    budget = [MAX_TOTAL]
    return _value(x, 0, budget)


def _value(x: Any, depth: int, budget: list[int]) -> Any:
    # Recursion is bounded by MAX_DEPTH (far below Python's limit).
    budget[0] -= 1
    kind = type(x)          # exact JSON types first (what a result line decodes to), then the rest
    if kind is str:
        return x if len(x) <= MAX_STR else text(x)
    if kind is int:
        return x if -_INT_CAP < x < _INT_CAP else {"__type__": "int"}
    if x is None or isinstance(x, (bool, float)):
        return x
    if isinstance(x, int):
        return x if abs(x) < _INT_CAP else {"__type__": "int"}
    if isinstance(x, str):
        return text(x)
    if depth >= MAX_DEPTH or budget[0] <= 0:
        return {"__type__": "nested too deeply"}
    if isinstance(x, list):
        return [_value(v, depth + 1, budget) for v in x[:MAX_ITEMS] if budget[0] > 0]
    if isinstance(x, dict):
        out = {}
        for k, v in list(x.items())[:MAX_ITEMS]:
            if budget[0] <= 0:
                break
            out[text(k, 200)] = _value(v, depth + 1, budget)
        return out
    return None


def error(x: Any) -> dict | None:
    """The error dict of an outcome, with known keys only, each bounded."""
    if not isinstance(x, dict):
        return None
    out: dict[str, Any] = {}
    if "type" in x:
        out["type"] = name(x["type"])
    for key in ("message", "text", "internal", "raw_output"):
        if isinstance(x.get(key), str):
            out[key] = text(x[key], MAX_MESSAGE)
    if "suggestion" in x:
        out["suggestion"] = name(x["suggestion"]) if isinstance(x["suggestion"], str) else None
    if isinstance(x.get("close"), list):     # more close names (a no_function's), the grader's to choose from
        out["close"] = [n for n in (name(n) for n in x["close"][:3]) if n != "?"]
    if isinstance(x.get("python"), str):        # the sandbox's Python version, for syntax errors
        out["python"] = text(x["python"], 16)
    line = integer(x.get("line"), None, 0, 10 ** 9)
    if line is not None:
        out["line"] = line
    python = x.get("python")          # the sandbox's Python "3.11", for a syntax error a newer one accepts
    if isinstance(python, str) and len(python) <= 8 and python.replace(".", "").isdigit():
        out["python"] = python
    trace = x.get("trace")
    if isinstance(trace, list):
        out["trace"] = [_frame(f) for f in trace[:MAX_TRACE]]
    elif isinstance(trace, str):
        out["trace"] = text(trace, MAX_MESSAGE * 4)
    return out


def _frame(f: Any) -> Any:
    if isinstance(f, str):
        return text(f, 500)
    if isinstance(f, list):
        return [text(v, 500) if isinstance(v, str) else integer(v) for v in f[:6]]
    if isinstance(f, dict):
        return {text(k, 40): (text(v, 500) if isinstance(v, str) else integer(v)) for k, v in list(f.items())[:8]}
    return None


def events(x: Any) -> list:
    """The transcript events: lists whose first item names the kind, strings and small ints only."""
    if not isinstance(x, list):
        return []
    out = []
    for ev in x[:MAX_EVENTS]:
        if not isinstance(ev, list) or not ev or not isinstance(ev[0], str):
            continue
        item = [ev[0][:16]]
        for v in ev[1:8]:
            kind = type(v)      # exact JSON types first (the usual str and small int), then the rest
            if kind is str and len(v) <= MAX_STR or kind is int and -_EVENT_INT <= v <= _EVENT_INT:
                item.append(v)
            else:
                item.append(_event_item(v))
        out.append(item)
    return out


_EVENT_INT = 1 << 62            # integer()'s default bounds


def _event_item(v: Any) -> Any:
    if isinstance(v, str):
        return text(v, MAX_STR)
    if isinstance(v, int) and not isinstance(v, bool):
        return integer(v, 0)
    if isinstance(v, (list, dict)):
        return value(v)
    return v if isinstance(v, (float, bool)) or v is None else None


def shown_type(type_name: str) -> str:
    """An exception's type as grader text: a built-in exception's name, else a fixed phrase.

    Hidden checks use this: a class the student named could carry the hidden request out."""
    return type_name if type_name in BUILTIN_EXCEPTIONS else "an exception of its own class"
