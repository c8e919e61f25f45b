"""The CS21 stage notebooks, generated from reference.py, assignment.toml and notebooks.toml by the
kit's generic generator: no leak into the student notebooks, the kit's grader gives each stage's
solution notebook its stages' points.

The notebooks are committed in the kit's one nbgrader course folder, notebooks/ (assignments
cs21-stage1..4, notebooks/student/cs21_stageN.ipynb); `notebooks --check` (test_notebooks.py)
fails when they drift.  Its nbgrader round trip (stage 3) is in tests/test_notebooks_nbgrader.py.
"""

from __future__ import annotations

import pytest

from autograder import notebooks as nbgen
from autograder.assignment import load_assignment

CS21 = load_assignment("cs21")


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
