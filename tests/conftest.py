"""Fixtures shared by several test files (helpers shared by them are in tests/helpers/)."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(scope="session")
def mutant_report(tmp_path_factory):
    """The batch tests' mutant (helpers/batch.py) graded by grade() directly, in this process, with
    the batch's limits: what every batch must give it (test_batch.py, test_batch_resume.py)."""
    from helpers.batch import LIMITS_ENV, MUTANT

    from autograder.engine.program import default_limits
    from autograder.grading.grade import grade

    path = tmp_path_factory.mktemp("batch-alone") / "mutant.py"
    path.write_text(MUTANT, encoding="utf-8")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("AUTOGRADER_LIMITS", LIMITS_ENV)
        return grade(path, "yahtzee", limits=default_limits())


@pytest.fixture
def make():
    """make(source, filename="yahtzee.py", **sandbox options): a real Sandbox of SOURCE (dedented),
    closed after the test (test_sandbox*.py; collected again with student roots and under the
    template by test_sandbox_family.py and test_sandbox_template.py)."""
    import textwrap

    from autograder.engine.sandbox import Sandbox

    boxes: list[Sandbox] = []

    def _make(src: str, filename: str = "yahtzee.py", **kwargs) -> Sandbox:
        box = Sandbox(textwrap.dedent(src).lstrip("\n"), filename, **kwargs)
        boxes.append(box)
        return box

    yield _make
    for box in boxes:
        box.close()


# make test's first step (tests/run.py: xdist, a file per work unit, --no-loadscope-reorder) hands the
# files out in the order of the items: the costliest first, so that the last ones handed out are
# short and neither core idles long at the end.  Measured by file (the JUnit times of step 1, pass 25:
# every file over 15 s at load 10); a file not listed comes after them in its usual order.  Only in an xdist worker: a run on one
# process keeps the usual order.
COSTLIEST_FIRST = [
    "test_selfcheck", "test_sameagain", "test_hostile_round8", "test_selfcheck_calls", "test_stage5",
    "test_hostile_round2", "test_hostile_round6", "test_honest6", "test_pytzee", "test_student_path",
    "test_notebooks_nbgrader", "test_verdicts", "test_nbgrader", "test_hostile_round3", "test_hostile_round10",
    "test_charge_definitions", "test_hostile_leaks", "test_hostile_courses", "test_hostile_round7", "test_gradescope",
    "test_report", "test_sandbox_poison", "test_substitute_tried", "test_batch", "test_hostile_round5", "test_suites",
    "test_mutants", "test_install", "test_notebooks", "test_coach", "test_hostile_round11", "test_yatzy",
    "test_swe3006", "test_coach_solver", "test_hostile_round9", "test_missing_rows", "test_cs21",
    "test_notebook_loops", "test_batch_resume", "test_batch_ahead", "test_untrusted", "test_speed",
    "test_sandbox_template", "test_honest5", "test_batch_early", "test_notebooks_grading", "test_toy",
    "test_courses23", "test_batch_lms", "test_sandbox_family", "test_instage", "test_report_drawer",
    "test_leftovers24", "test_flags", "test_fairness", "test_script_substitution",
]


def pytest_collection_modifyitems(config, items) -> None:
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return
    rank = {name: i for i, name in enumerate(COSTLIEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.stem, len(rank)))      # (stable: a file's own order kept)
