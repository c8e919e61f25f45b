"""The folders a student's sandboxes must not see (the kit, the submission's own folder): what a
grading session hides (grade.py), and what grade-all's parent hides in the root templates it has
built for its workers' first students (workers.WorkerPool.prepare_roots), without grade's imports."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from ..assignment import PACKAGE_DIR, REPO_ROOT, in_repository


def hidden_paths(extra: list[str] | None = None) -> list[str]:
    """Folders the student's process must not see: the kit itself (tests, solution, suites; when
    installed, the package: its parent is site-packages, which the sandbox does not need either)."""
    return [str(REPO_ROOT if in_repository() else PACKAGE_DIR)] + list(extra or [])


def submission_home(path: str | Path) -> list[str]:
    """The folder a submission sits in (a class folder, an LMS download), hidden from its own
    sandbox too: the student's code arrives through a pipe, so the sandbox never needs it, and
    classmates' files next to it must not be readable.  Not "/" and not a folder holding Python."""
    # (as Path(path).resolve().parent, and the folder an ancestor of the prefix or the prefix itself,
    # by strings: ~0.1 ms of Path objects a submission otherwise)
    folder = os.path.dirname(os.path.realpath(path))
    prefix = os.path.realpath(sys.base_prefix)
    if folder == "/" or folder == prefix or prefix.startswith(folder + "/"):
        return []
    return [folder]
