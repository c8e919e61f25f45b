"""Starting a sandbox process: spawned (`python -c BOOT`) or forked from the grading session's
pre-booted template (template_scope); the harness code it is sent; the grader's end of its pipes."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import select
import signal
import subprocess
import sys
import threading
import time

from . import codecache, harness
from .isolation import _python, _realpath

START_TIMEOUT = 20.0
RAW_TAIL = 4096                  # bytes of raw fd 1/2 output kept for diagnostics
MAX_LINE = 96 << 20

# Runs as `python -c BOOT <result fd>`: reads the harness (16-byte length header) from stdin, as a
# code object the grader compiled once (marshal, when the child is this very interpreter binary, so
# the format matches; compiling the harness's ~1900 lines in every sandbox cost ~35 ms of CPU), or
# as its source (SOURCE_MARK first) for another interpreter (`--python`): bytecode is per version.
SOURCE_MARK = b"#harness source\n"
BOOT = """\
import os, sys, marshal
if sys.path and not sys.path[0]:
    del sys.path[0]                 # what -P does (Python 3.10 has no -P): no import from the cwd
def _read(n):
    data = b""
    while len(data) < n:
        chunk = os.read(0, n - len(data))
        if not chunk:
            raise SystemExit(3)
        data += chunk
    return data
_h = _read(int(_read(16)))
exec(compile(_h, "<sandbox-harness>", "exec", dont_inherit=True) if _h.startswith(b"#") else marshal.loads(_h))
"""


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
    """What pipe FD holds, up to a default pipe's 64 KiB (a read of 1 MiB allocates, and gives
    back, 1 MiB each time: ~12 us of CPU against ~1 us; a longer line is read in more calls)."""
    try:
        return os.read(fd, 1 << 16)
    except BlockingIOError:
        return None
    except OSError:
        return b""


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
    spawn() (harness/entry.py template_main).  It never receives a config, a source or student data.
    Booted by this process, or by another one for it (Booted: grade-all's parent for a worker;
    adopt_template): then POPEN is a pidfd handle, as for a forked sandbox."""

    def __init__(self, booted: tuple | None = None) -> None:
        """BOOTED: (python, socket, pid) of a template booted for this process (adopt_template)."""
        self.owner = os.getpid()
        self.lock = threading.Lock()
        self.roots: dict = {}        # its root templates by setup (roots.root_template; None: failed)
        self.roots_lock = threading.Lock()
        self.popen: subprocess.Popen | _Forked
        if booted is None:
            self.python = _python()
            self.popen, self.sock = _boot(self.python)
        else:
            self.python, self.sock, pid = booted
            self.popen = _Forked(pid, os.pidfd_open(pid))

    def spawn(self, env: dict[str, str], cwd: str) -> _Proc:
        return _spawn_from(self.sock, self.lock, env, cwd)

    def close(self) -> None:
        with self.roots_lock:
            roots, self.roots = [r for r in self.roots.values() if r is not None], {}
        for root in roots:
            root.close()
        self.sock.close()                 # end of input: the template exits (its children live on)
        try:
            self.popen.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.popen.kill()
            self.popen.wait()


def _boot(python: str) -> tuple[subprocess.Popen, object]:
    """Start a template running PYTHON: (its process, our end of its socket).  The harness is
    written to it at once (_fit_pipe); it boots on its own meanwhile."""
    import socket

    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    boot_r, boot_w = os.pipe()
    try:
        popen = subprocess.Popen(
            [python, *_flags(python), "-c", BOOT, "template", str(theirs.fileno())],
            stdin=boot_r, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            pass_fds=(theirs.fileno(),), env=_env("/"), cwd="/",
            start_new_session=True, close_fds=True)
    except BaseException:
        ours.close()
        os.close(boot_w)
        raise
    finally:
        os.close(boot_r)
        theirs.close()
    harness = _harness_source()
    _fit_pipe(boot_w, len(harness) + 16)
    try:
        _write_all(boot_w, f"{len(harness):16d}".encode() + harness)
    except OSError:
        pass                    # (it died booting: its socket's end of file tells whoever asks it)
    finally:
        os.close(boot_w)
    return popen, ours


class Booted:
    """A template booted by one process for another that starts later and adopts it (grade-all's
    parent boots one for each worker while its fork server loads pytest, so a worker's first
    sandbox need not wait for a template to boot: adopt_template).  The booting process never asks
    it for anything: it hands its socket over (handoff), closes its own end (let_go) and, the
    template being its child, reaps it once the adopter is done (reap)."""

    def __init__(self, core: int | None = None) -> None:
        """CORE: the CPU the template (so every process it forks) runs on, that of its worker."""
        self.python = _python()
        self.popen, self.sock = _boot(self.python)
        self.worker: int | None = None      # the pid of the process it was handed to (the booter's note)
        self.root: tuple | None = None      # (key, our end of its socket): the root template asked of
        #                                     it for its adopter (roots.ask_root_template), if any
        if core is not None:
            try:
                os.sched_setaffinity(self.popen.pid, {core})
            except OSError:
                pass

    def handoff(self) -> tuple:
        """(python, socket, pid): what the adopter's adopt_template takes (the socket pickled as a
        descriptor passed to it: multiprocessing's reduction)."""
        return (self.python, self.sock, self.popen.pid)

    def let_go(self) -> None:
        """Our end of its socket closed: the adopter's copy is the only one (the template exits at
        its end of file), or, never handed over, it exits now; so is our end of the root template's
        socket (the same: the adopter's, or it exits)."""
        self.sock.close()
        if self.root is not None:
            self.root[1].close()

    def reap(self, timeout: float) -> float | None:
        """Wait up to TIMEOUT s for it to exit (then kill it), and reap it: the CPU time of it and of
        its children (the student roots and lives it reaped), None when it was reaped already."""
        self.let_go()
        deadline = time.monotonic() + timeout
        flags = os.WNOHANG
        while self.popen.returncode is None:
            try:
                pid, status, usage = os.wait4(self.popen.pid, flags)
            except ChildProcessError:
                return None
            if pid:
                self.popen.returncode = os.waitstatus_to_exitcode(status)
                return usage.ru_utime + usage.ru_stime
            if time.monotonic() >= deadline:
                self.popen.kill()
                flags = 0                       # (killed: a blocking wait)
            else:
                time.sleep(0.005)
        return None


def adopt_template(booted: tuple, root: tuple | None = None) -> bool:
    """Make the template another process booted for this one (Booted.handoff) the template of
    this process's next template_scope (instead of one started then); False (and it is let go)
    when it is of no use here: another interpreter, one already kept, or it is gone.  ROOT: the
    root template its booter asked of it (Booted.root: roots.adopt_root_template), kept as the
    template's own for its setup, or let go."""
    python, sock, pid = booted
    try:
        template = _Template((python, sock, pid))
    except OSError:
        sock.close()
        if root is not None:
            root[1].close()
        return False
    with _template_lock:
        kept = python == _python() and python not in _templates and template.popen.poll() is None
        if kept:
            _templates[python] = template
    if kept:
        if root is not None:
            from .roots import adopt_root_template  # (roots builds on this module)

            adopt_root_template(template, *root)     # (the template dropped if its answer is not read)
        return _templates.get(python) is template
    if root is not None:
        root[1].close()
    sock.close()            # (not waited for: its booter reaps it)
    if template.popen.pidfd >= 0:
        os.close(template.popen.pidfd)
        template.popen.pidfd = -1
    return False


def _spawn_from(sock, lock: threading.Lock, env: dict[str, str], cwd: str) -> _Proc:
    """A sandbox process forked by the template or a student root on SOCK."""
    with _child_pipes() as ((ctl_r, res_w, raw_w), (ctl_w, res_r, raw_r)):
        pid, pidfd = _ask_fork(sock, lock, {"env": env, "cwd": cwd}, (ctl_r, res_w, raw_w))
    return _Proc(_Forked(pid, pidfd), ctl_w, res_r, raw_r, None)  # type: ignore[arg-type]


def _ask_fork(sock, lock: threading.Lock, msg: dict, fds: tuple[int, ...]) -> tuple[int, int]:
    """Send MSG and FDS to a fork server (harness/entry.py fork_server); (the child's pid, a pidfd)."""
    with lock:
        _send_ask(sock, msg, fds)
        return _fork_answer(sock)


def _send_ask(sock, msg: dict, fds: tuple[int, ...], flags: int = 0) -> None:
    """MSG and FDS sent to a fork server; its answer is read by _fork_answer, before anything else
    is asked of it."""
    import socket

    sock.sendmsg([json.dumps(msg).encode()],
                 [(socket.SOL_SOCKET, socket.SCM_RIGHTS, b"".join(fd.to_bytes(4, sys.byteorder) for fd in fds))],
                 flags)


def _fork_answer(sock) -> tuple[int, int]:
    """A fork server's answer to the ask sent last (_send_ask): (the child's pid, a pidfd)."""
    import socket

    ready = select.select([sock], [], [], START_TIMEOUT)[0]
    if not ready:
        raise OSError("the sandbox template did not answer")
    data, got, _, _ = socket.recv_fds(sock, 4096, 1)
    if not data:
        raise OSError("the sandbox template is gone")
    pid = int(json.loads(data)["pid"])
    if not got:
        raise OSError("the sandbox template sent no pidfd")
    return pid, got[0]


def _fit_pipe(fd: int, size: int) -> None:
    """Make pipe FD hold SIZE bytes where Linux allows (F_SETPIPE_SZ), so the template's boot code
    (~190 KB) is written at once instead of blocking until the new interpreter reads it (~6 ms
    of a cold `grade`'s main thread)."""
    import fcntl

    try:
        fcntl.fcntl(fd, getattr(fcntl, "F_SETPIPE_SZ", 1031), size)
    except OSError:
        pass          # over /proc/sys/fs/pipe-max-size, or not Linux: written in parts, as before


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


@functools.lru_cache(maxsize=8)
def _flags(python: str) -> tuple[str, ...]:
    """-s -S -P -B; without -P (Python 3.11+) for a Python 3.10 given with `--python`, whose BOOT
    then drops the cwd from sys.path itself."""
    if python == _realpath(sys.executable):
        new = sys.version_info >= (3, 11)
    else:
        try:
            done = subprocess.run([python, "-S", "-c", "import sys; print(sys.version_info >= (3, 11))"],
                                  capture_output=True, text=True, timeout=20)
            new = done.stdout.strip() != "False"
        except (OSError, subprocess.TimeoutExpired):
            new = True              # (it will not start either way: the start says why)
    return ("-s", "-S", "-P", "-B") if new else ("-s", "-S", "-B")


def _spawn(env: dict[str, str], cwd: str, cleanup_dir: str | None) -> _Proc:
    """Start the child: `python -s -S -P -B -c BOOT <result fd>` in its own session.

    Not `-I`: it implies -E, which would ignore PYTHONHASHSEED=0 (deterministic set order).
    The environment is entirely ours, so -s -S -P give the same isolation as -I."""
    with _child_pipes() as ((ctl_r, res_w, raw_w), (ctl_w, res_r, raw_r)):
        popen = subprocess.Popen(
            [_python(), *_flags(_python()), "-c", BOOT, str(res_w)],
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


@functools.lru_cache(maxsize=16)
def compiled_reference(text: str) -> bytes | None:
    """TEXT (the reference or a reference_without of it: trusted code, never a student's) compiled
    once per machine (codecache.py), read once per grader process, marshalled (sent raw after the
    life's config: Sandbox._start): the sandbox loads it in ~0.05 ms instead of compiling it in
    every sandbox life (~2 ms).  None when the sandbox runs another interpreter than this one (the
    marshal format is per version): then the sandbox compiles the text."""
    if _python() != _realpath(sys.executable):
        return None
    try:
        return codecache.compiled(text, "<reference>")     # once per machine (codecache.py)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None                # the sandbox compiles it and says what is wrong, as before


def _harness_source() -> bytes:
    """The harness, compiled once per machine (codecache.py) and marshalled, read once per process;
    its source text when the sandbox runs another interpreter than this one (`--python`)."""
    global _harness_cache
    if _python() != _realpath(sys.executable):
        return SOURCE_MARK + harness.source().encode("utf-8")
    if _harness_cache is None:
        _harness_cache = codecache.compiled(harness.source(), "<sandbox-harness>")
    return _harness_cache
