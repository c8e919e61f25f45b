"""Normalisation: student values -> plain JSON data, without running any student code."""

from .base import MAX_CHARS, MAX_DEPTH, MAX_INT_BITS, MAX_ITEMS, MAX_STR, _dumps, _type_name


def normalise(x, budget=MAX_ITEMS, typed=False):
    """Plain JSON data for X; anything that is not exactly a basic type becomes {"__type__": name}.
    TYPED (a typed request): tuples, sets, frozensets and dicts with keys that are not plain
    strings keep their type, in the wire form of engine/typed.py, in a canonical order."""
    return _norm(x, 0, [budget, MAX_CHARS, typed], set())


_TYPED = {tuple: "__tuple__", set: "__set__", frozenset: "__frozenset__"}


def _norm(x, depth, budget, path):
    """BUDGET = [items left, characters left, typed]: a huge value (one long string shared by a
    million list slots) becomes a small summary, not a result line too big to encode."""
    t = type(x)
    budget[0] -= 1
    if t is str:
        if len(x) <= MAX_STR and len(x) <= budget[1]:
            budget[1] -= len(x)
            return x
        start = x[:max(0, min(1000, budget[1]))]
        budget[1] -= len(start)
        return {"__type__": "str", "length": len(x), "start": start}
    if t is int:
        digits = x.bit_length() // 3 + 1
        if x.bit_length() <= MAX_INT_BITS and digits <= budget[1]:
            budget[1] -= digits
            return x
        return {"__type__": "int", "too_large": True}
    if t is bool or t is float or x is None:
        return x
    typed = budget[2] and (t in _TYPED or t is dict)
    if t is not list and t is not tuple and t is not dict and not typed:
        return {"__type__": _type_name(t)}
    if depth >= MAX_DEPTH or budget[0] <= 0:
        return {"__type__": _type_name(t), "truncated": True}
    if id(x) in path:
        return {"__type__": _type_name(t), "cycle": True}
    path.add(id(x))
    try:
        if typed:
            return _norm_typed(x, t, depth, budget, path)
        return _norm_dict(x, depth, budget, path) if t is dict else _norm_list(x, depth, budget, path)
    finally:
        path.discard(id(x))


def _norm_typed(x, t, depth, budget, path):
    """A tuple, set, frozenset or dict in engine/typed.py's form (sets and non-string keys in the
    order of their JSON: equal values encode equal).  X is exactly of its built-in type, so
    iterating it runs no student code."""
    if t is dict:
        items = list(dict.items(x))          # (no key is hashed again: a key's __hash__ never runs)
        if all(type(k) is str and not k.startswith("__") for k, _ in items):
            return _norm_dict(x, depth, budget, path)
        pairs = []
        for k, v in items:
            if budget[0] <= 0:
                break
            pairs.append([_norm(k, depth + 1, budget, path), _norm(v, depth + 1, budget, path)])
        pairs.sort(key=lambda pair: _dumps(pair[0]))
        return {"__dict__": pairs}
    items = _norm_list(x, depth, budget, path)
    if t is not tuple:
        items.sort(key=_dumps)
    return {_TYPED[t]: items}


def _norm_list(x, depth, budget, path):
    out = []
    for item in x:
        if budget[0] <= 0:
            out.append({"__type__": "...", "truncated": True})
            break
        out.append(_norm(item, depth + 1, budget, path))
    return out


def _norm_dict(x, depth, budget, path):
    keys = list(x)
    if any(type(k) is not str and type(k) is not int and type(k) is not bool for k in keys):
        return {"__type__": "dict", "keys": "not str/int"}
    out = {}
    for k in keys:
        if budget[0] <= 0:
            out["__truncated__"] = True
            break
        out[k if type(k) is str else str(int(k))] = _norm(dict.__getitem__(x, k), depth + 1, budget, path)
    return out


def _plain(x, depth=0):
    """True when str()/repr() of X cannot run student code."""
    t = type(x)
    if t in (str, int, float, bool) or x is None:
        return t is not int or x.bit_length() <= MAX_INT_BITS
    if (t is tuple or t is list) and depth < 3 and len(x) <= 50:
        return all(_plain(i, depth + 1) for i in x)
    return False


def _safe_str(x):
    if type(x) is str:
        return x
    return repr(x) if _plain(x) else f"<{_type_name(type(x))} object>"


_BUILD = {"__tuple__": tuple, "__set__": set, "__frozenset__": frozenset}


def typed_in(x, depth=0):
    """A typed request's argument (engine/typed.py's wire form, the grader's own data) as the
    Python value it stands for: tuples, sets, frozensets, dicts with int (any hashable) keys."""
    t = type(x)
    if t is list:
        return [typed_in(v, depth + 1) for v in x]
    if t is not dict or depth > MAX_DEPTH:
        return x
    if len(x) == 1:
        (key, items), = x.items()
        if key in _BUILD and type(items) is list:
            return _BUILD[key](typed_in(v, depth + 1) for v in items)
        if key == "__dict__" and type(items) is list:
            return {typed_in(k, depth + 1): typed_in(v, depth + 1) for k, v in items}
    return {k: typed_in(v, depth + 1) for k, v in x.items()}
