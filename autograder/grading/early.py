"""grade-all's fork server forked from `python -m autograder` itself, first thing (__main__.py).

multiprocessing starts its fork server as a new interpreter when the pool asks for it, once the
verb's modules are imported and its options read (~45 ms of the parent's CPU after Python's own
start); that interpreter then starts Python again (~27 ms of CPU, `site` included) before its
imports (pytest, the engine: ~0.2 s).  Its boot is the head's longest serial stretch: nothing is
graded before it is done.  Here the command forks it before anything else is imported: the child
is an interpreter already started, and imports what every grading session needs (the fork
server's preload but for `grading.preload`, which reads the session's assignment and stage) on the
other core while the parent reads its options and finds the submissions.  When the pool starts
its fork server (workers.WorkerPool._ensure_running), it hands this one what multiprocessing would
have given a new one (hand_over: its environment, its path, the preload's list, its output), and
multiprocessing's own fork server loop (forkserver.main) runs in it from then on: the workers,
their sessions and everything after are what they were.

What the child holds before then: no output of the command's (its stdout and stderr are a
memory file until it is handed its log, so a reader of ours to its end never waits for it),
nothing inherited but its three pipes, the socket it listens on (multiprocessing's own kind: a
0600 socket in a private 0700 folder) and no student file (none is read before the pool starts).
It leaves as soon as the parent is gone (its end of the `alive` pipe at its end of file), or when
it is never wanted (the parent exits without a hand-over), and the pool then starts a fork server
as before whenever this one cannot be used (gone, or a Python whose fork server differs).
$AUTOGRADER_EARLY_SERVER=0: never forked.
"""

from __future__ import annotations

import os
import sys

EARLY_ENV = "AUTOGRADER_EARLY_SERVER"

# What grade-all's fork server imports before it forks a worker (multiprocessing's preload;
# grading.preload, last, prepares the session of $AUTOGRADER_PRELOAD_SESSION: grading/preloading.py)
FORK_SERVER_PRELOAD = ["autograder.grading.grade", "autograder.engine.plugin", "autograder.grading.worker",
                       "autograder.engine.reporters", "autograder.grading.gradebook", "autograder.grading.preload"]

# forkserver.main's parameters where this module knows what they are (3.11-3.13); another Python: no early one
_MAIN_PARAMETERS = ("listener_fd", "alive_r", "preload", "main_path", "sys_path")


class _Forked:
    """The parent's side of a fork server forked early: its pid, the pipe its address comes on,
    the write end of its `alive` pipe (multiprocessing's: every client holds it) and of its `hold`
    pipe (closed: no more imports until it is handed over, hold())."""

    def __init__(self, pid: int, address_r: int, alive_w: int, hold_w: int):
        self.owner = os.getpid()
        self.pid, self.address_r, self.alive_w, self.hold_w = pid, address_r, alive_w, hold_w

    def hold(self) -> None:
        if self.hold_w >= 0:
            os.close(self.hold_w)
            self.hold_w = -1


_forked: _Forked | None = None


def fork_server_early(words: list[str]) -> None:
    """Fork grade-all's fork server now, for the command line WORDS (the verb's: not for help)."""
    global _forked
    if (_forked is not None or os.environ.get(EARLY_ENV) == "0" or not sys.platform.startswith("linux")
            or any(w in ("-h", "--help") for w in words)):
        return
    address_r, address_w = os.pipe()
    alive_r, alive_w = os.pipe()
    hold_r, hold_w = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        for fd in (address_r, address_w, alive_r, alive_w, hold_r, hold_w):
            os.close(fd)
        return
    if pid == 0:                                    # (never returns: not into the command's code)
        code = 1
        try:
            for fd in (address_r, alive_w, hold_w):
                os.close(fd)
            code = _serve(address_w, alive_r, hold_r)
        except SystemExit as ended:                 # forkserver.main's end: its last client gone
            code = ended.code if isinstance(ended.code, int) else 0
        except BaseException as error:              # noqa: BLE001 -- said on its output, then gone
            sys.last_value = error                  # (as an uncaught one: no quick exit with 0)
            try:
                import traceback

                traceback.print_exc()
            except BaseException:                   # noqa: BLE001
                pass
        finally:
            _exit(code)
    for fd in (address_w, alive_r, hold_r):
        os.close(fd)
    _forked = _Forked(pid, address_r, alive_w, hold_w)


def hold() -> None:
    """The command may not need a fork server (grade_all: a gradebook there, or --only; it may find
    nothing to grade): the one forked early imports nothing more until it is handed over (its
    preload's ~0.2 s of CPU would compete with the command's own work for nothing)."""
    if _forked is not None and _forked.owner == os.getpid():
        _forked.hold()


def hand_over(preload: list[str], data: dict, fds: tuple[int, int]) -> bool:
    """Make the fork server forked early multiprocessing's fork server (for this process's pool),
    handing it this process's environment, PRELOAD (the modules it imports before it serves: the
    session's last), DATA (what forkserver.ensure_running gives a new one: main_path, sys_path)
    and FDS (its stdout and stderr).  False (and nothing changed) when there is none or it cannot
    be used: the caller starts one as before.  Once."""
    global _forked
    forked, _forked = _forked, None
    if forked is None or forked.owner != os.getpid():
        return False
    forked.hold()
    import json
    import socket
    from multiprocessing import forkserver

    server = forkserver._forkserver
    address = _read_all(forked.address_r)
    os.close(forked.address_r)
    if not address or server._forkserver_pid is not None or getattr(server, "_forkserver_address", 0) is not None:
        return _let_go(forked)
    message = json.dumps({"env": dict(os.environ), "preload": list(preload), "data": data}).encode()
    try:
        with socket.socket(socket.AF_UNIX) as client:
            client.connect(address.decode())
            socket.send_fds(client, [message[:1]], list(fds))
            client.sendall(message[1:])
    except OSError:
        return _let_go(forked)
    server._forkserver_address = address.decode()
    server._forkserver_alive_fd = forked.alive_w
    server._forkserver_pid = forked.pid
    return True


def _let_go(forked: _Forked) -> bool:
    """FORKED is not used: its `alive` pipe closed (it leaves by itself) and reaped if gone already."""
    os.close(forked.alive_w)
    try:
        os.waitpid(forked.pid, os.WNOHANG)
    except ChildProcessError:
        pass
    return False


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 4096):
        chunks.append(chunk)
    return b"".join(chunks)


# --- the child -------------------------------------------------------------------------------------

def _exit(code: int) -> None:
    """The child's end, as a process's: its atexit functions (its private folder removed; a fork
    server's quick exit, preloading.exit_quickly, ends it with 0 there), its output flushed."""
    import atexit

    try:
        atexit._run_exitfuncs()
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
    finally:
        os._exit(code)


def _yield_to_parent() -> int | None:
    """Until the hand-over, the child runs at a lower priority than the parent (nice +10): on a
    busy machine the command's processes share one scheduling group (one per session), and the
    parent's way to the pool's start (its options, then the sandbox templates it boots: processes
    of their own groups) must not wait on the child's imports, which take what the parent leaves
    (the other core, on a quiet machine: all of it).  Only as root, who may raise its priority
    back at the hand-over (its workers inherit it): the niceness to go back to, else None."""
    if os.geteuid() != 0:
        return None
    try:
        old = os.getpriority(os.PRIO_PROCESS, 0)
        os.setpriority(os.PRIO_PROCESS, 0, min(old + 10, 19))
    except OSError:
        return None
    return old


def _serve(address_w: int, alive_r: int, hold_r: int) -> int:
    """The child: its address sent, the preload imported (until held), then (handed over)
    forkserver.main, which imports what is left of it."""
    sink = os.memfd_create("fork-server-early", os.MFD_CLOEXEC)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(sink, 1)
    os.dup2(sink, 2)
    keep = sorted({0, 1, 2, sink, address_w, alive_r, hold_r})
    for low, high in zip(keep, [*keep[1:], None]):
        os.closerange(low + 1, high if high is not None else os.sysconf("SC_OPEN_MAX"))
    niced = _yield_to_parent()
    import atexit
    import importlib
    import select
    import shutil
    import socket
    import tempfile
    from multiprocessing import forkserver

    code = forkserver.main.__code__
    if code.co_varnames[:code.co_argcount] != _MAIN_PARAMETERS:
        return 0                                    # (its address never sent: the pool starts its own)
    folder = tempfile.mkdtemp(prefix="pymp-")      # (0700: only this uid reaches the socket)
    atexit.register(shutil.rmtree, folder, True)
    listener = socket.socket(socket.AF_UNIX)
    address = os.path.join(folder, "listener")
    listener.bind(address)
    os.chmod(address, 0o600)
    listener.listen()
    os.write(address_w, address.encode())
    os.close(address_w)
    from .tracing import trace

    imported = 0
    for name in FORK_SERVER_PRELOAD[:-1]:           # (held, or the parent gone: no more of them)
        if select.select([alive_r, hold_r], [], [], 0)[0]:
            break
        importlib.import_module(name)
        imported += 1
    trace("forkserver-early", imported=imported)
    os.close(hold_r)
    while True:                                     # the pool's hand-over, or the parent's end
        ready = select.select([listener, alive_r], [], [])[0]
        if alive_r in ready:
            return 0
        conn, _ = listener.accept()
        with conn:
            first, fds, _, _ = socket.recv_fds(conn, 1, 2)
            rest = _received(conn)
        if len(fds) == 2 and first:
            break
        for fd in fds:
            os.close(fd)
    import json

    handed = json.loads(first + rest)
    if niced is not None:                           # (as root: always allowed)
        os.setpriority(os.PRIO_PROCESS, 0, niced)
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    said = os.pread(sink, os.fstat(sink).st_size, 0)
    os.dup2(fds[0], 1)
    os.dup2(fds[1], 2)
    for fd in (*fds, sink):
        os.close(fd)
    if said:                                        # what it printed before it had its log
        os.write(2, said)
    os.environ.clear()
    os.environ.update(handed["env"])
    forkserver.main(listener.detach(), alive_r, handed["preload"], **handed["data"])   # (SystemExit at its end)
    return 0


def _received(conn) -> bytes:
    chunks = []
    while chunk := conn.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)
