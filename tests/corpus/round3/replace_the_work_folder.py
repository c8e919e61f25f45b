# At import, moves its work folder (/tmp/work, which outlives a request) away and leaves a
# symbolic link in its place; the zygote empties /tmp of everything but the work folder after the
# request, so the link dangles.  On main 2c40710 the next request process could not make its run
# folder there: every later request of the life "the grader could not run your program (internal
# error)".  The request process, the work folder's owner, now renames a replaced work folder aside
# and makes it anew (harness/base.enter_own_folder): full marks.
import os as _os

try:
    _os.rename("/tmp/work", "/tmp/work-moved")
    _os.symlink("/tmp/work-moved", "/tmp/work")
except OSError:
    pass
