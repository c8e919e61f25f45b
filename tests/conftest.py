"""Fixtures shared by several test files (helpers shared by them are in tests/helpers/)."""

from __future__ import annotations

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
