"""Paths, names and the content file every part of the notebook generator shares."""

from __future__ import annotations

import re
from pathlib import Path

from autograder.assignment import DEFAULT_ASSIGNMENT, REPO_ROOT, Assignment, Problem
from autograder.authoring.build import relative

COURSE_DIR = REPO_ROOT / "notebooks"
SOURCE_DIR = COURSE_DIR / "source"
SAMPLES_DIR = COURSE_DIR / "samples" / "submitted"
STUDENT_DIR = COURSE_DIR / "student"         # the self-learners' track: solution-free, ready to open
GENERATE_COMMAND = "python -m autograder notebooks"

BEGIN_SOLUTION = "### BEGIN SOLUTION"
END_SOLUTION = "### END SOLUTION"
CODE_STUB = "# YOUR CODE HERE\nraise NotImplementedError()"     # nbgrader's ClearSolutions default
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


SELFCHECK_TEXT = ("## How the checks run\n\nThis given cell runs the public checks below: each check cell "
                  "reports every problem as passed, failed or not started, with what was expected and a hint, "
                  "and never stops *Run All*. `python -m autograder grade FILE --public` and the bundle's "
                  "`check.py` run these same checks.")
CLASS_GIVEN_TEXT = ("## The class {name}: what is given\n\nThe methods this stage builds on (the constructor and the "
                    "earlier stages' methods, as the reference writes them) are in `{base}`, read-only. "
                    "Your class below inherits them.")
CLASS_ANSWER_TEXT = ("## Your methods\n\nWrite the body of each method where it says `# YOUR CODE HERE`, in place of "
                     "`raise NotImplementedError()` (keep the `def` lines and the docstrings), run the cell, then "
                     "each problem's checks below. `{name}` inherits the given methods from `{base}`, so "
                     "`{name}()` is the whole game as far as this stage goes.")
SUMMARY_TEXT = "## Your progress\n\nEvery problem whose checks ran above, in one list."


class NotebookError(ValueError):
    """The solution, the table and the content file do not fit together."""



def content_path(assignment: Assignment) -> Path:
    """The one place that says where an assignment's notebook content lives."""
    return assignment.notebook_content


def load_content(assignment: Assignment) -> dict:
    path = content_path(assignment)
    if not path.is_file():
        raise NotebookError(f"{relative(path)} does not exist: the notebooks need their teaching text")
    return assignment.notebook_data()


def has_notebooks(assignment: Assignment) -> bool:
    return content_path(assignment).is_file()


def slug(title: str, words: int = 5) -> str:
    head = re.split(r"[:;]", title)[0]
    parts = re.findall(r"[a-z0-9]+", head.lower())
    return "_".join(parts[:words]) or "problem"


def test_id(problem: Problem) -> str:
    return f"p{problem.number:02d}_{slug(problem.title)}"


def assignment_id(assignment: Assignment, stage: int) -> str:
    """The nbgrader assignment a stage notebook belongs to in the one course folder notebooks/:
    `stageN` for the kit's main track (the paths its docs and tests name), `<course>-stageN` for
    every other course (nbgrader assignment names must be unique in a course directory)."""
    return f"stage{stage}" if assignment.name == DEFAULT_ASSIGNMENT else f"{assignment.name}-stage{stage}"


def class_answer_id(name: str) -> str:
    """The grade_id of the answer cell holding this stage's methods of class NAME."""
    return f"answer_{name}"


def answer_id(number: int, function: str) -> str:
    return f"p{number:02d}_answer_{function}"


def _points(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"
