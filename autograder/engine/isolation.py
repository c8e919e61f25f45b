"""What this machine allows (isolation(), probed once), the interpreter that runs student code,
the sandbox uid slots (one dedicated uid per live sandbox) and killing what a uid or tree left."""

from __future__ import annotations

import ctypes
import fcntl
import functools
import grp
import os
import pwd
import signal
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any

UID_BASE = 40000                 # sandbox uids are UID_BASE + slot
SLOTS = 1000


# ---------------------------------------------------------------------------------------
# What this machine allows.
# ---------------------------------------------------------------------------------------
_CLONE_NEWNS, _CLONE_NEWUTS, _CLONE_NEWIPC = 0x00020000, 0x04000000, 0x08000000
_CLONE_NEWPID, _CLONE_NEWNET = 0x20000000, 0x40000000
_MS_NOSUID, _MS_NODEV, _MS_REC, _MS_PRIVATE = 2, 4, 16384, 1 << 18

_isolation: dict[str, Any] | None = None
_isolation_lock = threading.Lock()


def isolation() -> dict[str, Any]:
    """What this machine allows, probed once per process (a forked child tries it)."""
    global _isolation
    with _isolation_lock:
        if _isolation is None:
            _isolation = _probe_isolation()
        return dict(_isolation)


def _probe_isolation() -> dict[str, Any]:
    root = os.geteuid() == 0 and sys.platform.startswith("linux")
    found = _probe_as_root() if root else set()
    namespaces = "ns" in found
    return {
        "root": root,
        "namespaces": namespaces,
        "pid_namespace": namespaces and "pid" in found,
        "uid_drop": root and "uid" in found,
        "network": "none" if namespaces else "shared",
        "hidden_paths": namespaces,
        "private_tmp": namespaces,
        "rlimits": ["cpu", "as", "fsize", "nofile", "core"] + (["nproc"] if root and "uid" in found else []),
        "setsid": True,
        "scrubbed_env": True,
        "python": _python(),
    }


def _probe_as_root() -> set[str]:
    """Fork a child that tries the namespaces and the uid change (it exits right after)."""
    libc = ctypes.CDLL(None, use_errno=True)     # loaded before fork: no dlopen in the child
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(r)
            os.write(w, " ".join(_try_isolation(libc)).encode())
        finally:
            os._exit(0)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        found = set(f.read().decode().split())
    os.waitpid(pid, 0)
    return found


def _try_isolation(libc: ctypes.CDLL) -> list[str]:
    found = []
    flags = _CLONE_NEWNS | _CLONE_NEWNET | _CLONE_NEWIPC | _CLONE_NEWUTS
    if libc.unshare(flags | _CLONE_NEWPID) == 0:
        found.append("pid")
        unshared = True
    else:
        unshared = libc.unshare(flags) == 0
    if (unshared and libc.mount(None, b"/", None, ctypes.c_ulong(_MS_REC | _MS_PRIVATE), None) == 0
            and libc.mount(b"tmpfs", b"/tmp", b"tmpfs", ctypes.c_ulong(_MS_NOSUID | _MS_NODEV), b"size=64k") == 0):
        found.append("ns")
    try:
        os.setgroups([])
        os.setresgid(UID_BASE, UID_BASE, UID_BASE)
        os.setresuid(UID_BASE, UID_BASE, UID_BASE)
        found.append("uid")
    except OSError:
        pass
    return found


PYTHON_ENV = "AUTOGRADER_PYTHON"      # the interpreter that runs student code (default: the grader's own)


def _python() -> str:
    return _realpath(os.environ.get(PYTHON_ENV) or sys.executable)


@functools.lru_cache(maxsize=8)
def _realpath(path: str) -> str:
    """(Once per path: a realpath is an lstat per component, ~0.15 ms, and every sandbox asked.)"""
    return os.path.realpath(path)


def use_python(path: str) -> str | None:
    """Run student code with the Python at PATH (this process and the workers it starts);
    an error message when PATH is not a Python 3.10 or newer."""
    try:
        done = subprocess.run([path, "-c", "import sys; print(sys.version_info >= (3, 10))"],
                              capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"--python {path}: cannot run it ({e})"
    if done.stdout.strip() != "True":
        return f"--python {path}: not a Python 3.10 or newer"
    os.environ[PYTHON_ENV] = os.path.realpath(path)
    return None


# ---------------------------------------------------------------------------------------
# Uid slots and killing.
# ---------------------------------------------------------------------------------------
class _Slot:
    """A sandbox uid held (flock) for the life of one Sandbox; no two graders share one.

    The lock file says how its last holder left it: b"c" once that holder saw nothing of the
    uid left (its pid namespace ended, or a uid sweep found none), b"d" while held.  Only a slot
    not left clean (a grader that died holding it, or one from before this marker) is searched
    for processes of its uid (a /proc scan: ~4 ms, five times a student otherwise)."""

    def __init__(self, fd: int, uid: int):
        self.fd, self.uid = fd, uid
        self.clean = False
        self.owner = os.getpid()

    @classmethod
    def acquire(cls) -> _Slot:
        with _kept_lock:
            kept = _kept.get(os.getpid())
            slot = kept.pop() if kept else None
        if slot is not None:            # one this process left clean and still holds (release)
            os.pwrite(slot.fd, DIRTY, 0)
            slot.clean = False
            return slot
        folder = _slot_folder()
        for n in range(SLOTS):
            uid = UID_BASE + n
            if _id_taken(uid):
                continue
            fd = os.open(os.path.join(folder, f"slot-{n}.lock"), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                continue
            if os.pread(fd, 1, 0) != CLEAN and uid_processes(uid):
                _kill_uid(uid)   # leftovers of a grader that died holding this slot
            os.pwrite(fd, DIRTY, 0)
            return cls(fd, uid)
        raise RuntimeError("no free sandbox uid slot")

    def release(self) -> None:
        """Marked clean when its holder saw nothing of the uid left (set self.clean before).  A clean
        slot stays locked by this process for its next sandbox (up to KEPT of them: no open, lock,
        read and close, ~0.1 ms of the grader's CPU a sandbox); marked clean all the same, so a
        process that ends holding it leaves it as it is."""
        if self.clean:
            os.pwrite(self.fd, CLEAN, 0)
            if self.owner == os.getpid():
                with _kept_lock:
                    kept = _kept.setdefault(self.owner, [])
                    if len(kept) < KEPT:
                        kept.append(self)
                        return
        os.close(self.fd)


CLEAN, DIRTY = b"c", b"d"
KEPT = 8                              # clean slots a process keeps locked for its next sandboxes
_kept: dict[int, list[_Slot]] = {}   # per process (a forked copy never uses its parent's)
_kept_lock = threading.Lock()
_folders: dict[int, str] = {}


def _slot_folder() -> str:
    """The folder of the slots' lock files, made once per process."""
    folder = _folders.get(os.getpid())
    if folder is None or not os.path.isdir(folder):
        folder = "/run/autograder-sandbox" if os.path.isdir("/run") else os.path.join(
            tempfile.gettempdir(), "autograder-sandbox")
        os.makedirs(folder, mode=0o700, exist_ok=True)
        _folders[os.getpid()] = folder
    return folder


@functools.cache
def _id_taken(uid: int) -> bool:
    """True when a real account or group uses this id (read once per process)."""
    for lookup in (pwd.getpwuid, grp.getgrgid):
        try:
            lookup(uid)
            return True
        except KeyError:
            pass
    return False


def _kill_uid(uid: int) -> bool:
    """SIGKILL every process of UID: a forked helper becomes UID and calls kill(-1) until none is left.

    (kill(-1) reports success whenever other processes exist, so the helper checks /proc.)"""
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
            for attempt in range(1000):
                os.kill(-1, signal.SIGKILL)
                if not uid_processes(uid, exclude=os.getpid()):
                    code = 0
                    break
                time.sleep(0.001 * min(attempt, 10))
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0      # True: nothing of UID is left


def uid_processes(uid: int, exclude: int = 0) -> list[int]:
    """Pids of the live (not zombie) processes whose real uid is UID."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == exclude:
            continue
        try:
            with open(f"/proc/{name}/status") as f:
                status = f.read()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        uids = fields.get("Uid", "").split()
        if uids and int(uids[0]) == uid and fields.get("State", "").split()[:1] not in (["Z"], ["X"]):
            found.append(int(name))
    return found


def _kill_tree(root_pid: int) -> None:
    """Not root: SIGKILL the zygote's process group and every descendant (it is a subreaper)."""
    for _ in range(3):
        victims = descendants(root_pid)
        for pid in victims:
            _signal(pid, signal.SIGKILL)
        try:
            os.killpg(root_pid, signal.SIGKILL)
        except OSError:
            pass
        if not victims:
            break


def descendants(root_pid: int) -> set[int]:
    """Every process below ROOT_PID (read from /proc; zombies included)."""
    parent: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as f:
                    parent[int(name)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                pass
    found, frontier = set(), {root_pid}
    while frontier:
        frontier = {p for p, pp in parent.items() if pp in frontier and p not in found}
        found |= frontier
    return found


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except OSError:
        pass
