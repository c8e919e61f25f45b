"""The main course's generated notebooks, as tests read and write them (tests/test_notebooks*.py)."""

from __future__ import annotations

import json
from pathlib import Path

from autograder import notebooks as nbgen
from autograder.assignment import load_assignment

ASSIGNMENT = load_assignment("yahtzee")


def source_nb(stage: int) -> dict:
    """The committed nbgrader source notebook of STAGE."""
    return json.loads(nbgen.notebook_path(ASSIGNMENT, stage).read_text(encoding="utf-8"))


def write_nb(path: Path, nb: dict) -> Path:
    path.write_text(json.dumps(nb, indent=1), encoding="utf-8")
    return path
