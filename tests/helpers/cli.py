"""Running the kit's CLI from a test: the environment, the subreaper wrapper, a folder to hide."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent.parent
# Runs a command as the leader of a new session while staying outside that group as a child
# subreaper: whatever outlives the command is re-parented to it and reported, then killed.
SUBREAPER = REPO / "tests" / "subreaper.py"


def cli_env(limits: str, extra: dict[str, str] | None = None) -> dict[str, str]:
    """This process's environment for `python -m autograder`: the kit importable, LIMITS
    (AUTOGRADER_LIMITS, honoured by every Program the command makes) and EXTRA."""
    env = dict(os.environ, PYTHONPATH=str(REPO), AUTOGRADER_LIMITS=limits)
    env.update(extra or {})
    return env


def run_cli(args: list[str], cwd: Path, env: dict[str, str] | None = None,
            timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "autograder", *args], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=timeout)


def readable_spot() -> Path | None:
    """A world-readable folder, writable by us, outside /tmp and the kit (every sandbox has a
    private /tmp): where an instructor might keep a class."""
    for top in ("/srv", "/mnt", "/opt", "/var/lib"):
        path = Path(top)
        if path.is_dir() and os.access(path, os.W_OK) and all(
                os.stat(p).st_mode & 0o005 == 0o005 for p in [path, *path.parents]):
            return path
    return None


@contextlib.contextmanager
def class_beside_a_readable_folder(prefix: str) -> Iterator[tuple[Path, Path]]:
    """(OTHER, CLASS): two world-readable folders in a readable_spot(), OTHER holding note.txt and
    CLASS a classmate's alice.py (the reference), every file readable by anyone on disk: what a
    sandbox must not see (skipped where mount namespaces cannot hide folders).  Removed afterwards."""
    from autograder.engine.sandbox import isolation

    if not isolation()["namespaces"]:
        pytest.skip("only mount namespaces can hide folders (run as root)")
    spot = readable_spot()
    if spot is None:
        pytest.skip("no world-readable folder outside /tmp to put a class in")
    root = Path(tempfile.mkdtemp(prefix=prefix, dir=spot))
    try:
        os.chmod(root, 0o755)
        other, klass = root / "other", root / "class"
        for folder in (other, klass):
            folder.mkdir(mode=0o755)
        (other / "note.txt").write_text("readable: proves the sandbox could read here\n")
        shutil.copy(REPO / "solution" / "yahtzee.py", klass / "alice.py")
        for path in (other / "note.txt", klass / "alice.py"):
            path.chmod(0o644)
        yield other, klass
    finally:
        shutil.rmtree(root, ignore_errors=True)


def peek_source(paths: list[Path]) -> str:
    """Code appended to the reference: its format_dice returns "PEEK " and, for each of PATHS,
    what it could see there (a folder's listing, a file's length) or the error's name."""
    return f'''

import os


def format_dice(dice):
    found = []
    for path in {[str(p) for p in paths]!r}:
        try:
            found.append(str(sorted(os.listdir(path)) if os.path.isdir(path) else len(open(path).read())))
        except OSError as err:
            found.append(type(err).__name__)
    return "PEEK " + "; ".join(found)
'''
