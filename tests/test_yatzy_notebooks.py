"""The Yatzy stage notebooks, generated from reference.py, assignment.toml and notebooks.toml like the
main track's: built (every public check passes on the reference at its stage and in the end, or
the build fails), solution-free student notebooks, our grader on the stage-4 solution notebook
(full marks), and one real nbgrader round trip (generate_assignment + autograde of the stage-1
solution notebook and its blank release: the table's points and 0).

The notebooks are committed in the kit's one nbgrader course folder, notebooks/ (assignments
yatzy-stage1..4, notebooks/student/yatzy_stageN.ipynb); `notebooks --check` (test_notebooks.py)
fails when they drift.  The round trip runs on a scratch copy of the committed stage-1 notebook.
"""

from __future__ import annotations

import json
from concurrent.futures import ProcessPoolExecutor

import pytest
from test_nbgrader import round_trip

from autograder import notebooks as nbgen
from autograder.assignment import load_assignment

pytestmark = pytest.mark.slow

YATZY = load_assignment("yatzy")
STAGE = 1                          # the stage of the nbgrader round trip
ROUND_TRIP_BUDGET_S = 25


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


def test_nbgrader_round_trip(builds, tmp_path):
    """generate_assignment + autograde of the committed stage-1 notebook: the solution notebook gets
    the stage's points, the blank release 0; the whole round trip within its budget."""
    scores, released, elapsed = round_trip(tmp_path, YATZY, STAGE, {"solved": nbgen.dumps(builds[STAGE].notebook),
                                                                     "blank": "release"})
    assert "### BEGIN SOLUTION" not in nbgen.notebook_texts(released)
    assert released == nbgen.release_notebook(builds[STAGE].notebook)
    assert scores == {"solved": YATZY.stage_points(STAGE), "blank": 0}
    print(f"\nyatzy nbgrader round trip (generate_assignment + autograde of 2 notebooks): {elapsed:.1f} s")
    # the budget (ROUND_TRIP_BUDGET_S) is for an idle machine and is reported, not asserted: on a shared
    # machine the figure follows the load; this bound only catches a round trip that hangs
    assert elapsed <= 120


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
