"""Paths, names and the content file every part of the notebook generator shares."""

from __future__ import annotations

import re
from pathlib import Path

from autograder import toml
from autograder.assignment import REPO_ROOT, Assignment, Problem
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
    return toml.loads(path.read_text(encoding="utf-8"))


def has_notebooks(assignment: Assignment) -> bool:
    return content_path(assignment).is_file()


def slug(title: str, words: int = 5) -> str:
    head = re.split(r"[:;]", title)[0]
    parts = re.findall(r"[a-z0-9]+", head.lower())
    return "_".join(parts[:words]) or "problem"


def test_id(problem: Problem) -> str:
    return f"p{problem.number:02d}_{slug(problem.title)}"


def answer_id(number: int, function: str) -> str:
    return f"p{number:02d}_answer_{function}"


def _points(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"
