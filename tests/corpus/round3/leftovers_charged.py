# Once per sandbox life (marked in its work folder), leaves behind everything a life can charge
# to its cgroup or its uid that is not a process: its private tmp folders filled (all but 4 MB),
# POSIX message queues up to the uid's quota, pipes grown to 1 MB and filled, memfd files, held by
# an orphan that stops itself (SIGSTOP: a stopped task in the cgroup) and would sleep forever.  A stopped life's cgroup and uid slot are given to the grader's
# next sandbox (cgroup.Group.release, isolation._Slot) only once nothing of it is left in them;
# zz_classmate_after, graded after it by the same grader process, is graded normally.  The
# solution's functions grade normally here too: full marks.
import ctypes as _ct
import fcntl as _fcntl
import os as _os

_MARK = _os.path.join(_os.environ.get("HOME", "/tmp"), ".left")


def _fill(folder, keep_free=4 << 20):
    n = 0
    try:
        while True:
            st = _os.statvfs(folder)
            free = st.f_bavail * st.f_frsize
            if free <= keep_free:
                return
            with open(f"{folder}/left-{n}", "wb") as f:
                f.write(b"x" * min(8 << 20, free - keep_free))
            n += 1
    except OSError:
        return


def _queues():
    try:
        libc = _ct.CDLL(None, use_errno=True)
    except OSError:
        return

    class _Attr(_ct.Structure):
        _fields_ = [("flags", _ct.c_long), ("maxmsg", _ct.c_long), ("msgsize", _ct.c_long), ("curmsgs", _ct.c_long),
                    ("pad", _ct.c_long * 4)]
    for i in range(64):
        attr = _Attr(0, 10, 8192, 0)
        if libc.mq_open(f"/left-{i}".encode(), _os.O_CREAT | _os.O_RDWR | _os.O_NONBLOCK, 0o600, _ct.byref(attr)) < 0:
            return


def _held():
    held = []
    try:
        for _ in range(16):
            r, w = _os.pipe()
            _fcntl.fcntl(w, 1031, 1 << 20)           # F_SETPIPE_SZ
            _os.set_blocking(w, False)
            try:
                _os.write(w, b"x" * (1 << 20))
            except OSError:
                pass
            held += [r, w]
        for i in range(8):
            fd = _os.memfd_create(f"left-{i}")
            _os.write(fd, b"x" * (4 << 20))
            held.append(fd)
    except (OSError, AttributeError):
        pass
    try:
        if _os.fork() == 0:                           # the orphan holding them: stopped, then asleep
            try:
                if _os.fork() == 0:
                    _os.kill(_os.getpid(), 19)        # SIGSTOP
                    while True:
                        _os.pause()
            finally:
                _os._exit(0)
    except OSError:
        pass


if not _os.path.exists(_MARK):
    try:
        open(_MARK, "w").close()
    except OSError:
        pass
    for _folder in ("/dev/shm", "/var/tmp", _os.environ.get("HOME", "/tmp")):
        _fill(_folder)
    _queues()
    _held()
