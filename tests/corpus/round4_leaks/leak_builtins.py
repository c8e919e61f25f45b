# The store: a list kept in the builtins module (the shared worker's memory outlives a call).
import builtins as _store_home

_store_home.__dict__.setdefault("_leak_store", [])


def _put(text):
    _store_home.__dict__.setdefault("_leak_store", []).append(text)


def _get():
    return "\n".join(_store_home.__dict__.get("_leak_store", []))
