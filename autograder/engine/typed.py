"""Typed values on the wire: tuples, sets and dicts whose keys are not strings, in JSON.

A request with `typed=True` (Request.typed, Program.call(..., typed=True)) sends its arguments,
keyword arguments and instance state encoded here, and gets its value, arguments after and
state after back in the same form, so a seed's API that takes a set (`is_straight({1, 2, 3, 4})`)
or a dict keyed by dice positions (`roll_dices({1: 6, 3: 6})`) is called with exactly that, and
what a student returns is compared by its type as well as its content.

The form (the harness writes it, values.py, in a canonical order: two equal values encode the
same, so outcomes compare and cache as plain JSON):
  tuple -> {"__tuple__": [items]}            set -> {"__set__": [items, sorted by their JSON]}
  frozenset -> {"__frozenset__": [items]}    dict with a key that is not a str, or a str key
  starting "__" -> {"__dict__": [[key, value], ...] sorted by the keys' JSON}; any other dict and
  list as JSON.  {"__type__": name} stays what it always was: an object of another type.
`decode` turns the form back into Python values for display and for checks that want them;
it is bounded (engine/bounds.py has bounded the JSON already) and never raises: an item it
cannot rebuild (a marker of the wrong shape, an unhashable set item or key) becomes
{"__type__": ...}, as an unknown object would."""

from __future__ import annotations

import json
from typing import Any

MARKERS = ("__tuple__", "__set__", "__frozenset__", "__dict__")
MAX_DEPTH = 24


def encode(x: Any, depth: int = 0) -> Any:
    """X (grader data: lists, tuples, sets, dicts, str, int, float, bool, None) in the wire form.
    Raises TypeError for anything else (a request's arguments are the grader's own data)."""
    if depth > MAX_DEPTH:
        raise TypeError("a typed value nested too deeply")
    if x is None or isinstance(x, (bool, int, float, str)):
        return x
    if isinstance(x, list):
        return [encode(v, depth + 1) for v in x]
    if isinstance(x, tuple):
        return {"__tuple__": [encode(v, depth + 1) for v in x]}
    if isinstance(x, (set, frozenset)):
        items = sorted((encode(v, depth + 1) for v in x), key=_order)
        return {"__frozenset__" if isinstance(x, frozenset) else "__set__": items}
    if isinstance(x, dict):
        if all(isinstance(k, str) and not k.startswith("__") for k in x):
            return {k: encode(v, depth + 1) for k, v in x.items()}
        pairs = [[encode(k, depth + 1), encode(v, depth + 1)] for k, v in x.items()]
        return {"__dict__": sorted(pairs, key=lambda pair: _order(pair[0]))}
    raise TypeError(f"a typed request value must be data (list, tuple, set, dict, str, int, float, bool, "
                    f"None), not {type(x).__name__}")


def _order(item: Any) -> str:
    return json.dumps(item, separators=(",", ":"))     # as the harness orders them (values.py)


def decode(x: Any, depth: int = 0) -> Any:
    """The Python value of the wire form X (bounded JSON from a sandbox, or encode's output)."""
    if depth > MAX_DEPTH:
        return {"__type__": "nested too deeply"}
    if isinstance(x, list):
        return [decode(v, depth + 1) for v in x]
    if not isinstance(x, dict):
        return x
    if len(x) == 1:
        (key, items), = x.items()
        if key in MARKERS:
            return _rebuild(key, items, depth)
    return {k: decode(v, depth + 1) for k, v in x.items()}


def _rebuild(marker: str, items: Any, depth: int) -> Any:
    kind = marker.strip("_")
    if not isinstance(items, list):
        return {"__type__": kind}
    values = [decode(v, depth + 1) for v in items]
    try:
        if marker == "__tuple__":
            return tuple(values)
        if marker == "__set__":
            return set(values)
        if marker == "__frozenset__":
            return frozenset(values)
        if all(isinstance(pair, list) and len(pair) == 2 for pair in values):
            return {key: value for key, value in values}
    except TypeError:                 # an unhashable item or key (an object shown as {"__type__": ...})
        pass
    return {"__type__": kind}
