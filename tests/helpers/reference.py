"""The reference solution loaded in the test process, for the tests that pin its rules."""

from __future__ import annotations

from pathlib import Path

from helpers.programs import load

ROOT = Path(__file__).resolve().parent.parent.parent
SOLUTION = ROOT / "solution" / "yahtzee.py"


Y = load(SOLUTION, "yahtzee_reference_under_test")


def card(**boxes):
    """A scorecard with BOXES filled; names use underscores for spaces (Full_House=25)."""
    scorecard = Y.new_scorecard()
    for name, points in boxes.items():
        key = name.replace("_", " ")
        assert key in scorecard, key
        scorecard[key] = points
    return scorecard

