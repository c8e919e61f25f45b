"""Run untrusted student code in a separate, limited process (grader side; stdlib only).

Student code never runs in the grader's process.  Each Sandbox owns one long-lived child
(the "zygote", see harness.py) started lazily on the first request: it applies limits and
isolation, compiles the student source once and then forks one process per fresh request
(or serves fresh=False calls from one shared worker).  Requests go to it as JSON lines on
its stdin; results come back as JSON lines on a dedicated pipe.  The grader enforces the
wall-clock limit with poll(); on a timeout, crash or protocol garbage it kills the whole
sandbox and starts a new one for the next request.

Isolation as root: mount/net/pid/ipc/uts namespaces (no network at all), a minimal root
(pivot_root: the Python runtime and system libraries read-only, private tmpfs /tmp, /var/tmp,
/dev/shm, nothing else; harness.build_root), a seccomp filter (seccomp.py), a cgroup per
sandbox (cgroup.py), a dedicated unprivileged uid per live sandbox (40000 + slot; a lock file
per slot keeps two graders apart), rlimits including NPROC, no_new_privs, a scrubbed
environment.  Not root: rlimits (no NPROC), the seccomp filter, its own session, a scrubbed
environment and a fresh temporary working folder.  Everything read back is bounded again
(bounds.py).  isolation() says what this machine allows;
Sandbox.applied says what a started sandbox actually got.

Inside a template_scope (a grading session), as root with a pid namespace, the child is not a
new interpreter but a fork of one pre-booted template process (harness.template_main) that then
isolates itself the same way; saves starting Python and loading the harness per sandbox.

Deliberate details: fresh=False calls run in one long-lived "shared worker" forked from the
zygote, so the zygote itself never imports the student module and every fresh fork starts
clean.  The wall-clock limit is enforced in three layers: a soft timer in the request process
(keeps the partial transcript), a hard SIGKILL by the zygote GRACE later (trusted code that
never runs student code), and the grader's own poll() deadline SLACK after that, which kills
the whole sandbox.  Python runs with -s -S -P -B rather than -I (see _spawn).  Isolation is set
up by the child itself, as root, before any student code exists in it, then it drops to the
sandbox uid; the uid must only be able to read the standard library (checked; the runtime is
bind-mounted into the new root at its own path, so a Python under /root works).
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import fcntl
import functools
import grp
import json
import os
import pwd
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from dataclasses import dataclass, field
from typing import Any

from . import bounds, cgroup, harness, seccomp

UID_BASE = 40000                 # sandbox uids are UID_BASE + slot
SLOTS = 1000
GRACE = 0.5                      # the zygote kills a request this long after its soft timeout (harness.GRACE)
SLACK = 2.0                      # ...and the grader gives up on the zygote this much later
START_TIMEOUT = 20.0
RAW_TAIL = 4096                  # bytes of raw fd 1/2 output kept for diagnostics
MAX_LINE = 96 << 20
HARNESS_EXIT = 117               # a request process that exits with this never got to report
INTERNAL = "the grader could not run your program (internal error)"
STATUSES = frozenset({"ok", "exception", "timeout", "memory", "output_limit", "exit", "crash", "syntax_error",
                      "import_error", "input_exhausted", "dice_exhausted", "no_function"})

# Runs as `python -c BOOT <result fd>`: reads the harness (16-byte length header) from stdin, as a
# code object the grader compiled once (marshal: the child is this very interpreter binary, so
# the format matches; compiling 1400 lines in every sandbox cost ~35 ms of CPU).
BOOT = """\
import os, marshal
def _read(n):
    data = b""
    while len(data) < n:
        chunk = os.read(0, n - len(data))
        if not chunk:
            raise SystemExit(3)
        data += chunk
    return data
exec(marshal.loads(_read(int(_read(16)))))
"""


@dataclass
class Limits:
    wall_s: float = 5.0          # per request wall-clock limit (enforced by the grader side)
    cpu_s: int = 10              # RLIMIT_CPU for the sandbox process tree (seconds)
    memory_mb: int = 512         # RLIMIT_AS
    nproc: int = 64              # RLIMIT_NPROC (as root: a dedicated uid per sandbox, so only its processes)
    fsize_mb: int = 8            # RLIMIT_FSIZE
    output_chars: int = 200_000  # max captured print output per request; more -> status "output_limit"
    nofile: int = 64
    budget_s: float = 0.0        # total seconds of requests per submission (Program; 0 = no budget)


@dataclass
class Request:
    kind: str = "call"            # "call": import as module <stem>, then call func; "script": run as __main__
    func: str | None = None
    args: list = field(default_factory=list)     # JSON-able
    kwargs: dict = field(default_factory=dict)
    stdin: list[str] | None = None   # scripted input lines; None = no input available
    seed: int | None = None          # random.seed(seed) right before the call / before the script
    dice: list[int] | None = None    # random.randint returns these, in order
    fresh: bool = True               # False: may run in the shared long-lived worker (pure functions)
    timeout: float | None = None     # overrides Limits.wall_s
    substitute: dict | None = None   # {"names": [...], "keep": [...]}: the reference's functions NAMES
    #                                  replace the student's for this call (see harness.substitute)
    instance: dict | None = None     # func "Class.method": {"init": [...], "kwargs": {...}, "state": {...}}
    #                                  constructs Class(*init, **kwargs) (stdin/dice/seed apply), sets the
    #                                  STATE attributes, calls the method; Outcome.state_after holds the
    #                                  instance's public attributes after it.  None: Class.method(*args)


@dataclass
class Outcome:
    status: str                   # "ok" | "exception" | "timeout" | "memory" | "output_limit" | "exit" | "crash"
    #                               | "syntax_error" | "import_error" | "input_exhausted" | "dice_exhausted"
    #                               | "no_function"
    value: Any = None             # the return value as plain JSON data ({"__type__": name} for other objects)
    error: dict | None = None     # {"type", "message", "line", "trace"} (student frames only); syntax errors add
    #                               "text"; no_function: {"type", "message", "suggestion"}; internal: {"internal"}
    stdout: str = ""              # everything printed (stdout and stderr, input echoed), cut at output_chars
    events: list = field(default_factory=list)   # ["out", text] (consecutive writes joined), ["in", prompt,
    #                               answer|None], ["roll", v], ["random", name, args], ["seed", args]
    args_after: list | None = None  # the args after the call, normalised
    state_after: dict | None = None  # a "Class.method" call with an instance: its public attributes after
    #                               the call (from __dict__ and __slots__, normalised like any value)
    import_stdout: str = ""       # what the module printed while being imported
    import_prompted: dict | None = None  # {"line", "prompt"} when input() was called during the import
    inputs_asked: int = 0         # how many times input() was called
    stdin_lines: int = 0          # len(request.stdin or [])
    dice_used: int = 0
    exit_code: int | None = None
    elapsed: float = 0.0          # wall seconds of the request
    cpu: float = 0.0              # CPU seconds of the request process
    message: str = ""             # one plain-English sentence for a non-ok status
    hidden_message: str = ""      # the same from grader text only (no name, number or text the program chose)
    worker: tuple | None = field(default=None, compare=False, repr=False)
    #                               (shared worker generation it ran in, generation after it) or None:
    #                               lets a Program know which shared-worker history a call saw
    attempts: list = field(default_factory=list)  # what the code tried beyond the assignment (files outside
    #                               the library, network, programs, signals, forged protocol lines): for the instructor


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
    return os.path.realpath(os.environ.get(PYTHON_ENV) or sys.executable)


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

    @classmethod
    def acquire(cls) -> _Slot:
        folder = "/run/autograder-sandbox" if os.path.isdir("/run") else os.path.join(
            tempfile.gettempdir(), "autograder-sandbox")
        os.makedirs(folder, mode=0o700, exist_ok=True)
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
        """Marked clean when its holder saw nothing of the uid left (set self.clean before)."""
        if self.clean:
            os.pwrite(self.fd, CLEAN, 0)
        os.close(self.fd)


CLEAN, DIRTY = b"c", b"d"


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


# ---------------------------------------------------------------------------------------
# One running sandbox: the grader's end of its pipes.
# ---------------------------------------------------------------------------------------
class _Proc:
    def __init__(self, popen: subprocess.Popen, ctl: int, res: int, raw: int, cleanup_dir: str | None):
        self.popen, self.ctl, self.res, self.raw = popen, ctl, res, raw
        self.cleanup_dir = cleanup_dir
        self.res_buf = bytearray()
        self.raw_tail = bytearray()
        self.pending = bytearray()
        self.eof = False
        for fd in (ctl, res, raw):
            os.set_blocking(fd, False)

    def send(self, data: bytes) -> None:
        self.pending += data
        self._write()

    def _write(self) -> None:
        try:
            while self.pending:
                del self.pending[:os.write(self.ctl, self.pending[:1 << 16])]
        except BlockingIOError:
            pass
        except OSError:             # the child is gone; its end of file tells the rest
            self.pending.clear()

    def next_line(self, deadline: float) -> tuple[str, bytes | None]:
        """("line", bytes) | ("eof"|"timeout"|"garbage", None); drains raw output meanwhile."""
        while True:
            i = self.res_buf.find(b"\n")
            if i >= 0:
                line = bytes(self.res_buf[:i])
                del self.res_buf[:i + 1]
                return "line", line
            if self.eof:
                return "eof", None
            if len(self.res_buf) > MAX_LINE:
                return "garbage", None
            left = deadline - time.monotonic()
            if left <= 0:
                return "timeout", None
            self._wait(left)

    def _wait(self, left: float) -> None:
        poller = select.poll()
        poller.register(self.res, select.POLLIN)
        if self.raw >= 0:
            poller.register(self.raw, select.POLLIN)
        if self.pending:
            poller.register(self.ctl, select.POLLOUT)
        for fd, _ in poller.poll(max(left, 0.001) * 1000):
            if fd == self.res:
                chunk = _read(fd)
                if chunk == b"":
                    self.eof = True
                elif chunk:
                    self.res_buf += chunk
            elif fd == self.raw:            # raw fd 1/2 output: keep only a tail
                chunk = _read(fd)
                if chunk == b"":
                    os.close(self.raw)
                    self.raw = -1
                elif chunk:
                    self.raw_tail += chunk
                    del self.raw_tail[:-RAW_TAIL]
            elif fd == self.ctl:
                self._write()

    def raw_text(self) -> str:
        return self.raw_tail.decode("utf-8", "replace")

    def close_fds(self) -> None:
        for fd in (self.ctl, self.res, self.raw):
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self.ctl = self.res = self.raw = -1


def _read(fd: int) -> bytes | None:
    try:
        return os.read(fd, 1 << 20)
    except BlockingIOError:
        return None
    except OSError:
        return b""


class _State:
    """Everything a Sandbox must clean up; kept apart so weakref.finalize does not hold the Sandbox."""

    def __init__(self) -> None:
        self.proc: _Proc | None = None
        self.slot: _Slot | None = None
        self.group: cgroup.Group | None = None
        self.pidns = False                    # the running zygote is pid 1 of its own pid namespace
        self.owner = os.getpid()
        self.clean = True                     # every stop so far saw nothing of the uid left

    def stop(self, graceful: bool = False) -> None:
        proc, self.proc = self.proc, None
        if proc is None or os.getpid() != self.owner:
            return
        try:
            if graceful and self.pidns and self._end_namespace(proc):
                pass                          # the zygote was pid 1: its namespace died with it
            elif self.slot is not None:       # the zygote (pid 1 of its namespace) and everything of its uid
                self.clean = _kill_uid(self.slot.uid) and self.clean
            else:
                if graceful:                  # end of input: the zygote kills its descendants and exits
                    os.close(proc.ctl)
                    proc.ctl = -1
                    try:
                        proc.popen.wait(timeout=0.5)
                    except subprocess.TimeoutExpired:
                        pass
                _kill_tree(proc.popen.pid)
            proc.popen.wait(timeout=3)
        except (OSError, subprocess.TimeoutExpired):
            self.clean = False
            proc.popen.kill()                 # last resort: the outer process; its tree dies with it
            proc.popen.wait(timeout=3)
        proc.close_fds()
        group, self.group = self.group, None
        if group is not None:
            group.remove()
        if proc.cleanup_dir:
            shutil.rmtree(proc.cleanup_dir, ignore_errors=True)

    def _end_namespace(self, proc: _Proc) -> bool:
        """A clean stop: end of input makes the zygote (pid 1 of its pid namespace) kill its
        descendants and exit; the kernel kills whatever else is in the namespace before the
        outer process sees it exit.  True when that happened in time (no uid sweep needed)."""
        os.close(proc.ctl)
        proc.ctl = -1
        try:
            proc.popen.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            return False
        return True

    def shutdown(self) -> None:
        if os.getpid() != self.owner:     # a forked copy of the grader must not kill our sandbox
            return
        self.stop(graceful=True)
        if self.slot is not None:
            self.slot.clean = self.clean and self.proc is None
            self.slot.release()
            self.slot = None


# ---------------------------------------------------------------------------------------
# The sandbox.
# ---------------------------------------------------------------------------------------
class Sandbox:
    def __init__(self, source: str, filename: str = "submission.py", limits: Limits | None = None,
                 hidden_paths: list[str] | None = None, reference: str | None = None):
        self.source = source
        self.reference = reference            # source whose functions requests may substitute
        self.filename = filename
        self.limits = limits or Limits()
        self.hidden_paths = [os.path.realpath(p) for p in hidden_paths or []]
        self.applied: dict[str, Any] = {}     # what the running sandbox got (filled when it starts)
        self._state = _State()
        self._seq = 0
        self.starts = 0                       # zygotes started so far (a new one has a new shared worker)
        self._lock = threading.Lock()
        self._closed = False
        self._finalizer = weakref.finalize(self, self._state.shutdown)

    @property
    def uid(self) -> int | None:
        """The dedicated uid of this sandbox (root only; None before the first request)."""
        return self._state.slot.uid if self._state.slot is not None else None

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._finalizer()

    def run(self, request: Request) -> Outcome:
        """Run one request.  Never raises on anything the student's code does."""
        timeout = max(float(request.timeout if request.timeout is not None else self.limits.wall_s), 0.01)
        with self._lock:
            if self._closed:
                raise RuntimeError("this Sandbox is closed")
            self._seq += 1
            payload = _payload(request, self._seq, timeout)     # a bad Request is the caller's bug: raises
            try:
                return self._run(request, payload, timeout)
            except Exception as e:                              # a grader bug must not blame the student
                self._state.stop()
                return _internal(f"{type(e).__name__}: {e}", 0.0)

    def _run(self, request: Request, payload: bytes, timeout: float) -> Outcome:
        proc = self._proc()
        if isinstance(proc, Outcome):
            return proc
        proc.raw_tail.clear()
        proc.send(payload)
        outcome, _ = self._collect(proc, request, self._seq, timeout, time.monotonic())
        return outcome

    def _proc(self) -> _Proc | Outcome:
        proc = self._state.proc
        return self._start() if proc is None else proc

    def run_batch(self, requests: list[Request], reset_worker: bool = False,
                  budget: float | None = None) -> list[Outcome]:
        """Run REQUESTS in order in one round trip: each exactly as run() would (a fork per fresh
        request, the shared worker for the others).  The sandbox stops after the first request
        that did not end cleanly (a timeout, memory, a replaced worker...): the outcomes of the
        requests that ran come back, the caller runs the rest one by one.  RESET_WORKER first
        replaces the shared worker (a new one imports the module again on its first request).
        BUDGET (seconds): the sandbox starts no further request once the batch has run that long."""
        if not requests:
            return []
        with self._lock:
            if self._closed:
                raise RuntimeError("this Sandbox is closed")
            first = self._seq + 1
            timeouts = [max(float(r.timeout if r.timeout is not None else self.limits.wall_s), 0.01)
                        for r in requests]
            payloads = [json.loads(_payload(r, first + i, t)) for i, (r, t) in enumerate(zip(requests, timeouts))]
            self._seq += len(requests)
            message = json.dumps({"op": "batch", "reset_worker": reset_worker, "requests": payloads,
                                  "budget": budget}).encode()
            outcomes: list[Outcome] = []
            try:
                proc = self._proc()
                if isinstance(proc, Outcome):
                    return [proc]
                proc.raw_tail.clear()
                proc.send(message + b"\n")
                t0 = time.monotonic()
                for i, request in enumerate(requests):
                    outcome, msg = self._collect(proc, request, first + i, timeouts[i], t0, batch=True)
                    if msg is None:              # the batch ended before this request (or the sandbox died)
                        if outcome is not None:
                            outcomes.append(outcome)
                        return outcomes
                    outcomes.append(outcome)
                    t0 = time.monotonic()
                    if self._state.proc is None:  # stopped (timeout, garbage): the rest run one by one
                        return outcomes
                self._batch_end(proc)
            except Exception as e:               # a grader bug must not blame the student
                self._state.stop()
                outcomes.append(_internal(f"{type(e).__name__}: {e}", 0.0))
            return outcomes

    def _batch_end(self, proc: _Proc) -> None:
        deadline = time.monotonic() + SLACK + GRACE
        while True:
            kind, line = proc.next_line(deadline)
            msg = _parse(line) if kind == "line" else None
            if kind != "line" or (msg is None and not line.startswith(b'{"t":"result"')):
                self._state.stop()
                return
            if msg is not None and msg.get("t") == "batch_end":
                return

    def _collect(self, proc: _Proc, request: Request, seq: int, timeout: float, t0: float,
                 batch: bool = False) -> tuple[Outcome | None, dict | None]:
        """Read the sandbox's lines until the trailer of request SEQ: (its Outcome, the trailer).
        In a batch, (None, None) when the batch ended before SEQ ran."""
        deadline = t0 + timeout + GRACE + SLACK
        result, garbled = None, False
        while True:
            kind, line = proc.next_line(deadline)
            if kind == "timeout":
                self._state.stop()
                out = Outcome(status="timeout", elapsed=round(time.monotonic() - t0, 4),
                              stdin_lines=len(request.stdin or []),
                              message=f"your program was stopped after {_secs(timeout)} s")
                out.hidden_message = out.message
                out.error = {"internal": "the sandbox did not answer in time; it was killed"}
                return out, None
            if kind != "line":
                detail = f"sandbox {kind} (exit {proc.popen.poll()}); output: {proc.raw_text()[-2000:]}"
                self._state.stop()
                return _internal(detail, time.monotonic() - t0), None
            msg = _parse(line)
            if msg is None:
                if line.startswith(b'{"t":"result"'):   # a request process's result, mangled
                    garbled = True
                    continue
                self._state.stop()
                return _internal(f"unreadable line from the sandbox: {line[:300]!r}", time.monotonic() - t0), None
            if batch and msg.get("t") == "batch_end":
                return None, None
            if msg.get("seq") != seq:
                continue
            if msg.get("t") == "result":
                result = msg
            elif msg.get("t") == "done":
                break
        outcome = _build(request, timeout, self.limits, result, msg, time.monotonic() - t0, garbled)
        if outcome.status == "crash" and proc.raw_tail:
            outcome.error = dict(outcome.error or {}, raw_output=proc.raw_text())
        outcome.worker = (msg.get("ran_in"), msg.get("worker_gen"))
        if _number(msg.get("zygote_cpu")) > self.limits.cpu_s / 2:
            self._state.stop(graceful=True)     # its CPU limit would soon kill it: start a new one
        return outcome, msg

    # -- starting the zygote ---------------------------------------------------------------
    def _start(self) -> _Proc | Outcome:
        iso = isolation()
        state = self._state
        root = iso["uid_drop"]
        try:
            if root and state.slot is None:
                state.slot = _Slot.acquire()
        except (OSError, RuntimeError) as e:
            return _internal(f"no sandbox uid: {e}", 0.0)
        cleanup_dir = None
        if root and iso["namespaces"]:
            workdir = "/tmp/work"                     # inside the sandbox's private /tmp
        else:
            workdir = cleanup_dir = tempfile.mkdtemp(prefix="sandbox-")
        cfg = {
            "filename": self.filename, "source": self.source, "limits": dataclasses.asdict(self.limits),
            "root": root, "namespaces": root and iso["namespaces"], "pidns": root and iso["pid_namespace"],
            "hidden": self.hidden_paths, "uid": state.slot.uid if root else None, "workdir": workdir,
            "tmp_mb": max(16, 4 * self.limits.fsize_mb),
            "seccomp": (seccomp.filter_bpf() or b"").hex(), "reference": self.reference,
        }
        env = _env(workdir)
        template = _template() if root and iso["pid_namespace"] else None
        try:
            proc = None
            if template is not None:
                try:
                    proc = template.spawn(env, "/")
                except OSError:          # the template died: this sandbox is spawned the old way
                    _drop_template(template)
                    template = None
            if proc is None:
                proc = _spawn(env, "/" if root else workdir, cleanup_dir)
        except OSError as e:
            if cleanup_dir:
                shutil.rmtree(cleanup_dir, ignore_errors=True)
            return _internal(f"could not start the sandbox: {e}", 0.0)
        state.proc = proc
        if root:       # before the child reads its harness: every process it ever forks is inside
            state.group = cgroup.Group.create(self._cgroup_memory(), self.limits.nproc + 16)
            if state.group is not None and not state.group.add(proc.popen.pid):
                state.group.remove(wait=0)
                state.group = None
        if template is None:     # a spawned child reads the harness first; a template's fork has it
            harness = _harness_source()
            proc.send(f"{len(harness):16d}".encode() + harness)
        proc.send(json.dumps(cfg).encode() + b"\n")
        deadline = time.monotonic() + START_TIMEOUT
        kind, line = proc.next_line(deadline)
        msg = _parse(line) if kind == "line" else None
        if msg is None or msg.get("t") != "ready":
            detail = (msg or {}).get("error") or f"{kind}: {line!r} {proc.raw_text()[-2000:]}"
            state.stop()
            return _internal(f"the sandbox did not start: {detail}", 0.0)
        self.applied = dict(msg.get("applied") or {}, python=_python(),
                            cgroup=state.group.kind if state.group is not None else False,
                            started="template" if template is not None else "spawn")
        state.pidns = "pid" in (self.applied.get("namespaces") or []) and bool(self.applied.get("proc"))
        self.starts += 1
        return proc

    def _cgroup_memory(self) -> int:
        """The whole sandbox's memory: two processes at their limit plus its tmpfs folders, in bytes."""
        tmp_mb = max(16, 4 * self.limits.fsize_mb) + 8 + 8
        return (2 * self.limits.memory_mb + tmp_mb + 64) << 20


def _env(home: str) -> dict[str, str]:
    """The sandbox's whole environment (in this order: a program may print it)."""
    return {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": home, "PYTHONHASHSEED": "0",
            "PYTHONDONTWRITEBYTECODE": "1", "PYTHONIOENCODING": "utf-8"}


# ---------------------------------------------------------------------------------------
# The template: one pre-booted process per grading session that forks the sandboxes.
# ---------------------------------------------------------------------------------------
class _Forked:
    """The grader's handle on a sandbox process forked by the template (not our child): a pidfd
    to wait for it and signal it (never a bare pid, which the kernel may reuse once it is reaped)."""

    def __init__(self, pid: int, pidfd: int):
        self.pid, self.pidfd = pid, pidfd
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None and select.select([self.pidfd], [], [], 0)[0]:
            self._exited()
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            if not select.select([self.pidfd], [], [], timeout)[0]:
                raise subprocess.TimeoutExpired("sandbox", timeout or 0)
            self._exited()
        return self.returncode or 0

    def kill(self) -> None:
        if self.returncode is None:
            try:
                signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)
            except OSError:
                pass

    def _exited(self) -> None:
        self.returncode = 0          # the template's child: its exit code is not ours to read
        os.close(self.pidfd)
        self.pidfd = -1


class _Template:
    """`python -c BOOT template 3`: the harness loaded once, forking one sandbox process per
    spawn() (harness.template_main).  It never receives a config, a source or student data."""

    def __init__(self) -> None:
        import socket

        self.python = _python()
        self.owner = os.getpid()
        self.lock = threading.Lock()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        boot_r, boot_w = os.pipe()
        try:
            self.popen = subprocess.Popen(
                [self.python, "-s", "-S", "-P", "-B", "-c", BOOT, "template", str(theirs.fileno())],
                stdin=boot_r, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                pass_fds=(theirs.fileno(),), env=_env("/"), cwd="/",
                start_new_session=True, close_fds=True)
        finally:
            os.close(boot_r)
            theirs.close()
        self.sock = ours
        harness = _harness_source()
        try:
            _write_all(boot_w, f"{len(harness):16d}".encode() + harness)
        finally:
            os.close(boot_w)

    def spawn(self, env: dict[str, str], cwd: str) -> _Proc:
        import socket

        with _child_pipes() as ((ctl_r, res_w, raw_w), (ctl_w, res_r, raw_r)):
            with self.lock:
                self.sock.sendmsg([json.dumps({"env": env, "cwd": cwd}).encode()],
                                  [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                                    b"".join(fd.to_bytes(4, sys.byteorder) for fd in (ctl_r, res_w, raw_w)))])
                ready = select.select([self.sock], [], [], START_TIMEOUT)[0]
                if not ready:
                    raise OSError("the sandbox template did not answer")
                data, fds, _, _ = socket.recv_fds(self.sock, 4096, 1)
            if not data:
                raise OSError("the sandbox template is gone")
            pid = int(json.loads(data)["pid"])
            if not fds:
                raise OSError("the sandbox template sent no pidfd")
        return _Proc(_Forked(pid, fds[0]), ctl_w, res_r, raw_r, None)  # type: ignore[arg-type]

    def close(self) -> None:
        self.sock.close()                 # end of input: the template exits (its children live on)
        try:
            self.popen.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.popen.kill()
            self.popen.wait()


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


_templates: dict[str, _Template] = {}
_template_depth = [0]
_template_lock = threading.Lock()


class template_scope:
    """While one is open, sandboxes (as root, with a pid namespace) start as forks of one
    pre-booted template process instead of a new interpreter each (~35 ms CPU saved per sandbox).
    The template ends when the outermost scope closes, so nothing of the grader outlives a grade
    but the sandboxes still open (the shared reference's)."""

    def __enter__(self) -> template_scope:
        with _template_lock:
            _template_depth[0] += 1
        return self

    def __exit__(self, *exc: object) -> None:
        with _template_lock:
            _template_depth[0] -= 1
            if _template_depth[0] > 0:
                return
            done = list(_templates.values())
            _templates.clear()
        for template in done:
            if template.owner == os.getpid():
                template.close()


def _template() -> _Template | None:
    """The template of this process and interpreter, started on first use inside a scope."""
    with _template_lock:
        if _template_depth[0] <= 0:
            return None
        python = _python()
        template = _templates.get(python)
        if template is not None and (template.owner != os.getpid() or template.popen.poll() is not None):
            _templates.pop(python)
            if template.owner == os.getpid():      # it died: our end of its socket goes too
                template.sock.close()
            template = None                        # (a forked copy of the grader starts its own)
        if template is None:
            try:
                template = _templates[python] = _Template()
            except OSError:
                return None
        return template


def _drop_template(template: _Template) -> None:
    with _template_lock:
        if _templates.get(template.python) is template:
            _templates.pop(template.python)
    template.close()


def _spawn(env: dict[str, str], cwd: str, cleanup_dir: str | None) -> _Proc:
    """Start the child: `python -s -S -P -B -c BOOT <result fd>` in its own session.

    Not `-I`: it implies -E, which would ignore PYTHONHASHSEED=0 (deterministic set order).
    The environment is entirely ours, so -s -S -P give the same isolation as -I."""
    with _child_pipes() as ((ctl_r, res_w, raw_w), (ctl_w, res_r, raw_r)):
        popen = subprocess.Popen(
            [_python(), "-s", "-S", "-P", "-B", "-c", BOOT, str(res_w)],
            stdin=ctl_r, stdout=raw_w, stderr=raw_w, pass_fds=(res_w,), env=env, cwd=cwd,
            start_new_session=True, close_fds=True)
    return _Proc(popen, ctl_w, res_r, raw_r, cleanup_dir)


@contextlib.contextmanager
def _child_pipes():
    """Three pipes for a new sandbox: ((control read, result write, raw output write) for the
    child, (control write, result read, raw output read) for us).  The child's ends are closed
    here once it has them; ours too if starting it failed."""
    ctl_r, ctl_w = os.pipe()
    res_r, res_w = os.pipe()
    raw_r, raw_w = os.pipe()
    try:
        yield (ctl_r, res_w, raw_w), (ctl_w, res_r, raw_r)
    except BaseException:
        for fd in (ctl_w, res_r, raw_r):
            os.close(fd)
        raise
    finally:
        for fd in (ctl_r, res_w, raw_w):
            os.close(fd)


_harness_cache: bytes | None = None


def _harness_source() -> bytes:
    """The harness, compiled once per grader process and marshalled."""
    global _harness_cache
    if _harness_cache is None:
        import marshal

        _harness_cache = marshal.dumps(compile(harness.source(), "<sandbox-harness>", "exec", dont_inherit=True))
    return _harness_cache


def _payload(request: Request, seq: int, timeout: float) -> bytes:
    if request.kind not in ("call", "script"):
        raise ValueError(f"Request.kind must be 'call' or 'script', not {request.kind!r}")
    if request.kind == "call" and not isinstance(request.func, str):
        raise ValueError("a 'call' Request needs func (a function name)")
    data = {
        "seq": seq, "kind": request.kind, "func": request.func, "args": list(request.args),
        "kwargs": dict(request.kwargs), "stdin": None if request.stdin is None else [str(s) for s in request.stdin],
        "seed": request.seed, "dice": None if request.dice is None else list(request.dice),
        "fresh": bool(request.fresh) or request.kind == "script", "timeout": timeout,
    }
    if request.instance is not None:
        data["instance"] = _instance_spec(request)
    if request.substitute:
        data["substitute"] = {key: [str(n) for n in request.substitute.get(key, ())] for key in ("names", "keep")}
    try:
        return json.dumps(data).encode() + b"\n"
    except (TypeError, ValueError) as e:
        raise TypeError(f"Request arguments must be JSON data: {e}") from None


def _instance_spec(request: Request) -> dict:
    spec = request.instance
    if request.kind != "call" or "." not in (request.func or ""):
        raise ValueError("Request.instance needs a call of func 'Class.method'")
    if not isinstance(spec, dict) or set(spec) - {"init", "kwargs", "state"}:
        raise ValueError(f"Request.instance must be a dict with keys init, kwargs, state, not {spec!r}")
    init, kwargs, state = spec.get("init") or [], spec.get("kwargs") or {}, spec.get("state") or {}
    if not isinstance(init, (list, tuple)) or not isinstance(kwargs, dict) or not isinstance(state, dict):
        raise ValueError("Request.instance: init must be a list, kwargs and state dicts")
    if not all(isinstance(k, str) and k.isidentifier() for k in [*kwargs, *state]):
        raise ValueError("Request.instance: kwargs and state keys must be identifiers")
    return {"init": list(init), "kwargs": dict(kwargs), "state": dict(state)}


def _parse(line: bytes | None) -> dict | None:
    if line is None:
        return None
    try:
        msg = json.loads(line)
    except (ValueError, RecursionError, MemoryError):      # garbage, nested too deeply, too big
        return None
    return msg if isinstance(msg, dict) else None


# ---------------------------------------------------------------------------------------
# Results -> Outcome (the child's data is untrusted: every field is type-checked).
# ---------------------------------------------------------------------------------------
def _build(request: Request, timeout: float, limits: Limits, res: dict | None, trailer: dict,
           elapsed: float, garbled: bool) -> Outcome:
    if isinstance(trailer.get("internal"), str):
        return _internal(trailer["internal"], elapsed)
    if res is not None and res.get("status") == "internal":
        return _internal(str(res.get("internal")), elapsed)
    final = res is not None and isinstance(res.get("status"), str) and res["status"] in STATUSES
    data = res if final else (trailer.get("progress") if isinstance(trailer.get("progress"), dict) else {})
    out = Outcome(status="crash")
    _fill(out, data, limits)
    out.stdin_lines = len(request.stdin or [])
    out.elapsed = round(elapsed, 4)
    out.cpu = _number(trailer.get("cpu")) or _number(data.get("cpu"))
    if isinstance(trailer.get("forged"), int) and trailer["forged"] > 0:
        out.attempts.append("wrote forged grader-protocol lines (result messages of its own)")
    facts = {"timed_out": data.get("timed_out") is True, "cpu_limited": data.get("cpu_limited") is True}
    if final:
        out.status = data["status"]
    else:
        facts.update(_status_without_result(out, data, trailer, limits, garbled))
        if facts.get("internal"):
            return _internal(facts["internal"], elapsed)
    if out.status != "ok":
        out.value = None
    out.message = _message(out, request, data, facts, limits, timeout)
    out.hidden_message = _hidden_message(out, request, facts, limits, timeout)
    return out


def _status_without_result(out: Outcome, data: dict, trailer: dict, limits: Limits, garbled: bool) -> dict:
    """The request process died or was killed before it reported: decide from how it ended."""
    sig, code = trailer.get("signal"), trailer.get("exit")
    if trailer.get("killed") is True:          # it ignored the soft timeout: killed by the zygote
        out.status = ("input_exhausted" if data.get("exhausted_at") else
                      "dice_exhausted" if data.get("dice_failed_at") else "timeout")
        return {"timed_out": True}
    if isinstance(sig, int):
        if sig in (signal.SIGXCPU, signal.SIGKILL) and out.cpu >= limits.cpu_s - 0.5:
            out.status = "timeout"
            return {"cpu_limited": True}
        out.status = "crash"
        return {"signal": sig}
    if isinstance(code, int) and code != HARNESS_EXIT and not garbled:
        out.status, out.exit_code = "exit", code
        return {"exit_unreported": True}
    why = "its result could not be read" if garbled else f"the request process ended without a result ({code})"
    return {"internal": why}


def _fill(out: Outcome, data: dict, limits: Limits) -> None:
    def typed(key: str, kind: type | tuple[type, ...], default: Any) -> Any:
        value = data.get(key)
        return value if isinstance(value, kind) else default

    # Untrusted: every field bounded (engine/bounds.py), so nothing grader-side can blow up on it.
    out.value = bounds.value(data.get("value"))
    out.error = bounds.error(data.get("error"))
    out.stdout = typed("stdout", str, "")[:limits.output_chars]
    out.events = bounds.events(data.get("events"))
    args_after = data.get("args_after")
    out.args_after = bounds.value(args_after) if isinstance(args_after, list) else None
    state_after = data.get("state_after")
    out.state_after = bounds.value(state_after) if isinstance(state_after, dict) else None
    out.import_stdout = typed("import_stdout", str, "")[:limits.output_chars]
    prompted = data.get("import_prompted")
    out.import_prompted = ({"line": bounds.integer(prompted.get("line")), "prompt": bounds.text(prompted.get("prompt"), 500)}
                           if isinstance(prompted, dict) else None)
    out.inputs_asked = bounds.integer(data.get("inputs_asked"), 0, 0, 10 ** 9)
    out.dice_used = bounds.integer(data.get("dice_used"), 0, 0, 10 ** 9)
    out.exit_code = bounds.integer(data.get("exit_code"), None, -(1 << 31), 1 << 31)
    out.attempts = [bounds.text(a, 160) for a in typed("attempts", list, []) if isinstance(a, str)][:20]


def _number(x: Any) -> float:
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else 0.0


def _internal(detail: str, elapsed: float) -> Outcome:
    return Outcome(status="crash", error={"internal": bounds.text(detail, 4000)}, elapsed=round(elapsed, 4),
                   message=INTERNAL, hidden_message=INTERNAL)


# ---------------------------------------------------------------------------------------
# Messages: one plain-English sentence per non-ok status.
# ---------------------------------------------------------------------------------------
def _message(out: Outcome, request: Request, data: dict, facts: dict, limits: Limits, timeout: float) -> str:
    status, error = out.status, out.error or {}
    stopped = f"was stopped after {_secs(timeout)} s"
    if status == "ok":
        return ""
    if status == "timeout":
        if facts.get("cpu_limited"):
            return f"your program used more than {limits.cpu_s} s of CPU time"
        return f"your program {stopped}"
    if status in ("input_exhausted", "dice_exhausted", "output_limit"):
        text = _limit_message(status, out, request, data, limits)
        if facts.get("timed_out"):
            text += f"; it kept going and {stopped}"
        return text
    if status == "memory":
        return f"used more than {limits.memory_mb} MB of memory"
    if status == "exit":
        via, arg = data.get("exit_via"), data.get("exit_arg")
        if via in ("sys.exit", "os._exit") and isinstance(arg, str):
            return f"called {via}({bounds.text(arg, 200)})"
        return f"ended with exit code {out.exit_code}"
    if status == "exception":
        return f"raised {error.get('type')}{_on_line(error)}{_colon(error.get('message'))}"
    if status == "syntax_error":
        return f"has a syntax error{_on_line(error)}{_colon(error.get('message'))}"
    if status == "import_error":
        return f"raised {error.get('type')} while being loaded{_on_line(error)}{_colon(error.get('message'))}"
    if status == "no_function":
        hint = error.get("suggestion")
        return _missing(request, error) + (f"; did you mean {hint}?" if hint else "")
    if isinstance(facts.get("signal"), int):
        return f"your program crashed (killed by {_signal_name(facts['signal'])})"
    return INTERNAL


def _missing(request: Request, error: dict) -> str:
    """What a no_function outcome did not find: a function, a class, or a method of a class."""
    func = str(request.func)
    if "." not in func:
        return f"has no function named {func}"
    cls, _, method = func.partition(".")
    if error.get("type") == "AttributeError":
        return f"has no method {method} in class {cls}"
    return f"has no class named {cls}"


HIDDEN_MESSAGES = {
    "exception": "raised an exception", "import_error": "raised an exception while being loaded",
    "syntax_error": "has a syntax error", "input_exhausted": "asked for more input than this run provides",
    "dice_exhausted": "rolled more dice than this scenario provides", "exit": "ended the program (an exit call)",
    "crash": "crashed",
}


def _hidden_message(out: Outcome, request: Request, facts: dict, limits: Limits, timeout: float) -> str:
    """A non-ok outcome in words that come from the grader alone (for hidden checks): the status
    and the grader's own limits, never an exception's name or text, a line number or an exit code."""
    status = out.status
    if status == "ok":
        return ""
    if status == "timeout":
        return (f"your program used more than {limits.cpu_s} s of CPU time" if facts.get("cpu_limited")
                else f"your program was stopped after {_secs(timeout)} s")
    if status == "memory":
        return f"used more than {limits.memory_mb} MB of memory"
    if status == "output_limit":
        return f"print output exceeded {limits.output_chars} characters"
    if status == "no_function":
        return _missing(request, out.error or {})
    if status == "crash" and out.message == INTERNAL:
        return INTERNAL
    if status == "exception" and (out.error or {}).get("type") == "NotImplementedError":
        return "is not written yet (it raises NotImplementedError)"
    return HIDDEN_MESSAGES.get(status, "did not finish normally")


def _limit_message(status: str, out: Outcome, request: Request, data: dict, limits: Limits) -> str:
    if status == "output_limit":
        return f"print output exceeded {limits.output_chars} characters"
    if status == "dice_exhausted":
        n = bounds.integer(data.get("dice_failed_at"), out.dice_used + 1, 0, 10 ** 9)
        provided = len(request.dice or [])
        return f"rolled {_a(n)} {_ordinal(n)} die; this scenario provides {provided}"
    asked = out.inputs_asked
    if request.stdin is None:
        text = "asked for input, but this run provides no input"
        return text + (f" (it asked {asked} times)" if asked > 1 else "")
    lines = len(request.stdin)
    first = bounds.integer(data.get("exhausted_at"), lines + 1, 0, 10 ** 9)
    text = (f"asked for input {_a(first)} {_ordinal(first)} time; "
            f"this game's script has {lines} line{'' if lines == 1 else 's'}")
    return text + (f" (it asked {asked} times in all)" if asked > first else "")


def _on_line(error: dict) -> str:
    return f" on line {error['line']}" if isinstance(error.get("line"), int) else ""


def _colon(text: Any) -> str:
    return f": {text}" if text else ""


def _secs(t: float) -> str:
    return f"{t:g}"


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _a(n: int) -> str:
    """'an' before numbers read with a vowel sound: 8, 11, 18, 80-89, 800..., 11000..."""
    digits = str(n)
    vowel = digits.startswith("8") or (len(digits) % 3 == 2 and digits[:2] in ("11", "18"))
    return "an" if vowel else "a"


def _signal_name(sig: int) -> str:
    try:
        return signal.Signals(sig).name
    except ValueError:
        return f"signal {sig}"
