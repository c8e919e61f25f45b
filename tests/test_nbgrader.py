"""A real nbgrader round trip: the nbgrader CLI and real Jupyter kernels on a copy of the course.

generate_assignment on the four generated source notebooks -> the release notebooks are exactly
what autograder/notebooks/ makes (the `release` verb uses that) and hold no solution code and
no hidden-test data; autograde on the sample submissions of stage 1 (correct, wrong, an endless
loop, the blank release) -> the exact points of the problem table; generate_feedback and export
work.  One autograde run of four notebooks keeps it to about half a minute.
"""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autograder import notebooks as nbgen
from autograder.assignment import load_assignment

pytestmark = pytest.mark.slow       # about 30 s: select with -m slow, leave out with -m "not slow"

ASSIGNMENT = load_assignment("yahtzee")
CONTENT = nbgen.load_content(ASSIGNMENT)
STAGE = 1                                   # the stage the autograde round trip uses
TEST_TIMEOUT = 20                           # Execute.timeout in the copy: the course's own (it was 5 until
#                                             pass 23: the check cells' own CPU limit now stops the loop first)


def ensure_kernel() -> None:
    """A python3 kernel spec for this interpreter (installed into sys.prefix when missing)."""
    from jupyter_client.kernelspec import KernelSpecManager

    if "python3" not in KernelSpecManager().find_kernel_specs():
        subprocess.run([sys.executable, "-m", "ipykernel", "install", "--sys-prefix"], check=True,
                       capture_output=True, timeout=120)
    assert "python3" in KernelSpecManager().find_kernel_specs()


def nbgrader_cli(course: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    for name in ("JUPYTER_CONFIG_DIR", "JUPYTER_RUNTIME_DIR"):      # no user config leaks in
        env[name] = str(course.parent / name.lower())
    result = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course, env=env,
                            capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, f"nbgrader {' '.join(args)} failed:\n{result.stdout}\n{result.stderr}"
    return result


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    ensure_kernel()
    root = tmp_path_factory.mktemp("nbgrader") / "course"
    work = {"release", "submitted", "autograded", "feedback", "gradebook.db", "grades.csv"}

    def ignore(folder, names):                 # nbgrader's working files, if a local run left any
        top = Path(folder) == nbgen.COURSE_DIR
        return [n for n in names if (top and n in work) or n == ".ipynb_checkpoints"]

    shutil.copytree(nbgen.COURSE_DIR, root, ignore=ignore)
    with open(root / "nbgrader_config.py", "a", encoding="utf-8") as config:
        config.write(f"\n# test copy: a shorter cell timeout keeps the endless loop short\n"
                     f"c.Execute.timeout = {TEST_TIMEOUT}\n")
    return root


@pytest.fixture(scope="module")
def released(course):
    started = time.perf_counter()
    nbgrader_cli(course, "generate_assignment", "stage*")
    return time.perf_counter() - started


@pytest.fixture(scope="module")
def autograded(course, released):
    shutil.copytree(course / "samples" / "submitted", course / "submitted")
    started = time.perf_counter()
    result = nbgrader_cli(course, "autograde", f"stage{STAGE}")
    return time.perf_counter() - started, result


def test_course_config_sets_timeout_and_immediate_shutdown():
    from traitlets.config.loader import PyFileConfigLoader

    config = PyFileConfigLoader("nbgrader_config.py", path=str(nbgen.COURSE_DIR)).load_config()
    assert config.Execute.timeout == 20
    assert config.Execute.shutdown_kernel == "immediate"
    assert Path(config.CourseDirectory.root) == nbgen.COURSE_DIR


def test_generate_assignment_equals_our_stubbing(course, released):
    for stage in ASSIGNMENT.stages:
        ours = nbgen.dumps(nbgen.release_notebook(
            json.loads(nbgen.notebook_path(ASSIGNMENT, stage.number).read_text(encoding="utf-8"))))
        theirs = nbgen.notebook_path(ASSIGNMENT, stage.number, course / "release").read_text(encoding="utf-8")
        assert theirs == ours, f"stage {stage.number}: nbgrader's release differs from release_notebook()"


def test_release_notebooks_hold_no_solution_and_no_hidden_data(course, released):
    for stage in ASSIGNMENT.stages:
        nb = json.loads(nbgen.notebook_path(ASSIGNMENT, stage.number, course / "release").read_text(encoding="utf-8"))
        text = nbgen.notebook_texts(nb)
        assert nbgen.find_leaks({f"release/stage{stage.number}": text}, ASSIGNMENT, stage.number) == []
        assert "### BEGIN SOLUTION" not in text and "raise NotImplementedError()" in text
        assert not nbgen.secret_lines(ASSIGNMENT, stage.number) & {line.strip() for line in text.splitlines()}


def test_autograde_gives_the_points_of_the_table(course, autograded):
    from nbgrader.api import Gradebook

    elapsed, _ = autograded
    problems = ASSIGNMENT.stage_problems(STAGE)
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for student, spec in CONTENT["samples"].items():
            notebook = gradebook.find_submission_notebook(f"{ASSIGNMENT.name}_stage{STAGE}", f"stage{STAGE}", student)
            scores = {grade.name: grade.auto_score for grade in notebook.grades}
            failing = {p.number for p in problems} if spec.get("blank") else set(spec.get("fails", []))
            for problem in problems:
                expected = 0 if problem.number in failing else problem.points
                assert scores[nbgen.test_id(problem)] == expected, (student, problem.number)
            assert notebook.score == nbgen.expected_sample_points(ASSIGNMENT, CONTENT, student)
    assert nbgen.expected_sample_points(ASSIGNMENT, CONTENT, "correct") == 30
    assert nbgen.expected_sample_points(ASSIGNMENT, CONTENT, "wrong") == 30 - 5 - 6
    assert nbgen.expected_sample_points(ASSIGNMENT, CONTENT, "loop") == 30 - 6
    print(f"\nnbgrader autograde of {len(CONTENT['samples'])} notebooks: {elapsed:.1f} s")


def test_the_endless_loop_is_stopped_by_the_check_cells_own_limit(course, autograded):
    """Pass 23: the check cell stops each looping check after 1 s of the kernel's CPU time (0.25 s once
    two did) and fails its problem with a message, well inside nbgrader's cell timeout (20 s of wall
    time), which never fires (until pass 23 it was the only bound: CellTimeoutError, with the test
    copy's timeout at 5 s)."""
    elapsed, _ = autograded
    nb = json.loads(nbgen.notebook_path(ASSIGNMENT, STAGE, course / "autograded" / "loop").read_text(encoding="utf-8"))
    cells = {cell["metadata"]["nbgrader"]["grade_id"]: cell for cell in nb["cells"]
             if cell["metadata"].get("nbgrader", {}).get("grade")}
    errors = {gid: [o.get("ename") for o in cell["outputs"] if o.get("ename")] for gid, cell in cells.items()}
    assert errors.pop("p06_checking_dice_and_the_score") == ["AssertionError"]   # its checks failed, not a timeout
    assert not any(errors.values())                    # every other cell ran and passed after it
    printed = "".join("".join(o.get("text", "")) for o in cells["p06_checking_dice_and_the_score"]["outputs"])
    assert re.search(r"It ran for more than 1 second of CPU time and was stopped \(an endless loop\?\)\. "
                     r"It was running (score \(line \d+\) > )?check_dice \(line \d+\) of (its cell|their cells)\.",
                     printed), printed
    assert "It ran for more than 0.25 seconds of CPU time" in printed      # after two: the short limit
    assert elapsed < TEST_TIMEOUT + 60


def test_feedback_and_export(course, autograded):
    nbgrader_cli(course, "generate_feedback", f"stage{STAGE}")
    for student in CONTENT["samples"]:
        html = (course / "feedback" / student / f"stage{STAGE}" / f"{ASSIGNMENT.name}_stage{STAGE}.html")
        assert html.is_file()
    wrong = (course / "feedback" / "wrong" / f"stage{STAGE}" / f"{ASSIGNMENT.name}_stage{STAGE}.html").read_text()
    assert "Expected:" in wrong                        # the public check says what was expected
    nbgrader_cli(course, "export")
    with open(course / "grades.csv", newline="", encoding="utf-8") as handle:
        rows = [row for row in csv.DictReader(handle) if row["assignment"] == f"stage{STAGE}"]
    got = {row["student_id"]: float(row["score"]) for row in rows}
    assert got == {student: nbgen.expected_sample_points(ASSIGNMENT, CONTENT, student)
                   for student in CONTENT["samples"]}
    assert {float(row["max_score"]) for row in rows} == {ASSIGNMENT.stage_points(STAGE)}


@pytest.mark.parametrize("stage", [s.number for s in ASSIGNMENT.stages])
def test_source_notebooks_run_clean_in_a_real_kernel(stage):
    """Every cell of the solution notebook runs in a kernel without stdin (as under autograde): the
    interactive checks answer input() themselves, nothing is written to stderr, the play cell is idle."""
    import nbclient
    import nbformat

    ensure_kernel()
    nb = nbformat.read(nbgen.notebook_path(ASSIGNMENT, stage), as_version=4)
    client = nbclient.NotebookClient(nb, timeout=60, kernel_name="python3", allow_errors=False,
                                     shutdown_kernel="immediate")
    client.execute()
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        streams = [o for o in cell.outputs if o.output_type == "stream"]
        assert not [o for o in streams if o.name == "stderr"], cell.source[:80]
        if cell.metadata.get("nbgrader", {}).get("grade"):
            assert ": passed" in "".join(o.text for o in streams)
