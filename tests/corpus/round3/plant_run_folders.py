# At import, in a fresh request's run folder (/tmp/work/run-N), makes the folders the next fresh
# requests of its life will be given (run-N+1 ... run-N+400: the numbers are predictable) and a
# file where the shared worker's folder goes (/tmp/work/shared).  The work folder outlives a
# request, so they are still there when the zygote hands those names out: on main 2c40710 the
# request process's mkdir failed and every later request of the life was "the grader could not
# run your program (internal error)", the grader's fault in the feedback: 75.88 for a correct
# program.  The harness now renames whatever it finds at its own folder's name aside
# (base.enter_own_folder): full marks.
import os as _os

_here = _os.getcwd()
_base, _leaf = _os.path.split(_here)
if _leaf.startswith("run-") and _leaf[4:].isdigit():
    for _k in range(1, 400):
        try:
            _os.makedirs(_os.path.join(_base, f"run-{int(_leaf[4:]) + _k}"), exist_ok=True)
        except OSError:
            break
    try:
        if not _os.path.exists(_os.path.join(_base, "shared")):
            with open(_os.path.join(_base, "shared"), "w") as _f:
                _f.write("not a folder")
    except OSError:
        pass
