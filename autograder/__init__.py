"""The grading kit (see docs/ARCHITECTURE.md)."""

import os


def started_elsewhere() -> bool:
    """Whether the current folder is not the one the kit was found in: then it is no folder of ours
    (it may hold a student's files), and nothing the grader starts may import from it."""
    try:
        here = os.getcwd()
    except OSError:                     # (a current folder deleted: nothing there to import)
        return False
    return here != os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
