"""The CS21 stage notebooks, generated from reference.py, assignment.toml and notebooks.toml by the
kit's generic generator: no leak into the student notebooks, the kit's grader gives each stage's
solution notebook its stages' points, and one real nbgrader round trip (generate_assignment and
autograde of stage 3: the solution notebook gets the stage's points, the blank release 0).

The notebooks are committed in the kit's one nbgrader course folder, notebooks/ (assignments
cs21-stage1..4, notebooks/student/cs21_stageN.ipynb); `notebooks --check` (test_notebooks.py)
fails when they drift.  The round trip runs on a scratch copy of the committed stage-3 notebook.
"""

from __future__ import annotations

import pytest

from autograder import notebooks as nbgen
from autograder.assignment import load_assignment

CS21 = load_assignment("cs21")
STAGE = 3                                   # the stage of the nbgrader round trip
ROUND_TRIP_BUDGET_S = 90                    # ~10 s on an idle machine; a backstop, not a benchmark


@pytest.fixture(scope="module")
def builds():
    return {build.stage: build for build in nbgen.build_all(CS21)}


def test_every_stage_has_a_notebook_and_no_leak(builds):
    assert sorted(builds) == [s.number for s in CS21.stages]
    files = [(nbgen.student_path(CS21, stage), nbgen.dumps(nbgen.student_notebook(build, CS21)))
             for stage, build in builds.items()]
    assert nbgen.student_leaks(CS21, files) == []
    for stage, build in builds.items():
        ids = {cell["metadata"].get("nbgrader", {}).get("grade_id") for cell in build.notebook["cells"]}
        for problem in CS21.stage_problems(stage):
            assert nbgen.test_id(problem) in ids, (stage, problem.number)


def test_the_grader_gives_each_solution_notebook_its_stages(builds, tmp_path):
    """A stage-N solution notebook holds the reference of stages 1..N (earlier ones given): the kit's
    grader gives it every point of those stages and none later."""
    from autograder.grading.grade import grade

    for stage, build in builds.items():
        path = tmp_path / f"stage{stage}" / "cs21.ipynb"
        path.parent.mkdir()
        path.write_text(nbgen.dumps(build.notebook), encoding="utf-8")
        report = grade(path, "cs21")
        got = {s.number: round(sum(t.score for t in report.tests if t.stage == s.number), 4) for s in CS21.stages}
        want = {s.number: CS21.stage_points(s.number) if s.number <= stage else 0 for s in CS21.stages}
        assert got == want, (stage, [(t.name, t.output) for t in report.tests
                                     if t.stage <= stage and t.score < t.max_score][:3])


@pytest.mark.slow
def test_nbgrader_round_trip(builds, tmp_path):
    from tests.test_nbgrader import round_trip

    scores, released, elapsed = round_trip(tmp_path, CS21, STAGE, {"solution": nbgen.dumps(builds[STAGE].notebook),
                                                                    "blank": "release"})
    assert released == nbgen.release_notebook(builds[STAGE].notebook)
    assert scores == {"solution": CS21.stage_points(STAGE), "blank": 0}
    print(f"\nnbgrader generate_assignment + autograde of 2 cs21 notebooks: {elapsed:.1f} s")
    assert elapsed < ROUND_TRIP_BUDGET_S, f"the round trip took {elapsed:.1f} s"
