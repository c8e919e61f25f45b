"""One real nbgrader session for every course besides the main track (whose own round trip, with its
sample submissions, is tests/test_nbgrader.py).

A scratch copy of the kit's course folder config, and for each course the committed source notebook
of one stage (its nbgrader assignment `<course>-stageN`): one `generate_assignment` of them all,
then one `autograde` of two submissions per course, the solution notebook and the release as
nbgrader made it.  Each solution gets its stage's points, each release 0, and nbgrader's release
is exactly the kit's stubbing (release_notebook) -- for swe3006 that is the class cut into a locked
base and one answer class (autograder/notebooks/classes.py).  One session for all: nbgrader and
its kernels start once per command, not once per course.
"""

from __future__ import annotations

import json
import resource
import shutil
import time
from pathlib import Path

import pytest
from test_nbgrader import ensure_kernel, nbgrader_cli

from autograder import notebooks as nbgen
from autograder.assignment import DEFAULT_ASSIGNMENT, load_assignment

pytestmark = pytest.mark.slow

# (course, the stage of its round trip): yatzy's first stage, cs21's interactive stage 3, swe3006's
# stage 2 (the class cut with given methods and a nested region)
STAGES = {"yatzy": 1, "cs21": 3, "swe3006": 2}
BUDGET_S = 25            # for the whole session on an idle machine: reported, only a hang is asserted


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    """(scores {course: {student: score}}, releases {course: notebook}, seconds) of one session."""
    from nbgrader.api import Gradebook

    ensure_kernel()
    course = tmp_path_factory.mktemp("nbgrader-courses") / "course"
    course.mkdir()
    shutil.copy(nbgen.COURSE_DIR / "nbgrader_config.py", course / "nbgrader_config.py")
    specs = {name: load_assignment(name) for name in STAGES}
    for name, spec in specs.items():
        source = nbgen.notebook_path(spec, STAGES[name], course / "source")
        source.parent.mkdir(parents=True)
        shutil.copy(nbgen.notebook_path(spec, STAGES[name]), source)
    started, cpu = time.perf_counter(), _children_cpu()
    nbgrader_cli(course, "generate_assignment", "*-stage*")
    releases = {}
    for name, spec in specs.items():
        folder, notebook = nbgen.assignment_id(spec, STAGES[name]), nbgen.notebook_name(spec, STAGES[name])
        released = nbgen.notebook_path(spec, STAGES[name], course / "release").read_text(encoding="utf-8")
        releases[name] = json.loads(released)
        for student, text in (("solution", nbgen.notebook_path(spec, STAGES[name]).read_text(encoding="utf-8")),
                              ("release", released)):
            target = course / "submitted" / student / folder / notebook
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
    nbgrader_cli(course, "autograde", "*-stage*")
    elapsed, cpu = time.perf_counter() - started, _children_cpu() - cpu
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        scores = {name: {student: gradebook.find_submission_notebook(
                    Path(nbgen.notebook_name(spec, STAGES[name])).stem, nbgen.assignment_id(spec, STAGES[name]),
                    student).score for student in ("solution", "release")}
                  for name, spec in specs.items()}
    print(f"\nnbgrader generate_assignment + autograde of {2 * len(specs)} notebooks of {len(specs)} courses: "
          f"{elapsed:.1f} s, {cpu:.1f} s of CPU (budget {BUDGET_S} s on an idle machine)")
    return scores, releases, elapsed


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def test_every_course_besides_the_main_track_has_a_round_trip():
    assert set(STAGES) == {spec.name for spec in nbgen.courses()} - {DEFAULT_ASSIGNMENT}


@pytest.mark.parametrize("name", sorted(STAGES))
def test_nbgrader_releases_the_kits_stubbing(session, name):
    spec = load_assignment(name)
    source = json.loads(nbgen.notebook_path(spec, STAGES[name]).read_text(encoding="utf-8"))
    assert session[1][name] == nbgen.release_notebook(source)
    assert "### BEGIN SOLUTION" not in nbgen.notebook_texts(session[1][name])


@pytest.mark.parametrize("name", sorted(STAGES))
def test_autograde_gives_the_solution_its_stage_and_the_release_nothing(session, name):
    spec = load_assignment(name)
    assert session[0][name] == {"solution": spec.stage_points(STAGES[name]), "release": 0}


def test_the_session_ends(session):
    assert session[2] <= 180          # the budget is for an idle machine; this bound catches a hang
