# The honest classmate graded after every attack of the round by the same grader process (its name
# sorts last; the round's batch has one worker): the solution, plus 100 MB of memory and 20 MB in
# its work folder at import, so memory another life left charged to a reused cgroup, or a uid
# quota left used, would show.  Full marks.
import os as _os

_BALLAST = b"x" * (100 << 20)
try:
    with open(_os.path.join(_os.environ.get("HOME", "/tmp"), "ballast"), "wb") as _f:
        _f.write(b"y" * (20 << 20))
except OSError:
    pass
