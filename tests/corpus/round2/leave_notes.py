# At import, leaves notes for whoever is graded next with the same sandbox uid: a key in its
# user keyring, files in /tmp, /var/tmp and /dev/shm, a SysV message queue.  read_notes looks for
# them.  The reference's functions grade normally: full marks.
import ctypes as _ct

_libc = _ct.CDLL(None, use_errno=True)
_libc.syscall(248, b"user", b"autograder-note", b"NOTE-FROM-A-CLASSMATE", 21, -4)   # add_key, user keyring
for _top in ("/tmp", "/var/tmp", "/dev/shm"):
    try:
        with open(f"{_top}/autograder-note", "w") as _f:
            _f.write("NOTE-FROM-A-CLASSMATE")
    except OSError:
        pass
_libc.msgget(0x4E4F5445, 0o1000 | 0o666)                      # a queue with a well-known key
