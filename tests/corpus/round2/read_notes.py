# At import, looks for the notes leave_notes left (keyring, /tmp, /var/tmp, /dev/shm, a SysV queue).
# Finding any, it breaks every function (0 points); finding none (no state passes between
# students), it is the reference: full marks.
import ctypes as _ct

_libc = _ct.CDLL(None, use_errno=True)
_found = []
if _libc.syscall(249, b"user", b"autograder-note", None, 0) >= 0:    # request_key
    _found.append("keyring")
for _top in ("/tmp", "/var/tmp", "/dev/shm"):
    try:
        with open(f"{_top}/autograder-note") as _f:
            _found.append(_f.read())
    except OSError:
        pass
if _libc.msgget(0x4E4F5445, 0) >= 0:
    _found.append("queue")
if _found:
    raise RuntimeError("found a classmate's note")
