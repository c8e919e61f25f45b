"""nbgrader configuration of the kit's notebooks (notebooks/ is the course directory, every course's
stage notebooks side by side: the main track's assignments stage1..N, the others' <course>-stageN).

Run nbgrader from this folder:  cd notebooks && nbgrader generate_assignment stage1   (or swe3006-stage2)
The source notebooks in source/ are GENERATED: edit the course's reference.py, assignment.toml or
notebooks.toml in autograder/assignments/<course>/, then run `python -m autograder notebooks` at
the repository root.
"""

import os

c = get_config()  # noqa: F821 - provided by nbgrader when it loads this file

# The course directory is the folder of this file, wherever it is copied to.
c.CourseDirectory.root = os.path.dirname(os.path.abspath(__file__))
c.CourseDirectory.course_id = "yahtzee"
c.CourseDirectory.ignore = [".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback"]

# Autograde: every cell gets at most 20 s (a student's endless loop costs 20 s, not the whole run;
# the command-line --ExecutePreprocessor.timeout does NOT override this), and the kernel is
# killed at once when a notebook is done (avoids random 3.5 s stalls at shutdown).
c.Execute.timeout = 20
c.Execute.shutdown_kernel = "immediate"
c.Execute.interrupt_on_timeout = True

# Stubs of answer regions (nbgrader's default, spelled out: autograder/notebooks/cells.py reproduces it).
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
c.ClearSolutions.begin_solution_delimeter = "BEGIN SOLUTION"
c.ClearSolutions.end_solution_delimeter = "END SOLUTION"
