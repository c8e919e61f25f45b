"""Helpers shared by the Yahtzee stage suites: scenario data, points and problem lookup."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from autograder.assignment import load_assignment

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ASSIGNMENT = load_assignment("yahtzee")
SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"


def scenarios(name: str) -> dict:
    """Load scenarios/NAME.toml (inputs only: expected values come from the reference)."""
    return tomllib.loads((SCENARIOS / f"{name}.toml").read_text(encoding="utf-8"))


def problem_of(function: str, stage: int | None = None) -> int:
    for problem in ASSIGNMENT.problems:
        if function in problem.functions and (stage is None or problem.stage == stage):
            return problem.number
    raise KeyError(f"no problem lists {function}")


def params(cases: list[dict], problem_key, id_key=lambda case: case["why"]) -> list:
    """pytest.params for CASES, splitting each problem's points evenly over its cases."""
    counts: dict[int, int] = {}
    for case in cases:
        counts[problem_key(case)] = counts.get(problem_key(case), 0) + 1
    out = []
    for case in cases:
        problem = problem_key(case)
        points = round(ASSIGNMENT.problem(problem).points / counts[problem], 4)
        marks = [pytest.mark.problem(problem), pytest.mark.points(points)]
        if not case.get("public"):
            marks.append(pytest.mark.visibility("hidden"))
        out.append(pytest.param(case, marks=marks, id=id_key(case)))
    return out
