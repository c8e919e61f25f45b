"""The reference solution loaded in the test process, for the tests that pin its rules."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent.parent
SOLUTION = ROOT / "solution" / "yahtzee.py"


def load(path: Path, name: str) -> ModuleType:
    """The Python file PATH imported as a fresh module called NAME (not put in sys.modules)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


Y = load(SOLUTION, "yahtzee_reference_under_test")


def card(**boxes):
    """A scorecard with BOXES filled; names use underscores for spaces (Full_House=25)."""
    scorecard = Y.new_scorecard()
    for name, points in boxes.items():
        key = name.replace("_", " ")
        assert key in scorecard, key
        scorecard[key] = points
    return scorecard

