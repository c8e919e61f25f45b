"""Process-tree helpers of the zygote: children from /proc, killing, reaping, cleaning files
(and watching the private tmp folders for them)."""

import os
import select
import shutil
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


TMP_TOPS = ("/tmp", "/var/tmp", "/dev/shm")      # a sandbox's private tmpfs mounts (as root)
# inotify: IN_CREATE, IN_DELETE, IN_MOVED_FROM, IN_MOVED_TO, IN_DELETE_SELF, IN_MOVE_SELF (an overflow
# of its queue and an unmount come always): every way an entry can appear in, or leave, a folder
_TMP_EVENTS = 0x100 | 0x200 | 0x40 | 0x80 | 0x400 | 0x800


class TmpWatch:
    """Whether anything was created in, moved into or out of, or removed from TOPS (their own
    entries; what happens inside a subfolder does not matter: the zygote removes a folder whole)
    since the last look, from one inotify fd: the zygote empties them only then, instead of
    listing all three after every fresh request."""

    def __init__(self, fd):
        self.fd = fd
        self.pending = True         # the first look empties them, whatever came before the watch
        self.poller = select.poll()     # (a look with nothing queued: poll(0), not a read raising EAGAIN)
        self.poller.register(fd, select.POLLIN)

    @classmethod
    def of(cls, tops):
        """A watch of TOPS, or False where inotify or ctypes is not there (then every look lists them)."""
        try:
            import ctypes
            libc = ctypes.CDLL(None, use_errno=True)
            fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        except (ImportError, OSError, AttributeError):
            return False
        if fd < 0:
            return False
        for top in tops:
            if libc.inotify_add_watch(fd, os.fsencode(top), _TMP_EVENTS) < 0:
                os.close(fd)
                return False
        return cls(fd)

    def changed(self):
        """True when events came since the last look (all read now), or it cannot tell."""
        got, self.pending = self.pending, False
        if not self.poller.poll(0):     # (an error or a closed fd shows as an event: read below)
            return got
        while True:
            try:
                data = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                return got
            except OSError:
                return True
            if not data:
                return True
            got = True


def empty_tmp(workdir, whole=False):
    """Remove everything but WORKDIR from the private tmp folders (WHOLE: what is in WORKDIR too):
    True if there was any."""
    found = False
    for top in TMP_TOPS:     # our own tmpfs mounts
        try:
            names = os.listdir(top)
        except OSError:
            continue
        for name in names:
            path = os.path.join(top, name)
            if path == workdir:
                if whole:
                    for inner in os.listdir(path):
                        found = True
                        _remove(os.path.join(path, inner))
                continue
            found = True
            _remove(path)
    return found


def pristine(workdir):
    """Whether the private tmp folders are as a new life's: nothing but WORKDIR, which holds
    nothing but an empty shared folder (a worker's; the next one makes it anew)."""
    try:
        for top in TMP_TOPS:
            if any(os.path.join(top, n) != workdir for n in os.listdir(top)):
                return False
        names = os.listdir(workdir)
        return not names or (names == ["shared"] and not os.listdir(os.path.join(workdir, "shared")))
    except OSError:
        return False


def _remove(path):
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path, ignore_errors=True)
    else:
        _unlink(path)
