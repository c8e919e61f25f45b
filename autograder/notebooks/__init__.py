"""Generate the nbgrader source notebooks, one per stage, from the reference and the problem table.

The reference solution (``solution/<assignment>.py``) stays the single source of truth: every code
cell of a notebook is cut out of it, every title and point value comes from
``assignment.toml``, and every expected value in a public check is computed by running the
reference at generation time.  Only the teaching text, a few extra public checks and the
"what goes here before stage N" variants live in ``notebooks/content/<assignment>.toml``.

What a stage-N notebook holds (nbgrader course layout, ``notebooks/source/stageN/``):

* a title and the stage's points table (markdown);
* the given code as locked, read-only cells: the imports and constants, the toolkit
  functions, and **the reference code of every earlier stage** (each stage notebook is
  self-contained; stage N is released after the stage N-1 deadline, so one bug costs
  points once and a student never builds on a broken earlier stage);
* per problem: the lesson (markdown), one answer cell per function with the problem's
  region between ``### BEGIN SOLUTION`` / ``### END SOLUTION`` (nbgrader stubs it), and one
  autograded, locked test cell worth the problem's points (grade_id ``p03_full_house``);
* a last cell to play live, guarded by ``PLAY = False`` so that it never runs under autograde.

Fences of a later stage nested in an earlier one (PROBLEM 19 inside PROBLEM 12) are replaced by
the variant the content file gives for them, so the stage-2 ``play_round`` is complete without
the Joker rule and no line of the stage-4 region appears before stage 4.

    python -m autograder notebooks            # write notebooks/source/ and notebooks/samples/
    python -m autograder notebooks --check    # exit 1 if a generated file is out of date
    python -m autograder notebooks --assignment NAME   # another course's (default: the main track)

The same package provides the nbgrader-equivalent stubbing (``release_notebook``), the public
checks as plain code (used by ``check.py`` in the student bundle) and the leak check.  By job:
common (paths, the content file), runtime (the checking tools and self-check runtime the given
cells define), solution (the reference cut into functions and regions), checks (public checks from
docstrings, scenario cases and the content), render (checks evaluated into cell code, markdown
placeholders), cells (cells and nbgrader's release), build (a stage notebook, samples, the student
track), classes (a class cut into a given base and this stage's methods), leaks (the leak check),
write (writing and --check).
"""


from __future__ import annotations

from .build import (
    StageBuild,
    build_all,
    build_stage,
    expected_sample_points,
    notebook_name,
    notebook_path,
    reference_namespace,
    sample_notebooks,
    sample_path,
    student_notebook,
    student_path,
)
from .cells import (
    cell_source,
    checksum,
    code_cell,
    dumps,
    is_locked,
    markdown_cell,
    new_notebook,
    release_notebook,
)
from .checks import (
    Check,
    content_checks,
    doctest_checks,
    problem_checks,
    scenario_checks,
    signatures_of,
    unchecked_cases,
)
from .common import (
    BEGIN_SOLUTION,
    CODE_STUB,
    COURSE_DIR,
    END_SOLUTION,
    GENERATE_COMMAND,
    SAMPLES_DIR,
    SOURCE_DIR,
    STUDENT_DIR,
    NotebookError,
    _points,
    answer_id,
    assignment_id,
    class_answer_id,
    content_path,
    has_notebooks,
    load_content,
    slug,
    test_id,
)
from .leaks import find_leaks, hidden_fingerprints, notebook_texts, secret_lines, student_leaks
from .render import check_label, checks_code, fill_markdown, render_check
from .runtime import SELFCHECK, TOOLS
from .solution import (
    Function,
    Piece,
    Solution,
    read_solution,
    replace_regions,
    stage_piece,
    strip_solution_markers,
    stub_code,
)
from .write import courses, generate, main, planned_files

__all__ = [
    "BEGIN_SOLUTION", "CODE_STUB", "COURSE_DIR", "Check", "END_SOLUTION", "Function",
    "GENERATE_COMMAND", "NotebookError", "Piece", "SAMPLES_DIR", "SELFCHECK", "SOURCE_DIR",
    "STUDENT_DIR", "Solution", "StageBuild", "TOOLS", "_points", "answer_id", "assignment_id", "class_answer_id", "build_all",
    "build_stage", "cell_source", "check_label", "checks_code", "checksum", "code_cell",
    "content_checks", "content_path", "courses", "doctest_checks", "dumps",
    "expected_sample_points", "fill_markdown", "find_leaks", "generate", "has_notebooks",
    "hidden_fingerprints", "is_locked", "load_content", "main", "markdown_cell", "new_notebook",
    "notebook_name", "notebook_path", "notebook_texts", "planned_files", "problem_checks",
    "read_solution", "reference_namespace", "release_notebook", "render_check", "replace_regions",
    "sample_notebooks", "sample_path", "scenario_checks", "secret_lines", "signatures_of", "slug", "unchecked_cases",
    "stage_piece", "strip_solution_markers", "stub_code", "student_leaks", "student_notebook",
    "student_path", "test_id",
]
