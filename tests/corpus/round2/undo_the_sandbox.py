# The reference plus every way to undo the sandbox's view: a new user namespace (which would give
# back mount), mount itself, chroot, ptrace of its own parent, bpf, io_uring.  Each is refused
# (seccomp: EPERM).  If any succeeded it breaks itself (0 points); contained, full marks.
import ctypes as _ct
import os as _os

_libc = _ct.CDLL(None, use_errno=True)
_worked = []
if _libc.unshare(0x10000000) == 0:                      # CLONE_NEWUSER
    _worked.append("unshare(NEWUSER)")
if _libc.unshare(0x00020000) == 0:                      # CLONE_NEWNS
    _worked.append("unshare(NEWNS)")
if _libc.mount(b"none", b"/tmp", b"tmpfs", 0, None) == 0:
    _worked.append("mount")
if _libc.chroot(b"/tmp") == 0:
    _worked.append("chroot")
if _libc.ptrace(16, _os.getppid(), None, None) == 0:     # PTRACE_ATTACH
    _worked.append("ptrace")
if _libc.syscall(321, 0, None, 0) >= 0:                  # bpf (x86_64)
    _worked.append("bpf")
if _libc.syscall(425, 8, None) >= 0:                     # io_uring_setup (x86_64)
    _worked.append("io_uring")
try:
    _pid = _os.fork()
except OSError:
    _pid = -1
if _pid == 0:
    _os._exit(0)
if _pid > 0:
    _os.waitpid(_pid, 0)
if _worked:
    raise RuntimeError("UNDONE " + ", ".join(_worked))
