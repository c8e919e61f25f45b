import os
import sys

from . import started_elsewhere


def _no_foreign_folder_on_path() -> None:
    """`python -m autograder` puts the current folder first on sys.path: started from a folder that
    holds a student's files (cd into a submission, `grade .`; a class folder with a student's
    `pytest.py`), the grader would import that student's pytest.py, json.py or jinja2/ in its own
    process.  The current folder stays only when it is the one the kit itself was found in."""
    if started_elsewhere():
        here = os.getcwd()
        sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]


_no_foreign_folder_on_path()

if sys.argv[1:2] == ["grade-all"]:      # its fork server forked now, before the verb's modules (grading/early.py)
    from .grading.early import fork_server_early

    fork_server_early(sys.argv[2:])

from .cli import end, main  # noqa: E402  (after the path is ours)

code = main()
end(code, sys.argv[1:2] in (["grade"], ["grade-all"]))
