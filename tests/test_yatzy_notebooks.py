"""The Yatzy stage notebooks, generated from reference.py, assignment.toml and notebooks.toml like the
main track's: built (every public check passes on the reference at its stage and in the end, or
the build fails), solution-free student notebooks, our grader on the stage-4 solution notebook
(full marks); its nbgrader round trip (stage 1) is in tests/test_notebooks_nbgrader.py, one session
for every course besides the main track.

The notebooks are committed in the kit's one nbgrader course folder, notebooks/ (assignments
yatzy-stage1..4, notebooks/student/yatzy_stageN.ipynb); `notebooks --check` (test_notebooks.py)
fails when they drift.
"""

from __future__ import annotations

import json
from concurrent.futures import ProcessPoolExecutor

import pytest

from autograder import notebooks as nbgen
from autograder.assignment import load_assignment

pytestmark = pytest.mark.slow

YATZY = load_assignment("yatzy")


@pytest.fixture(scope="module")
def builds():
    return {build.stage: build for build in nbgen.build_all(YATZY)}


def test_every_stage_has_a_notebook_with_a_graded_cell_per_problem(builds):
    assert sorted(builds) == [s.number for s in YATZY.stages]
    for stage, build in builds.items():
        graded = {cell["metadata"]["nbgrader"]["grade_id"]: cell["metadata"]["nbgrader"]["points"]
                  for cell in build.notebook["cells"] if cell["metadata"].get("nbgrader", {}).get("grade")}
        assert graded == {nbgen.test_id(p): p.points for p in YATZY.stage_problems(stage)}


def test_student_notebooks_hold_no_solution(builds):
    files = [(nbgen.student_path(YATZY, stage), nbgen.dumps(nbgen.student_notebook(build, YATZY)))
             for stage, build in builds.items()]
    assert nbgen.student_leaks(YATZY, files) == []


def _grade(path: str) -> dict:
    from autograder.grading.grade import grade
    return grade(path, "yatzy").to_dict()


def test_the_stage4_solution_notebook_gets_full_marks(builds, tmp_path):
    """The last stage's notebook holds every function (earlier stages given, stage 4 answered):
    our grader gives it the whole 100, as it would a .py file."""
    path = tmp_path / "yatzy_stage4.ipynb"
    path.write_text(nbgen.dumps(builds[4].notebook), encoding="utf-8")
    with ProcessPoolExecutor(1) as pool:
        report = pool.submit(_grade, str(path)).result()
    assert not report["error"], report["error"]
    assert report["score"] == YATZY.total_points, [(t["name"], t["output"]) for t in report["tests"]
                                                   if t["score"] < t["max_score"]]


def test_a_notebook_keeps_its_namedtuple_types():
    """`Player = namedtuple(...)` in a cell is a definition the module needs (the seed's player is a
    namedtuple), kept like a constant when the grader reads a notebook; other calls are not."""
    from autograder.engine.submission import notebook_source
    cells = ["from collections import namedtuple\nimport collections",
             "Player = namedtuple('Player', ['name', 'pad', 'dice'])\nPad = collections.namedtuple('Pad', 'a b')",
             "def new_player(name):\n    return Player(name, {}, [])",
             "game = play_game()"]
    notebook = {"cells": [{"cell_type": "code", "source": c, "metadata": {}, "outputs": []} for c in cells],
                "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    source, notes = notebook_source(json.dumps(notebook))
    assert "Player = namedtuple(" in source and "Pad = collections.namedtuple(" in source
    assert "play_game()" not in source and any("play_game" in note for note in notes)
