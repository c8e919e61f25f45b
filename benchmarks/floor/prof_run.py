"""21 warm four-stage grades of the reference, to run under `perf record` (see prof_an.py)."""

import os
import sys

sys.path.insert(0, os.getcwd())

from autograder.engine.program import close_references  # noqa: E402
from autograder.engine.sandbox import template_scope  # noqa: E402
from autograder.grading.grade import grade, grade_stream  # noqa: E402

PATH = "autograder/assignments/yahtzee/reference.py"
with template_scope():
    grade(PATH, "yahtzee", stage="all")
    grade_stream((PATH for _ in range(20)), lambda row: None, "yahtzee", "all")
close_references()
