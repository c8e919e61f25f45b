# The reference plus a search of the disk, by content, for a complete solution somebody left
# behind (the test plants marked copies of the reference outside /tmp: /srv, /opt, /root, /home,
# /mnt, /var/lib).  Finding one, it breaks itself (0 points), so a find shows in the score;
# the sandbox's root is an allowlist, so it finds nothing and keeps full marks.
import os as _os
import sys as _sys

# The runtime and the kernel's folders are not where anyone leaves a solution (and reading them
# all would take longer than the 1 s an import gets): everything else is searched.
_SKIP = {"/proc", "/sys", "/dev", "/usr", "/lib", "/lib64", "/bin", "/sbin", _os.path.realpath(_sys.base_prefix)}


def _search(wanted):
    for top, dirs, files in _os.walk("/"):
        dirs[:] = [d for d in dirs if _os.path.realpath(_os.path.join(top, d)) not in _SKIP]
        for name in files:
            if not name.endswith(".py"):
                continue
            path = _os.path.join(top, name)
            try:
                with open(path, errors="replace") as f:
                    text = f.read(400_000)
            except OSError:
                continue
            if wanted(text):
                return path
    return None


_found = _search(lambda text: "PLANTED COMPLETE SOLUTION" in text)
if _found:
    raise RuntimeError(f"FOUND a planted solution at {_found}")
