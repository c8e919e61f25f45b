"""The reference's outcomes and the request plan, computed once per grader version.

A file per version: the key is a hash of everything the outcomes depend on (the reference, the
scenario files, the suites, the engine code that runs them, the limits), so a changed suite or
reference simply misses the cache.  It holds:

* "reference": every request the suites made of the reference while grading the reference
  itself, with its Outcome: a grade reads expected values from here instead of running them;
* "plan": per check id, the requests that check made of a correct program: a student's
  Program runs them ahead in one round trip (see program.py).

Looked up first in the assignment's own folder (`refcache/`, shipped in the Gradescope bundle),
then in $AUTOGRADER_CACHE_DIR (default ~/.cache/autograder).  Only the grader writes these
files, never student code (its sandbox cannot see them); whoever can write them can change
expected values, exactly like whoever can write the suites.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from . import typed
from .codecache import CACHE_ENV, cache_dir  # noqa: F401 -- (there: codecache imports nothing of the engine)
from .sandbox import Limits, Outcome, Request

FORMAT = 3      # 2: the plan has its PUBLIC entry (ahead.py), recorded by a Program that can substitute;
#                3: a core stage's substitution keeps an optional stage's functions (assignment.py,
#                which the fingerprint does not read: the plan's requests carry it)
ENGINE = Path(__file__).resolve().parent

BUNDLED = "refcache"


def fingerprint(reference: Path, data_dirs: list[Path], limits: Limits) -> str:
    """sha256 of the reference, every file under DATA_DIRS (suites, scenarios), the engine, LIMITS."""
    digest = hashlib.sha256(f"refcache {FORMAT}\n".encode())

    def add(path: Path, name: str) -> None:
        digest.update(f"{name}\0{path.stat().st_size}\0".encode())
        digest.update(path.read_bytes())

    add(reference, "reference")
    for folder in data_dirs:
        if folder.is_dir():
            for path in sorted(folder.rglob("*")):
                if path.is_file() and path.suffix in (".py", ".toml", ".json") and "__pycache__" not in path.parts:
                    add(path, f"{folder.name}/{path.relative_to(folder).as_posix()}")
    for path in sorted(ENGINE.rglob("*.py")):     # every engine file: a split or a new one counts too
        if "__pycache__" not in path.parts:
            add(path, f"engine/{path.relative_to(ENGINE).as_posix()}")
    digest.update(json.dumps(dataclasses.asdict(limits), sort_keys=True).encode())
    return digest.hexdigest()[:32]


def file_name(assignment: str, key: str) -> str:
    return f"{assignment}-{key}.json"


def find(assignment_dir: Path, assignment: str, key: str) -> Path | None:
    for folder in (assignment_dir / BUNDLED, cache_dir()):
        path = folder / file_name(assignment, key)
        if path.is_file():
            return path
    return None


def load(path: Path) -> tuple[dict[str, Outcome], dict[str, list[Request]]] | None:
    """(reference outcomes by request key, plan by check id); None for a file that does not read.

    A file this process read already, unchanged since (_LOADED), is not parsed again (~5.5 ms, a
    warm single grade's session: a process grading one file at a time, a notebook's kernel, the
    kit's tests): its objects are given again, as a stream gives them to each of its submissions
    (nothing changes an Outcome or a Request of the reference cache), in dicts of their own; the
    plan's memos kept by identity (keys.plan_key, protocol.planned_line) then hit as in a stream."""
    try:
        with open(path, "rb") as f:
            found = os.fstat(f.fileno())
            stamp = (found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns)
            kept = _LOADED.get(str(path))
            if kept is not None and kept[0] == stamp:
                return dict(kept[1]), dict(kept[2])
            raw = f.read()
        data = json.loads(raw.decode("utf-8"))
        if data.get("format") != FORMAT:
            return None
        outcomes = {key: _outcome(value) for key, value in data["reference"].items()}
        plan = {item: [_request(r) for r in requests] for item, requests in data["plan"].items()}
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None
    # Kept only once its stamps are older than any clock tick: a same-size rewrite of the file after
    # this read then changes its ctime (git's racy-clean rule), so it is never mistaken for this one.
    if time.time_ns() - max(found.st_mtime_ns, found.st_ctime_ns) > _SETTLED_NS:
        if len(_LOADED) >= _LOADED_MAX:
            _LOADED.clear()
        _LOADED[str(path)] = (stamp, outcomes, plan)
    return dict(outcomes), dict(plan)


# path -> (the file's stamp when read: device, inode, size, mtime, ctime; its outcomes; its plan)
_LOADED: dict[str, tuple[tuple, dict, dict]] = {}
_LOADED_MAX = 8
_SETTLED_NS = 2_000_000_000


def save(folder: Path, assignment: str, key: str, outcomes: dict[str, Outcome],
         plan: dict[str, list[Request]]) -> Path:
    """Write the cache file atomically (two graders computing it at once both write the same data)."""
    folder.mkdir(parents=True, exist_ok=True)
    data = {"format": FORMAT, "assignment": assignment, "key": key,
            "reference": {k: _plain(v) for k, v in sorted(outcomes.items())},
            "plan": {item: [_request_data(r) for r in requests] for item, requests in plan.items()}}
    path = folder / file_name(assignment, key)
    handle, tmp = tempfile.mkstemp(dir=folder, prefix=".refcache-", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as f:
            json.dump(data, f, separators=(",", ":"))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


_FIELDS = {f.name for f in dataclasses.fields(Outcome)} - {"worker", "wait"}
_TYPED_FIELDS = ("args", "kwargs", "instance")      # a typed request's tuples and sets (engine/typed.py)


def _request_data(request: Request) -> dict[str, Any]:
    data = dict(request.__dict__)
    if request.typed:
        data.update({name: typed.encode(data[name]) for name in _TYPED_FIELDS})
    return data


def _request(data: dict[str, Any]) -> Request:
    request = Request(**data)
    if request.typed:
        for name in _TYPED_FIELDS:
            setattr(request, name, typed.decode(getattr(request, name)))
    return request


def _plain(outcome: Outcome) -> dict[str, Any]:
    return {name: getattr(outcome, name) for name in sorted(_FIELDS)}


def _outcome(data: dict[str, Any]) -> Outcome:
    return Outcome(**{k: v for k, v in data.items() if k in _FIELDS})
