"""Every course's reference, handed in as a notebook of one cell per top-level statement, scores
what the reference scores: whatever a course's own reference writes at the top level (constants
unpacked from a list, objects built from its own classes) the notebook loader keeps."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from autograder.assignment import load_assignment
from autograder.engine.submission import notebook_source
from autograder.grading.grade import grade

COURSES = ["yahtzee", "pytzee", "yatzy", "cs21", "swe3006"]


def _as_notebook(source: str) -> str:
    """One code cell per top-level statement (decorators with their definition), in file order."""
    lines = source.splitlines(keepends=True)
    cells = []
    for node in ast.parse(source).body:
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        cells.append("".join(lines[first - 1:node.end_lineno]))
    return json.dumps({"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "source": c}
                                 for c in cells], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


@pytest.mark.parametrize("course", COURSES)
def test_the_reference_as_a_notebook_scores_full_marks(tmp_path: Path, course: str):
    assignment = load_assignment(course)
    path = tmp_path / f"{assignment.student_file.rsplit('.', 1)[0]}.ipynb"
    path.write_text(_as_notebook(assignment.reference.read_text(encoding="utf-8")), encoding="utf-8")
    report = grade(path, assignment)
    failed = [(t.name, t.status) for t in report.tests if t.status != "passed"]
    assert not report.error and report.score == report.max_score > 0, (report.score, failed[:5], report.notes)


def test_unpacked_constants_are_kept_and_attribute_targets_are_not():
    text = json.dumps({"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "source": c} for c in (
        "KINDS = ['Three', 'Four', 'Chance']\nTHREE, FOUR, CHANCE = KINDS\nFIRST, *REST = KINDS\n"
        "[LOW, HIGH] = (1, 6)\n",
        "class Box:\n    pass\n",
        "BOX, COUNT = Box(), len(KINDS)\n",
        "BOX.size, other = 3, 4\n",
        "def score():\n    return THREE, REST, LOW + HIGH, COUNT\n")],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    source, notes = notebook_source(text)
    namespace: dict = {}
    exec(compile(source, "<notebook>", "exec"), namespace)
    assert namespace["score"]() == ("Three", ["Four", "Chance"], 7, 3)
    assert isinstance(namespace["BOX"], namespace["Box"]) and "other" not in namespace
    assert any("`BOX.size, other = 3, 4`" in n for n in notes), notes
