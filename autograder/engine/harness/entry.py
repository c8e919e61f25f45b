"""Entry points: main (python -c BOOT <fd>), sandbox_main (one sandbox: config, isolate, serve),
template_main (the grader's pre-booted template that forks one sandbox per request),
root_template_main (a root template: forked by the template, builds what every student root of
a session shares once, forks the student roots) and root_main (a student root: forks that
student's sandbox lives)."""

import _signal
import gc
import marshal
import os
import select
import signal
import sys
import traceback

from .audit import _AUDIT_ON
from .base import _dumps, _loads_line, _monotonic, _real_exit
from .clean import CleanState
from .errors import compile_source
from .isolation import (
    ChildPidNamespace,
    _libc,
    become_sandbox_user,
    enter_life_namespaces,
    enter_namespaces,
    limit_self,
    outer_wait,
    prepare_seccomp,
    root_own,
    root_setup,
    runtime_layout,
)
from .lines import Lines, _pidfd, write_all, write_line
from .patches import install_patches, prepare_random
from .proctree import _kill
from .run import _BALLAST, _reserve
from .versions import version_reader
from .warm import warm_template
from .zygote import Zygote


def main():
    if sys.argv[1] == "template":
        template_main(int(sys.argv[2]))
    res_fd = int(sys.argv[1])
    ctl_fd = os.dup(0)                      # requests; fd 0 itself becomes /dev/null
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    sandbox_main(ctl_fd, res_fd)


def sandbox_main(ctl_fd, res_fd, built=None, compile_fd=None, given=None):
    """One sandbox: read its config, isolate (as root: namespaces, minimal root, uid, seccomp),
    then serve requests as the zygote.  Never returns.  BUILT: forked by a student root, what it
    built for all its lives (the minimal root).  COMPILE_FD: the root's first life, which
    compiles the student's source for the lives after it (student_code).  GIVEN: what its fork
    server handed it (_Given), else nothing."""
    given = given or _Given()
    ctl = Lines(ctl_fd)
    try:
        cfg = read_config(ctl_fd)
        applied = {"root": bool(cfg.get("root"))}
        if cfg.get("root"):
            pid1 = built is not None and os.getpid() == 1     # forked by its root into its own pid namespace
            if cfg.get("namespaces") and built is not None:
                applied.update(enter_life_namespaces(cfg, built, pid1))
                applied["student_root"] = _SHARED_WITH_ROOT[pid1] + applied.pop("shares", [])
            elif cfg.get("namespaces"):
                applied.update(enter_namespaces(cfg))
            if cfg.get("pidns") and not pid1:
                pid = os.fork()
                if pid:
                    outer_wait(pid, (ctl_fd, res_fd) if compile_fd is None else (ctl_fd, res_fd, compile_fd))
            applied.update(become_sandbox_user(cfg, late_ipc=built is not None, parent_death=not pid1,
                                               ready=given.seccomp))
        else:
            applied.update(limit_self(cfg))
        load_reference(cfg)
        if built is not None:
            applied.update(student_code(cfg, compile_fd, given.compiled))
        zygote = Zygote(cfg, ctl, ctl_fd, res_fd, applied, given.snapshot)
    except BaseException:
        write_line(res_fd, {"t": "fatal", "error": traceback.format_exc()})
        _real_exit(1)
    zygote.serve()


# What a life forked by its student root shares with the root and its other lives.  As the pid 1 of
# its own namespace (no outer process) it stays in the root's session and process group: a
# process group of its own would be visible in its namespace (kill(-getpgrp()) would become
# kill(-1)); in the root's, getpgrp() is 0 there as before, and a signal to the group reaches only
# processes of the sender's own uid, i.e. its own life.
_SHARED_WITH_ROOT = {False: ["uts", "readonly_root"], True: ["uts", "readonly_root", "session"]}


def student_code(cfg, compile_fd, data):
    """A life forked by its student root (after its uid drop, rlimits, no_new_privs and seccomp):
    the root's first life (COMPILE_FD) compiles the student's source, as a zygote always did, and
    sends it marshalled, with the source and file name, to the root on a pipe of its own, closed
    before any request process exists (no student code has run in this life yet); the root keeps
    those bytes unread and hands them (DATA) to each later life, which uses the code only for the
    very source and file name it was sent.  Returns what to add to `applied`."""
    if compile_fd is not None:
        cfg["compiled"] = compile_source(cfg["source"], cfg["filename"])
        try:
            write_all(compile_fd, marshal.dumps((cfg["source"], cfg["filename"], cfg["compiled"])))
        except (OSError, ValueError):
            pass                    # (the root then has nothing: each later life compiles)
        finally:
            os.close(compile_fd)
        return {"compiled": "first_life"}
    if not data:
        return {}
    try:
        source, filename, pair = marshal.loads(data)
    except (EOFError, ValueError, TypeError):
        return {}
    if (source, filename) != (cfg["source"], cfg["filename"]) or type(pair) is not tuple or len(pair) != 2:
        return {}
    cfg["compiled"] = pair
    return {"compiled": "student_root"}


def read_config(fd):
    """The config the grader sends first on FD (Sandbox._start): its JSON line's length (16 bytes),
    the line, then its "blobs" (raw bytes: the source, the reference's code), each read into its
    name (the source left as its UTF-8 bytes: compile_source decodes it).  Read by exact sizes, nothing ahead of it: no 64 KB chunk
    and buffer copies of what follows the line (~30 page copies a life); requests follow."""
    cfg = _loads_line(_read_exact(fd, int(_read_exact(fd, 16))).rstrip(b"\n"))
    for name, size in cfg.pop("blobs", None) or ():
        cfg[name] = _read_exact(fd, size)
    return cfg



def _read_exact(fd, size):
    parts = []
    while size > 0:
        data = os.read(fd, size)
        if not data:
            raise EOFError("the grader's config ended early")
        parts.append(data)
        size -= len(data)
    return b"".join(parts)      # (one part, as usual: that very object, no copy)


def load_reference(cfg):
    """The reference's code the grader compiled (trusted; marshalled by this very interpreter), in
    CFG["reference_loaded"]: the zygote binds it once it adopted its clean-state snapshot
    (Zygote.bind_reference)."""
    data = cfg.pop("reference_code", None)
    if data:
        cfg["reference_loaded"] = marshal.loads(data)


def template_main(sock_fd):
    """The grader's pre-booted template (root, grader-side, never sees student code or a config):
    the interpreter is started and this harness is loaded once; for each sandbox the grader
    sends its three pipe ends (SCM_RIGHTS) and the environment, the template forks, and the
    child becomes exactly what `python -c BOOT <fd>` would be at that point: its own session,
    the scrubbed environment, fresh random state, only those pipes open; it then reads its
    config and isolates itself (sandbox_main), as a spawned sandbox does.  The template answers
    with a pidfd of the child (the grader's handle on it: wait, kill, cgroup) and exits at end
    of input.  It reaps its children as they exit (so their CPU time is counted as the grader's).
    It also forks student roots (root_main) on request: one socket end instead of three pipes."""
    import _socket
    import ctypes  # noqa: F401  (the isolation setup loads them: every child has them already)
    import resource  # noqa: F401
    # BOOT's names: the marshalled harness it read (~250 KB, mapped in every process forked from
    # here: page tables copied at each fork, unmapped at each exit) and its reader, no longer used.
    globals().pop("_h", None)
    globals().pop("_read", None)
    _libc()                       # (every fork has it: see isolation._libc)
    runtime_layout()              # (and what the minimal root binds and hides: isolation.build_root)
    _BALLAST[0] = _reserve()      # (and the zygote's ballast: a private mapping, untouched, each fork's own)
    given = _Given()
    if version_reader([])[0] is not None:    # a fresh runner is possible: its clean-state snapshot
        #                                      walked once per session, not per sandbox (see Zygote)
        prepare_random()          # the patches every request installs, installed here for good
        install_patches(TEMPLATE_FILE)  # (each process forked from here has them: nothing to redo)
        _warm()                   # (the request path quickened here, before the snapshot: warm.py)
        given.snapshot = _zygotes_snapshot()
    sock = _socket.socket(fileno=sock_fd)
    os.dup2(os.open(os.devnull, os.O_RDWR), 0)
    gc.collect()
    held = _fill_pools()          # noqa: F841  (alive in this frame, so in every fork, never freed)
    fork_server(sock, given, roots=True)


class _Given:
    """What a fork server hands each sandbox it forks, kept in its own frame, never in our names:
    the template's clean-state snapshot, and in a student root its lives' prepared seccomp filter
    and the first life's compiled code.  Our names (and the lists they hold) are the snapshot's
    own: one set after the template took it (a one-slot list then) made each fresh runner's
    first reading of the watched lists differ from the snapshot's (~30 page copies a runner)."""
    __slots__ = ("snapshot", "seccomp", "compiled", "shared")

    def __init__(self, snapshot=None, seccomp=None, compiled=None, shared=None):
        self.snapshot, self.seccomp, self.compiled = snapshot, seccomp, compiled
        self.shared = shared      # a root template's (setup, built, ChildPidNamespace or None)


def _zygotes_snapshot():
    """The template's clean-state snapshot, taken with the one harness state every zygote sets
    before it adopts it (its audit hook's flag: Zygote installs the hook first), so that a
    fresh runner reads the watched lists as the snapshot read them; no hook is installed here."""
    _AUDIT_ON[0] = True
    try:
        return CleanState(TEMPLATE_FILE, patched=True)
    finally:
        _AUDIT_ON[0] = False


def _fill_pools():
    """The free blocks of the template's partly used pymalloc pools taken by inert objects (zero
    bytes of each size class, kept alive here), so that what each fork allocates lands in
    fresh pools, block after block, instead of in the template's free blocks scattered over pages
    it would copy on write, one page each (~235 fewer page faults a grade, docs/floor.md).  The
    counts are pymalloc's own (_free_blocks); anything unexpected: no fill, which costs only its
    speed."""
    try:
        free = [(size, n) for size, n in _free_blocks().items() if size > 32]
        held = [None] * sum(n for _, n in free)
        i = 0
        for size, n in free:
            for _ in range(n):
                held[i] = bytes(size - _BYTES_HEAD)   # (an object of exactly SIZE bytes: that class)
                i += 1
        return held
    except (AttributeError, OSError, ValueError):
        return None


def _free_blocks():
    """{block size: free blocks} of this process's pymalloc, in size order (sys._debugmallocstats,
    read from fd 2, which is put back as it was).  AttributeError without those statistics."""
    r, w = os.pipe()
    os.set_blocking(w, False)       # (a full pipe drops the rest: never a template stuck here)
    saved = os.dup(2)
    os.dup2(w, 2)
    try:
        sys._debugmallocstats()
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(w)
    try:
        text = os.read(r, 1 << 16)       # (~3 KB, written whole before this read)
    finally:
        os.close(r)
    free = {}
    for line in text.decode("ascii", "replace").splitlines():
        cols = line.split()                 # class, size, pools, blocks in use, free blocks
        if len(cols) == 5 and all(c.isdigit() for c in cols):
            free[int(cols[1])] = int(cols[4])
    return free


_BYTES_HEAD = 33     # sys.getsizeof(b""): a bytes object's header and its terminating NUL


def _warm():
    """warm.warm_template, whose failure costs only its speed."""
    try:
        warm_template(TEMPLATE_FILE, {"wall_s": 60.0, "cpu_s": 60, "output_chars": 200_000})
    except Exception:
        pass


def root_main(sock, setup, given, env):
    """A student root: forked for one student by a root template (GIVEN.shared: what it built;
    the root then makes only its own mount, uts and net namespaces, isolation.root_own), else by
    the template (root; it never receives a config, a source, the reference or student data, and
    never runs student code).  It builds what all of that student's sandbox lives can share once
    (its own mount and uts namespaces and the minimal read-only root: isolation.root_setup),
    says so on its socket, then forks one sandbox life per
    request exactly as the template does; each life makes its own mount, ipc and pid namespaces
    (and net, unless it shares the root's), private folders, uid, rlimits and seccomp
    (isolation.enter_life_namespaces).  Its
    first life compiles the student's source for the others (student_code).  GIVEN: the
    template's (its snapshot); ENV: the environment this root was given, its lives' too."""
    def build():
        if given.shared is not None:        # forked by a root template: only what is its own
            shared_setup, built, pidns = given.shared
            return pidns, root_own(shared_setup, built), _Given(given.snapshot, given.seccomp)
        pidns = _child_pid_namespace()      # (each life installs the filter prepared here)
        return pidns, root_setup(setup), _Given(given.snapshot, prepare_seccomp(_libc(), setup.get("seccomp")))

    pidns, built, given = _root_ready(sock, build)
    fork_server(sock, given, built=built, pidns=pidns, env=env)


def root_template_main(sock, setup, given):
    """A root template: forked by the template once per distinct setup of a session (root; it
    never receives a config, a source, the reference or student data, and never runs student
    code).  It builds the minimal read-only root (isolation.root_setup, without a net namespace)
    and prepares the filter once, then forks one student root per request (root_main), which
    makes only its own mount, uts (and net) namespaces (isolation.root_own)."""
    def build():
        pidns = _child_pid_namespace()
        built = root_setup(setup, own=False)
        return pidns, built, _Given(given.snapshot, prepare_seccomp(_libc(), setup.get("seccomp")),
                                    shared=(setup, built, pidns))

    _, _, given = _root_ready(sock, build)
    fork_server(sock, given, roots="only")


def _root_ready(sock, build):
    """A root's (a student root's or a root template's) start: BUILD() -> (its ChildPidNamespace
    or None, what it built, its _Given), said on SOCK: "ready" (with whether it forks each child
    as the pid 1 of a new pid namespace), or "fatal" with the error, and the root exits."""
    try:
        pidns, built, given = build()
    except BaseException:
        sock.send(_dumps({"t": "fatal", "error": traceback.format_exc()[-2000:]}).encode())
        _real_exit(1)
    sock.send(_dumps({"t": "ready", "pid1": pidns is not None}).encode())
    return pidns, built, given


def _child_pid_namespace():
    try:
        return ChildPidNamespace()
    except OSError:
        return None                 # each life forks once more into its own pid namespace


def fork_server(sock, given, roots=False, built=None, pidns=None, env=None):
    """Fork one sandbox process per message on SOCK (its three pipe ends come with it), or a
    student root or root template (ROOTS; one socket end comes with it); answer each with the
    child's pid and a pidfd; exit at end of input.  GIVEN (_Given): what each child is handed.
    BUILT: in a student root, what it set up.  PIDNS (a student root's ChildPidNamespace): each
    sandbox is forked as the pid 1 of a new one.  ENV: a student root's own environment.  ROOTS
    "only": a root template, which forks student roots and nothing else; True: the template, which
    also forks root templates (op "roots")."""
    import _socket
    signal.signal(signal.SIGCHLD, _reap_children)
    space = _socket.CMSG_SPACE(3 * 4)
    gc.collect()
    gc.freeze()
    last = None
    while True:
        try:
            data, anc, _, _ = sock.recvmsg(1 << 16, space)
        except InterruptedError:
            continue
        except OSError:
            break
        fds = []
        for level, kind, payload in anc:
            if level == _socket.SOL_SOCKET and kind == _socket.SCM_RIGHTS:
                fds += memoryview(payload)[:len(payload) - len(payload) % 4].cast("i").tolist()
        if not data:
            break
        try:
            if last is None or data != last[0]:
                msg = _loads_line(data)        # (the grader's ASCII JSON: the C scanner alone)
                last = (data, msg, built is not None and _wanted_env(msg) == env)
            msg, env_set = last[1], last[2]
            op = msg.get("op") if roots else None
            root = op in ("root", "roots") and (op == "root" or roots is True)
            if len(fds) != (1 if root else 3) or (roots == "only" and op != "root"):
                raise ValueError("wrong number of fds")
        except (ValueError, TypeError, AttributeError, KeyError):
            for fd in fds:
                os.close(fd)
            continue
        compiles = None         # a student root's first life compiles for the others (student_code)
        if built is not None and not root and given.compiled is None:
            compiles = os.pipe()
            given.compiled = b""
        entered = pidns is not None and not root and pidns.enter()
        pid = os.fork()
        if pid == 0:
            try:
                sock.close()
                if op == "roots":
                    _root_template_child(msg, fds[0], given)
                elif root:
                    _root_child(msg, fds[0], given)
                else:
                    _template_child(msg, *fds, built=built, compile_fd=compiles and compiles[1], env_set=env_set,
                                    given=given)
            finally:
                _real_exit(HARNESS_SPAWN_FAILED)
        if compiles is not None:
            os.close(compiles[1])
        if entered:
            try:
                pidns.leave()
            except OSError:
                _kill(pid)
                break              # (the grader's lives fork from the template instead)
        for fd in fds:
            os.close(fd)
        pidfd = _pidfd(pid)
        said = b'{"pid":%d}' % pid       # (_dumps's bytes, without its Python: a root's pages copied
        try:                             # again after each fork are what each loop touches)
            if pidfd is None:
                sock.send(said)
            else:
                sock.sendmsg([said],
                             [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, pidfd.to_bytes(4, sys.byteorder))])
        except OSError:
            _kill(pid)
            break
        finally:
            if pidfd is not None:
                os.close(pidfd)
        if compiles is not None:    # (the next life is forked once this one's code is here)
            given.compiled = _read_compiled(compiles[0])
    _reap_children()                 # the lives that ended: their CPU time counts as the grader's
    _real_exit(0)


MAX_COMPILED = 64 << 20       # bytes of a marshalled student module a student root accepts
COMPILE_WAIT = 10.0           # seconds a student root waits for its first life's compiled code


def _read_compiled(fd):
    """The bytes the first life writes on FD until it closes it (never unmarshalled here), or
    b"" (too big, too late, or it died first: each later life then compiles the source itself)."""
    parts, size, deadline = [], 0, _monotonic() + COMPILE_WAIT
    try:
        while size <= MAX_COMPILED:
            left = deadline - _monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return b""
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return b"".join(parts)
            parts.append(chunk)
            size += len(chunk)
        return b""
    except OSError:
        return b""
    finally:
        os.close(fd)


HARNESS_SPAWN_FAILED = 118
TEMPLATE_FILE = "<template>"


def _reap_children(signum=None, frame=None):
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _template_child(msg, ctl_fd, res_fd, raw_fd, built=None, compile_fd=None, env_set=False, given=None):
    """In the fork of the template (or of a student root): set up what a freshly spawned sandbox
    process has, then run.  ENV_SET: its parent found the message's environment its own."""
    keep = (ctl_fd, res_fd) if compile_fd is None else (ctl_fd, res_fd, compile_fd)
    _fresh_process(msg, keep, raw_fd, own_session=os.getpid() != 1, env_set=env_set)   # (_SHARED_WITH_ROOT)
    sandbox_main(ctl_fd, res_fd, built, compile_fd, given)


def _root_child(msg, sock_fd, given):
    """In the fork (of a root template, or of the template) that becomes a student root: it keeps
    its root template's handle on their pid namespace (ChildPidNamespace), if any."""
    import _socket
    devnull = os.open(os.devnull, os.O_RDWR)
    pidns = given.shared[2] if given.shared is not None else None
    keep = (sock_fd,) if pidns is None else (sock_fd, pidns.own)
    env = _fresh_process(msg, keep, devnull)       # (fd 0 is the template's /dev/null)
    root_main(_socket.socket(fileno=sock_fd), msg.get("setup") or {}, given, env)


def _root_template_child(msg, sock_fd, given):
    """In the template's fork that becomes a root template."""
    import _socket
    devnull = os.open(os.devnull, os.O_RDWR)
    _fresh_process(msg, (sock_fd,), devnull)
    root_template_main(_socket.socket(fileno=sock_fd), msg.get("setup") or {}, given)


def _wanted_env(msg):
    return {str(k): str(v) for k, v in msg["env"].items()}


def _fresh_process(msg, keep_fds, out_fd, own_session=True, env_set=False):
    """Its own session (OWN_SESSION), OUT_FD as fds 1 and 2, only KEEP_FDS open besides, the
    message's environment (ENV_SET: found to be this process's already, by its parent) and
    folder, fresh random state (as a new interpreter would have).  Returns the environment (None
    with ENV_SET)."""
    _signal.signal(signal.SIGCHLD, _signal.SIG_DFL)       # (not signal.signal: its enum wrapping
    if own_session:                                       # touches ~70 pages in a fresh fork)
        os.setsid()
    os.dup2(out_fd, 1)
    os.dup2(out_fd, 2)
    keep = sorted({0, 1, 2, *keep_fds})
    for lo, hi in zip(keep, keep[1:] + [1 << 20]):
        if hi > lo + 1:
            os.closerange(lo + 1, hi)
    wanted = None if env_set else _wanted_env(msg)
    if wanted is not None:          # (a student root's lives: the root has theirs, StudentRoot)
        if list(os.environ) != list(wanted):
            os.environ.clear()
        for key, value in wanted.items():
            if os.environ.get(key) != value:
                os.environ[key] = value
    os.chdir(msg["cwd"])
    # (Not the template's random state: random's own at-fork hook reseeded it from os.urandom in
    # this fork already; a second random.seed() here cost ~30 us and a few page copies a life.)
    return wanted


if __name__ == "__main__":
    main()
