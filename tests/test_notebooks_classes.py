"""A course whose student code is one class, cut into stage notebooks (swe3006's YahtzeeGame).

The generator's class cut (autograder/notebooks/classes.py) is driven by the reference's fences
and the table's stages: a locked given class `<Name>Base` (the constructor and the earlier
stages' methods) and one answer cell `class <Name>(<Name>Base)` with this stage's methods, each
problem's region a solution region.  Checked here: the cut itself for every stage, the student
track (stubs naming their problems, no leak), the kit's hidden grader on the committed notebooks
(`grade --assignment swe3006 swe3006_stage2.ipynb`: the stage's points; the release: 0 with no
error; the stage-4 notebook holds the whole game: 100) and the release bundle.  Its real nbgrader
round trip is in tests/test_notebooks_nbgrader.py (one session for every course but the main track).
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys

import pytest

from autograder import notebooks as nbgen
from autograder.assignment import REPO_ROOT, load_assignment
from autograder.notebooks.classes import BASE_SUFFIX
from autograder.notebooks.solution import read_solution

SWE = load_assignment("swe3006")
CLASS = "YahtzeeGame"
STAGE = 2                          # the stage of the grade CLI test (and of its nbgrader round trip)


@pytest.fixture(scope="module")
def builds():
    return {build.stage: build for build in nbgen.build_all(SWE)}


def _cell(nb: dict, grade_id: str) -> dict:
    return next(c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == grade_id)


def _methods(code: str) -> dict[str, list[str]]:
    """{class name: its methods} of a cell's code."""
    return {node.name: [m.name for m in node.body if isinstance(m, ast.FunctionDef)]
            for node in ast.parse(code).body if isinstance(node, ast.ClassDef)}


def test_each_stage_cuts_the_class_into_given_methods_and_this_stages_answers(builds):
    """Stage N: the locked base holds the constructor and every method of stages < N (as the reference,
    stage-N regions nested in them excepted); the answer cell holds exactly the methods with a region
    of stage N, and one graded, locked test cell per problem carries the table's points."""
    solution = read_solution(SWE.reference.read_text(encoding="utf-8"), SWE)
    stage_of = {f.name: f.stage for f in solution.functions}
    answered = {s.number: {n for p in SWE.stage_problems(s.number) for n in p.functions} for s in SWE.stages}
    for stage, build in builds.items():
        given = _cell(build.notebook, f"given_{CLASS}{BASE_SUFFIX}")
        answer = _cell(build.notebook, nbgen.class_answer_id(CLASS))
        assert given["metadata"]["nbgrader"]["locked"] and not given["metadata"]["nbgrader"]["solution"]
        assert answer["metadata"]["nbgrader"]["solution"] and not answer["metadata"]["nbgrader"]["grade"]
        base = _methods(nbgen.cell_source(given))[CLASS + BASE_SUFFIX]
        mine = _methods(nbgen.cell_source(answer))[CLASS]
        assert set(mine) == answered[stage], stage
        assert set(base) == {name for name, s in stage_of.items() if s <= stage} - answered[stage], stage
        assert nbgen.cell_source(answer).startswith(f"class {CLASS}({CLASS}{BASE_SUFFIX}):")
        graded = {c["metadata"]["nbgrader"]["grade_id"]: c["metadata"]["nbgrader"]["points"]
                  for c in build.notebook["cells"] if c["metadata"].get("nbgrader", {}).get("grade")}
        assert graded == {nbgen.test_id(p): p.points for p in SWE.stage_problems(stage)}
        shown = {line.strip() for line in nbgen.notebook_texts(build.notebook).splitlines()}
        if stage < len(builds):          # no line of a later stage's region (the two-player lines of stage 4)
            assert not nbgen.secret_lines(SWE, stage + 1) & shown, stage


def test_the_student_track_is_solution_free_and_each_stub_names_its_problem(builds):
    files = [(nbgen.student_path(SWE, stage), nbgen.dumps(nbgen.student_notebook(build, SWE)))
             for stage, build in builds.items()]
    assert nbgen.student_leaks(SWE, files) == []
    stage2 = json.loads(files[1][1])
    stubs = [line.strip() for line in nbgen.cell_source(_cell(stage2, nbgen.class_answer_id(CLASS))).splitlines()
             if "NotImplementedError(" in line]
    assert [stub.split("'")[1].split(":")[0] for stub in stubs] == \
        ["Problem 3", "Problem 5", "Problem 5", "Problem 6", "Problem 7"]
    assert all(stub.endswith(f"({name})')") for stub, name in
               zip(stubs, ["get_valid_input", "roll_dices", "rolling_phase", "print_score_table", "recording_phase"]))


def test_the_grader_grades_a_stage_notebook_like_the_py(tmp_path):
    """`grade --assignment swe3006 swe3006_stage2.ipynb`: the committed solution notebook gets the
    stage's points (its stage comes from its metadata; without --assignment it is refused with the
    option to use), its release 0 with no error, and the stage-4 notebook (every method: the earlier
    ones given by inheritance) the whole 100."""
    from autograder.grading.grade import grade

    path = nbgen.notebook_path(SWE, STAGE)
    result = subprocess.run([sys.executable, "-m", "autograder", "grade", "--assignment", "swe3006", str(path)],
                            capture_output=True, text=True, cwd=REPO_ROOT, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"Score: {SWE.stage_points(STAGE):g} / {SWE.stage_points(STAGE):g}" in result.stdout, result.stdout
    wrong = subprocess.run([sys.executable, "-m", "autograder", "grade", str(path)],     # the main track's
                           capture_output=True, text=True, cwd=REPO_ROOT, timeout=300)
    assert (wrong.returncode, wrong.stdout) == (2, "") and wrong.stderr.strip() == (
        f"error: {path.name} is a notebook of the swe3006 assignment, not yahtzee: grade it with --assignment swe3006")
    release = tmp_path / nbgen.notebook_name(SWE, STAGE)
    release.write_text(nbgen.dumps(nbgen.release_notebook(json.loads(path.read_text(encoding="utf-8")))),
                       encoding="utf-8")
    report = grade(release, "swe3006", stage=STAGE)
    assert not report.error and report.max_score == SWE.stage_points(STAGE)
    assert report.score == 0 and not [t for t in report.tests if t.status == "error"]
    whole = grade(nbgen.notebook_path(SWE, 4), "swe3006", stage="all")
    assert whole.score == whole.max_score == SWE.total_points, [
        (t.name, t.output) for t in whole.tests if t.score < t.max_score][:3]


def test_release_of_the_course_holds_its_stage_notebooks_without_a_leak():
    """`release --assignment swe3006 --stage 2`: the bundle's notebooks/ holds the release versions
    (nbgrader's stubbing) of stages 1 and 2 and nothing later, and passes the release leak check."""
    from autograder.authoring.release import bundle_files, leaks_of

    files, notes = bundle_files(SWE, STAGE)
    assert not [n for n in notes if "notebook" in n], notes          # the committed notebooks are current
    found = sorted(path for path in files if path.endswith(".ipynb"))
    assert found == [f"swe3006/notebooks/{nbgen.notebook_name(SWE, s)}" for s in (1, 2)]
    for stage in (1, 2):
        source = json.loads(nbgen.notebook_path(SWE, stage).read_text(encoding="utf-8"))
        assert json.loads(files[f"swe3006/notebooks/{nbgen.notebook_name(SWE, stage)}"]) == \
            nbgen.release_notebook(source)
    assert leaks_of(files, [SWE], STAGE) == []
