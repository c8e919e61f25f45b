"""Read what a student supplied without ever following a link they made (grader side).

A submission (a file, a folder, a zip's contents, a class folder entry, a cloned repository) is
student data: a symbolic link in it could point at the reference solution or a classmate's file,
and a FIFO or device could hang the grader.  Everything below the point where the student's own
data starts is examined with lstat and opened with O_NOFOLLOW | O_NONBLOCK, and only regular
files are read.  The folder the instructor names (a class folder, /autograder/submission) is
trusted to be what it says; its entries are not.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from .escape import name as shown

MAX_FILE_BYTES = 4 << 20          # a source file or notebook larger than this is not a homework file


class UnsafeFile(OSError):
    """A student-supplied path that the grader refuses to read; str() is one plain sentence."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unsafe file"


def refusal(path: Path, st: os.stat_result) -> str | None:
    """Why PATH (lstat result ST) must not be read, or None for a regular file or folder."""
    if stat.S_ISLNK(st.st_mode):
        return (f"{shown(path.name)} is a symbolic link; the grader never follows links "
                "(submit the file itself, not a link to it)")
    if not (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode)):
        return f"{shown(path.name)} is not a regular file (a FIFO, socket or device); submit the file itself"
    return None


def check(path: str | Path) -> os.stat_result:
    """lstat PATH; raise UnsafeFile when it is a link or a special file."""
    path = Path(path)
    st = os.lstat(path)
    why = refusal(path, st)
    if why:
        raise UnsafeFile(why)
    return st


def is_link(path: str | Path) -> bool:
    try:
        return stat.S_ISLNK(os.lstat(path).st_mode)
    except OSError:
        return False


def read_bytes(path: str | Path, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of the regular file PATH (never through a link), at most LIMIT of them."""
    path = Path(path)
    check(path)                       # never even open a device or FIFO (opening can have effects)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise UnsafeFile(refusal(path, os.lstat(path)) or f"{shown(path.name)} is a symbolic link") from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise UnsafeFile(refusal(path, st) or f"{shown(path.name)} is not a regular file")
        if st.st_size > limit:
            raise UnsafeFile(f"{shown(path.name)} is {st.st_size} bytes, more than the {limit} a submission file may have")
        chunks, total = [], 0
        while total <= limit:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > limit:
            raise UnsafeFile(f"{shown(path.name)} is more than the {limit} bytes a submission file may have")
        return b"".join(chunks)
    finally:
        os.close(fd)


def walk(folder: str | Path, limit: int = 10_000) -> tuple[list[Path], list[Path]]:
    """(regular files, refused entries) below FOLDER, sorted, never descending through a link.

    Refused entries are links (to files or folders) and special files; at most LIMIT entries are looked at."""
    files: list[Path] = []
    refused: list[Path] = []
    stack = [Path(folder)]
    seen = 0
    while stack and seen < limit:
        current = stack.pop()
        try:
            entries = sorted(os.scandir(current), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            seen += 1
            path = Path(entry.path)
            if entry.is_symlink():
                refused.append(path)
            elif entry.is_dir(follow_symlinks=False):
                stack.append(path)
            elif entry.is_file(follow_symlinks=False):
                files.append(path)
            else:
                refused.append(path)
    return sorted(files), sorted(refused)
