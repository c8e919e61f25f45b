"""What the student's code tried (Python audit events), for the instructor: recorded, and refused
here in one case only (pass 20), a way around the patches that make a request draw the same
numbers in every run: an entropy device opened to read by any opener but the patched open
(io.FileIO, _io.open, os.fdopen of its fd, an opener= function), refused the same way in every
run.  (ctypes is not refused: the corpus's proofs of the kernel's walls call libc through it.)

And a request's forks (pass 21): its process tree shares FORK_BUDGET forks, each process
spending its own part (the request process holds them all; a fork costs one and hands the child an
eighth of what is left); a fork past a process's part raises BlockingIOError at once, as the
kernel's RLIMIT_NPROC would, but on what that process and its ancestors did, never on how many of
the tree's processes the scheduler let start or end first (which made a fork bomb's grade depend
on the machine's load).  The tree never has more than FORK_BUDGET + 1 processes: few, since what the
tree does while its request runs (its CPU, its memory) delays that request on the wall clock."""

import errno
import os
import stat
import sys

from .patches import _ENTROPY, _entropy_device
from .run import _RUN

MAX_ATTEMPTS = 20
# Forks a request's process tree may make in all (pass 21).  No course's program forks; the
# request process's own part lets it make 12 forks (a pool of workers), its first children's lets
# them fork too (the hostile corpora's double forks).  The tree stays under RLIMIT_NPROC (64, the zygote and
# the request processes included), so the kernel's count, which depends on the schedule, is
# never what refuses a fork made through os.fork.
FORK_BUDGET = 18
_FORKS = frozenset({"os.fork", "os.forkpty"})
_AUDITED = frozenset({
    "open", "os.listdir", "os.scandir", "os.system", "subprocess.Popen", "os.exec", "os.posix_spawn",
    "os.spawn", "os.fork", "os.forkpty", "socket.connect", "socket.bind", "socket.getaddrinfo",
    "socket.gethostbyname", "os.kill", "os.killpg", "os.remove", "os.rename", "os.rmdir", "os.symlink",
    "os.link", "os.chmod", "os.chown", "shutil.rmtree", "ctypes.dlopen"})
_LIBRARY = tuple(sorted({os.path.join(os.path.realpath(p), "") for p in
                         (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix)}))
_AUDIT_ON = [False]


def _describe(event, args):
    def text(x, limit=160):
        x = x.decode("utf-8", "replace") if isinstance(x, bytes) else str(x)
        return x if len(x) <= limit else x[:limit] + "..."
    if event == "open":
        path, mode = args[0], args[1]
        if isinstance(path, int):
            return None
        path = text(path if isinstance(path, (str, bytes)) else os.fspath(path))
        writing = isinstance(mode, str) and any(c in mode for c in "wax+")
        if not writing and (path.startswith(_LIBRARY) or path.startswith("/dev/")):
            return None                           # imports of the standard library
        return f"opened the file {path!r} to {'write' if writing else 'read'}"
    if event in ("os.listdir", "os.scandir"):
        return f"listed the folder {text(args[0])!r}"
    if event == "os.system":
        return f"ran the shell command {text(args[0])!r}"
    if event in ("subprocess.Popen", "os.exec", "os.posix_spawn", "os.spawn"):
        return f"started the program {text(args[1] if len(args) > 1 and args[1] else args[0])!r}"
    if event in ("os.fork", "os.forkpty"):
        return "started a new process (fork)"
    if event in ("socket.connect", "socket.bind"):
        return f"used the network ({event.split('.')[1]} to {text(args[1])})"
    if event in ("socket.getaddrinfo", "socket.gethostbyname"):
        return f"used the network (looked up {text(args[0])!r})"
    if event in ("os.kill", "os.killpg"):
        return f"sent signal {text(args[1])} to process {text(args[0])}"
    if event == "ctypes.dlopen":
        return f"loaded the C library {text(args[0])!r}"
    return f"changed files ({event} {text(args[0])!r})"


# Events after which a fresh runner (clean.py) is not reused: state its check cannot compare
# (another audit hook, code objects or defaults of functions, the heap walked, C calls).
_DIRTYING = frozenset({"sys.addaudithook", "object.__setattr__", "object.__delattr__", "gc.get_objects",
                       "gc.get_referrers", "gc.get_referents", "sys._current_frames"})


def _opens_entropy(args):
    """Whether an "open" event's file (a path or an fd) is a kernel entropy device, opened to read
    (the patched open never opens one: it gives the request's bytes)."""
    path, mode, flags = (tuple(args) + (None, None))[:3]
    if isinstance(path, str) and path.startswith(_LIBRARY):
        return False                            # (an import: the runtime's own files)
    if isinstance(mode, str):
        if "r" not in mode and "+" not in mode:
            return False
    elif isinstance(flags, int) and flags & os.O_ACCMODE == os.O_WRONLY:
        return False
    if isinstance(path, int):
        try:
            st = os.fstat(path)
        except OSError:
            return False
        return stat.S_ISCHR(st.st_mode) and st.st_rdev in _ENTROPY
    return _entropy_device(path) is not None


def _refuse(run, what, path):
    run.dirty = True
    raise PermissionError(13, f"Permission denied (no {what} in the grader: the same grade every run)", path)


def _audit(event, args):
    if event not in _AUDITED:
        if event in _DIRTYING or event.startswith("ctypes."):
            run = _RUN
            if run is not None and run.in_student:
                run.dirty = True
        return
    run = _RUN
    if run is None or not run.in_student:
        return
    if event == "open" and _opens_entropy(args):
        _refuse(run, "kernel entropy", args[0] if args and isinstance(args[0], (str, bytes)) else None)
    if len(run.attempts) < MAX_ATTEMPTS:
        try:
            what = _describe(event, args)
        except Exception:
            what = f"{event} (could not describe)"
        if what:
            run.attempts[what] = True
    if event in _FORKS:
        _spend_fork(run)


def _spend_fork(run):
    """A fork of student code: one of this process's part of the tree's FORK_BUDGET, an eighth of
    the rest handed to the child; refused before the kernel is asked when the part is spent (the
    same error as its RLIMIT_NPROC: a program cannot tell them apart)."""
    pid = os.getpid()
    if run.fork_pid != pid:         # this process's first fork: the request process holds the
        run.fork_pid = pid          # whole budget, a child the share its parent's fork handed it
        run.forks_left = FORK_BUDGET if pid == run.pid else run.fork_share
    if run.forks_left <= 0:
        raise BlockingIOError(errno.EAGAIN, os.strerror(errno.EAGAIN))
    left = run.forks_left - 1
    run.fork_share = left // 8      # (the child's copy of RUN reads it at its own first fork)
    run.forks_left = left - run.fork_share


def install_audit():
    """Once per process (forks inherit it): record what student code tries that the assignment never
    needs: files outside the library, the network, other programs, signals.  Audit hooks cannot be
    removed; this one refuses two things only (an entropy device's other openers, a fork past the
    budget), the sandbox is what refuses the rest."""
    if not _AUDIT_ON[0]:
        sys.addaudithook(_audit)
        _AUDIT_ON[0] = True
