# The store: a module of its own put in sys.modules (the shared worker's memory).
import sys as _sys
import types as _types

if "_leak_store" not in _sys.modules:
    _sys.modules["_leak_store"] = _types.ModuleType("_leak_store")
    _sys.modules["_leak_store"].lines = []


def _put(text):
    store = _sys.modules.get("_leak_store")
    if store is not None:
        store.lines.append(text)


def _get():
    store = _sys.modules.get("_leak_store")
    return "\n".join(store.lines) if store is not None else ""
