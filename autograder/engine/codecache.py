"""Grader-side code compiled once per machine, not once per process (and the seccomp filter).

A cold `python -m autograder grade` compiled the sandbox harness (~120,000 characters: 25-45 ms,
on the main thread before its first sandbox could start) and the reference and each stage's
reference-without (~8 ms); every process of the same kit compiles the very same text.  Here the
marshalled code object is kept in the cache folder ($AUTOGRADER_CACHE_DIR, as refcache.py's),
under a hash of the text, its file name and this interpreter's version and bytecode magic: a
changed harness or reference is a new entry, never a stale one.  The sandbox's seccomp filter is
kept the same way (stored): building it imports pyseccomp, which looks for libseccomp with
ldconfig (~16 ms of the first sandbox's start); its key names the rules and the architecture,
and a filter is kept only when libseccomp knew every rule (so a newer one could add nothing).

A course's scenario tables (its scenarios/*.toml: ~0.4-3 ms each with tomllib, half a dozen
parsed by a grading session's suites, in grade-all's fork server's boot) are kept the same way,
parsed (parsed).

An assignment's public checks (the code check.py, the notebooks and `grade --public` run, made by
building every stage's notebook: ~1 s) and its count of hidden checks (a pytest collection) are
kept with `stored`, under a hash of every file they are made from (Assignment.made_from_key).

Only the grader's own code and data are ever cached (the harness, the reference, the tables, the
public checks: never a student's).  The
template executes the harness as root before any sandbox drops its privileges, so an entry is
read only when it is a regular file owned by this process's user and writable by nobody else
(whoever can write such a file could as well write the package itself); any other file, or one
that does not unmarshal to a code object, is ignored and compiled afresh.  No cache folder, a
read-only one, a full disk: compiled in memory as before.
"""

from __future__ import annotations

import hashlib
import importlib.util
import marshal
import os
import stat
import sys
import tempfile
import types
from collections.abc import Callable
from pathlib import Path

FORMAT = 1
MAX_BYTES = 16 << 20


def compiled(text: str, filename: str) -> bytes:
    """marshal.dumps(compile(TEXT, FILENAME, "exec", dont_inherit=True)), from the cache when an
    entry is there (SyntaxError and the like propagate, as from compile)."""
    folder = _folder()
    path = folder / f"code-{_key(text, filename)}.marshal" if folder is not None else None
    data = _read(path, _is_code) if path is not None else None
    if data is not None:
        return data
    data = marshal.dumps(compile(text, filename, "exec", dont_inherit=True))
    if path is not None:
        _write(path, data)
    return data


def stored(kind: str, key: str, build: Callable[[], tuple[bytes | None, bool]],
           valid: Callable[[bytes], bool]) -> bytes | None:
    """What BUILD() gives for KEY (text naming every input of the build), kept like compiled code:
    the entry when there is one of ours that VALID accepts, else BUILD()'s bytes, kept when it
    says they may be (a build that depended on something KEY does not name is not kept)."""
    folder = _folder()
    digest = hashlib.sha256(f"codecache {FORMAT}\0{kind}\0{key}".encode()).hexdigest()[:40]
    path = folder / f"{kind}-{digest}.bin" if folder is not None else None
    data = _read(path, valid) if path is not None else None
    if data is not None:
        return data
    data, keep = build()
    if data is not None and keep and valid(data) and path is not None:
        _write(path, data)
    return data


def parsed(kind: str, text: str, parse: Callable[[str], dict]) -> dict:
    """PARSE(TEXT) (a dict of plain data: a course's own TOML scenario tables), kept marshalled
    like compiled code under a hash of KIND, TEXT and this interpreter's version (marshal's
    format), read back only from an entry of ours: a changed text is a new entry.  Kept only when
    it round-trips as itself (not a TOML date or time, which marshal cannot hold, nor a NaN);
    errors of PARSE propagate and nothing is kept."""
    folder = _folder()
    digest = hashlib.sha256(f"codecache {FORMAT}\0{kind}\0{sys.version}\0".encode())
    digest.update(text.encode("utf-8", "surrogatepass"))
    path = folder / f"{kind}-{digest.hexdigest()[:40]}.marshal" if folder is not None else None
    data = _read(path, _is_dict) if path is not None else None
    if data is not None:
        return marshal.loads(data)
    value = parse(text)
    if path is not None:
        try:
            data = marshal.dumps(value)
        except ValueError:
            return value
        if marshal.loads(data) == value:
            _write(path, data)
    return value


def _is_dict(data: bytes) -> bool:
    try:
        return type(marshal.loads(data)) is dict
    except (ValueError, EOFError, TypeError):
        return False


def _key(text: str, filename: str) -> str:
    digest = hashlib.sha256(f"codecache {FORMAT}\0{sys.version}\0{sys.implementation.cache_tag}\0".encode())
    digest.update(importlib.util.MAGIC_NUMBER)
    digest.update(f"\0{filename}\0".encode())
    digest.update(text.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()[:40]


CACHE_ENV = "AUTOGRADER_CACHE_DIR"


def cache_dir() -> Path:
    """The kit's cache folder (this module's entries and refcache's files; here, not in refcache,
    which imports the sandbox: grade-all's parent boots templates without importing the engine)."""
    override = os.environ.get(CACHE_ENV)
    if override:
        return Path(override)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "autograder"


def _folder() -> Path | None:
    try:
        return cache_dir()
    except (RuntimeError, KeyError, OSError):    # no home folder to find
        return None


def _read(path: Path, valid: Callable[[bytes], bool]) -> bytes | None:
    """The entry at PATH when it is ours alone and VALID, else None."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if (not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid()
                or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH) or info.st_size > MAX_BYTES):
            return None
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(MAX_BYTES + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    return data if len(data) <= MAX_BYTES and valid(data) else None


def _is_code(data: bytes) -> bool:
    try:
        return isinstance(marshal.loads(data), types.CodeType)
    except (ValueError, EOFError, TypeError):
        return False


def _write(path: Path, data: bytes) -> None:
    """Write the entry atomically, readable and writable by this user only; never fails."""
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, tmp = tempfile.mkstemp(dir=path.parent, prefix=".code-", suffix=".tmp")  # mode 0600
        with os.fdopen(handle, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
        tmp = None
    except OSError:
        pass
    finally:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
