"""Running the kit's CLI from a test: the environment, the subreaper wrapper, a folder to hide."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

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
