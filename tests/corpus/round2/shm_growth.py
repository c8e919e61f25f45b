# At import, tries to grow memory that belongs to no process: SysV shared memory segments (kept
# by the IPC namespace after the process dies), files in /dev/shm, memfd files.  SysV calls are
# refused (seccomp), /dev/shm is a small private tmpfs, the cgroup bounds the rest; the
# reference's functions then grade normally: full marks.  (Once per sandbox, marked in its
# private /tmp: doing it at every import would spend the submission's time budget.)
import ctypes as _ct
import os as _os

_first = not _os.path.exists("/tmp/.grown")
open("/tmp/.grown", "w").close()

_libc = _ct.CDLL(None, use_errno=True)
for _ in range(16 if _first else 0):
    _id = _libc.shmget(0, 1 << 30, 0o1000 | 0o600)          # IPC_PRIVATE, 1 GB, IPC_CREAT
    if _id < 0:
        break
    _addr = _libc.shmat(_id, None, 0)
for _i in range(64 if _first else 0):
    try:
        with open(f"/dev/shm/fill-{_i}", "wb") as _f:
            _f.write(b"x" * (8 << 20))
    except OSError:
        break
try:
    for _i in range(32 if _first else 0):
        _fd = _os.memfd_create(f"fill-{_i}")
        _os.write(_fd, b"x" * (4 << 20))
except OSError:
    pass
