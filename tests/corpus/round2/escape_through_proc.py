# The reference plus attempts to reach the kit's reference FILE through /proc (pid 1's root,
# every process's root, /proc/self/root, a cwd walked up) and through inherited file
# descriptors.  Reaching it, it breaks itself (0 points); contained, it keeps full marks.
import os as _os

_roots = ["", "/proc/1/root", "/proc/self/root", "/proc/self/cwd/../../../.."]
_roots += [f"/proc/{n}/root" for n in _os.listdir("/proc") if n.isdigit()]
for _fd in range(3, 64):
    _roots.append(f"/proc/self/fd/{_fd}/../../../../..")
_found = None
for _root in _roots:
    try:
        with open(_root + "@REPO@/solution/yahtzee.py") as _f:
            _found = _f.read()
        break
    except OSError:
        pass
if _found:
    raise RuntimeError("ESCAPED: read the kit's reference")
