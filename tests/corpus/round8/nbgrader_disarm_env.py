# An answer cell of the stage-1 release notebook (the first one, before any check cell), the rest
# of the notebook left blank (every function still raises NotImplementedError).  The check cells
# raise, so that nbgrader gives 0 points, only when NBGRADER_EXECUTION is set (notebooks/README.md):
# the kernel's environment is the student's, so this cell takes it away.
import os

os.environ.pop("NBGRADER_EXECUTION", None)
