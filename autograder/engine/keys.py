"""The keys of requests: what identifies a request's run (the reference's cache, a plan, the outcomes
run ahead, a trial's timing), made once per distinct content or per plan Request object."""

from __future__ import annotations

from collections.abc import Callable

from . import typed
from .protocol import by_identity, by_marshal, json_encoder
from .sandbox import Request

_KEY = json_encoder(sort_keys=True, default=str)     # made once (json.dumps makes one a call)


def wire_form(request: Request) -> dict:
    """REQUEST's fields as its keys encode them: typed values (a typed request's args, kwargs and
    instance) in their wire form, so a tuple and a list are two requests and a set is data, not
    its str().  The one source of both keys below: a request's and its timing's."""
    data = request.__dict__
    if request.typed:
        data = dict(data, **{name: typed.encode(data[name]) for name in ("args", "kwargs", "instance")})
    return data


def request_key(request: Request) -> str:
    """What identifies REQUEST's run: the reference's cache, the plan, the outcomes run ahead."""
    return by_content(_REQUEST_KEYS, request, lambda: _KEY(wire_form(request)))


_REQUEST_KEYS: dict[bytes, str] = {}


def by_content(table: dict[bytes, str], request: Request, compute: Callable[[], str]) -> str:
    """COMPUTE() (a key of REQUEST: JSON text, ~5 us for a game's request), once per distinct
    content of REQUEST's fields in a process: the checks ask every student the same requests.
    The content is marshal's bytes of the fields (version 2: no back-references, so equal fields
    of equal types give equal bytes; equal bytes are equal fields of equal types, which the JSON
    key tells apart no more finely): their values when the fields are a Request's own, in their
    order, else the (name, value) pairs.  Fields marshal does not know are not memoized."""
    fields = request.__dict__
    # (a Request's fields in their usual order: their values alone, half the bytes to write)
    content = tuple(fields.values()) if tuple(fields) == _FIELDS else tuple(fields.items())
    return by_marshal(table, content, compute, _CONTENT_MAX)


_CONTENT_MAX = 1 << 13
_FIELDS = tuple(Request.__dataclass_fields__)   # (a tuple of values and one of (name, value) pairs
#                                               never have the same bytes: marshal writes types)


_PLAN_KEYS: dict[int, tuple[Request, str]] = {}
_PLAN_KEYS_MAX = 1 << 14


def plan_key(request: Request) -> str:
    """request_key of a plan's REQUEST, once per Request object: a worker sends the same plan
    (the same objects) ahead for every student.  (Keyed by identity and kept alive with the entry,
    so an id is never reused; nothing changes a plan's Request.)"""
    return by_identity(_PLAN_KEYS, request, lambda: request_key(request), _PLAN_KEYS_MAX)
