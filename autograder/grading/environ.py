"""os.environ changed for a while and put back as it was: a grading session's pytest variables
(grade.pytest_env, a prepared session), the fork server's start (workers)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator


@contextlib.contextmanager
def scoped(values: dict[str, str], unset: Iterable[str] = ()) -> Iterator[None]:
    """os.environ with VALUES set and the names UNSET removed; every one of them as it was after."""
    unset = tuple(unset)
    saved = {name: os.environ.get(name) for name in (*values, *unset)}
    os.environ.update(values)
    for name in unset:
        os.environ.pop(name, None)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
