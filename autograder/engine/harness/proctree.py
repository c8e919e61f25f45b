"""Process-tree helpers of the zygote: children from /proc, killing, reaping, cleaning files."""

import os
import signal


def _unlink(path):
    try:
        os.unlink(path)
    except OSError:
        pass


def _kill(pid):
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass


def _alive(pid):
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None
    except ChildProcessError:
        return False


def _reap(pid):
    try:
        _, status, usage = os.wait4(pid, 0)
    except ChildProcessError:
        return {"exit": None, "signal": None, "cpu": None}
    cpu = round(usage.ru_utime + usage.ru_stime, 4)
    if os.WIFSIGNALED(status):
        return {"exit": None, "signal": os.WTERMSIG(status), "cpu": cpu}
    return {"exit": os.WEXITSTATUS(status), "signal": None, "cpu": cpu}
_HAS_CHILDREN_FILE = os.path.exists(f"/proc/self/task/{os.getpid()}/children")


def _children(pid, single=False):
    """PID's children; SINGLE: PID is known to have one thread (its own children file is all)."""
    if not _HAS_CHILDREN_FILE:
        return _children_by_scan(pid)
    if single:
        try:
            fd = os.open(f"/proc/{pid}/task/{pid}/children", os.O_RDONLY)
            try:
                return [int(x) for x in os.read(fd, 1 << 16).split()]
            finally:
                os.close(fd)
        except (OSError, ValueError):
            return []       # it is gone
    kids = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                kids.extend(int(x) for x in f.read().split())
    except (OSError, ValueError):
        pass        # it is gone
    return kids


def _children_by_scan(pid):
    """Fallback when the kernel lacks /proc/<pid>/task/<tid>/children."""
    kids = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        kids.append(int(name))
            except (OSError, ValueError, IndexError):
                pass
    return kids


def _tree(roots):
    seen, stack = set(), list(roots)
    while stack:
        p = stack.pop()
        if p not in seen:
            seen.add(p)
            stack.extend(_children(p))
    return seen
