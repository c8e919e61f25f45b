"""Student roots (a student's sandboxes forked by one root process: Family, StudentRoot) and the
root templates that fork them (RootTemplate: a student root's shared setup built once a session);
harness/entry.py root_template_main and root_main are their other side."""

from __future__ import annotations

import json
import os
import select
import subprocess
import threading

from . import seccomp
from .launch import (
    START_TIMEOUT,
    _ask_fork,
    _drop_template,
    _env,
    _fork_answer,
    _Forked,
    _Proc,
    _send_ask,
    _spawn_from,
    _Template,
)

MAX_ROOT_TEMPLATES = 4           # a template's root templates (one per distinct setup; a session has one)
LIFE_WORKDIR = "/tmp/work"       # a life's own folder, in its private /tmp (where it has namespaces)


class StudentRoot:
    """One student's root (harness/entry.py root_main): forked by the session's root template for
    its setup (RootTemplate), else by the template, root,
    never runs student code and never holds the reference.  It builds the minimal read-only root
    (its own mount and uts namespaces) once for all of that student's sandbox lives (the student's
    own and one per substitution variant), then forks each life, which makes everything else of
    its own (mount, ipc and pid namespaces, private /tmp, uid, cgroup, seccomp; the net namespace
    is the root's where the filter refuses every socket, harness/isolation.py root_setup).  Its first
    life compiles the student's source (after its own uid drop) and sends the marshalled code to
    the root, which hands it, unread, to the later lives (harness/entry.py student_code).  Saves
    the root's build and the compile of the source per life."""

    def __init__(self, template: _Template, setup: dict, env: dict[str, str] | None = None) -> None:
        """ENV: the environment of its lives, given to the root itself so that each life has it
        already (harness/entry.py _fresh_process sets nothing then; the root reads no variable).
        Forked by the template's root template for SETUP (RootTemplate) when it has one, else by
        the template itself."""
        self.owner = os.getpid()
        self.lock = threading.Lock()
        msg = {"op": "root", "env": env or _env("/"), "cwd": "/"}
        source = root_template(template, setup, msg["env"])
        if source is not None:
            try:
                self.sock, self.handle, self.pid1 = _start_root(source.sock, source.lock, msg)
                return
            except OSError:
                drop_root_template(template, source)
        self.sock, self.handle, self.pid1 = _start_root(template.sock, template.lock, dict(msg, setup=setup))

    def spawn(self, env: dict[str, str], cwd: str) -> _Proc:
        return _spawn_from(self.sock, self.lock, env, cwd)

    def alive(self) -> bool:
        return self.owner == os.getpid() and self.handle.poll() is None

    def close(self) -> None:
        """End of input: the root exits (the lives it forked live on until their sandboxes stop)."""
        if self.owner == os.getpid():
            _close_root(self.sock, self.handle)


def _start_root(sock, lock: threading.Lock, msg: dict) -> tuple:
    """A root (a student root, or a root template) forked on SOCK with MSG: (our end of its
    socket, its handle, whether it forks each life as the pid 1 of a new pid namespace)."""
    import socket

    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        pid, pidfd = _ask_fork(sock, lock, msg, (theirs.fileno(),))
    except BaseException:
        ours.close()
        raise
    finally:
        theirs.close()
    return _root_ready(ours, _Forked(pid, pidfd))


def _root_ready(ours, handle: _Forked) -> tuple:
    """(OURS, HANDLE, pid1) once the root on OURS says it is ready (else OSError, and it is closed)."""
    try:
        if not select.select([ours], [], [], START_TIMEOUT)[0]:
            raise OSError("the root did not answer")
        reply = ours.recv(1 << 16)
        got = json.loads(reply) if reply else {}
        if got.get("t") != "ready":
            raise OSError(f"the root did not start: {got.get('error') or 'no answer'}")
    except BaseException:
        _close_root(ours, handle)
        raise
    return ours, handle, got.get("pid1") is True


def _close_root(sock, handle: _Forked) -> None:
    sock.close()
    try:
        handle.wait(timeout=5)
    except subprocess.TimeoutExpired:
        handle.kill()


class RootTemplate:
    """A root template (harness/entry.py root_template_main): forked by the session's template once
    per distinct student-root setup, root, never receives a config, a source, the reference or
    student data and never runs student code.  It builds the minimal read-only root and prepares
    the filter once; each student root it forks makes only its own mount, uts (and net)
    namespaces."""

    def __init__(self, template: _Template, setup: dict, env: dict[str, str]) -> None:
        """ENV: the environment of its student roots' lives, its own (so theirs already)."""
        self.owner = os.getpid()
        self.lock = threading.Lock()
        self.sock, self.handle, _ = _start_root(template.sock, template.lock,
                                                {"op": "roots", "env": env, "cwd": "/", "setup": setup})

    def alive(self) -> bool:
        return self.owner == os.getpid() and self.handle.poll() is None

    def close(self) -> None:
        if self.owner == os.getpid():
            _close_root(self.sock, self.handle)


class Family:
    """The sandboxes of one student (a Program and its substitution variants): they share one
    StudentRoot, started with the first of them, where sandboxes fork from a template."""

    def __init__(self, hidden: list[str]) -> None:
        self.hidden = list(hidden)
        self.root: StudentRoot | None = None
        self.failed = False
        self.lock = threading.Lock()

    def forker(self, template: _Template, setup: dict, env: dict[str, str] | None = None) -> StudentRoot | None:
        """The family's root (started now if need be, with SETUP and the hidden paths, and ENV: its
        lives' environment), or None: fork from TEMPLATE instead."""
        with self.lock:
            if self.root is not None and not self.root.alive():
                self.drop_locked()
            if self.root is None and not self.failed:
                try:
                    self.root = StudentRoot(template, root_setup(setup["seccomp"], setup["sockets_refused"],
                                                                 self.hidden), env)
                except OSError:
                    self.failed = True          # this student's lives fork from the template
            return self.root

    def drop(self) -> None:
        with self.lock:
            self.drop_locked()

    def drop_locked(self) -> None:
        root, self.root = self.root, None
        if root is not None:
            root.close()

    def close(self) -> None:
        self.drop()


def root_setup(seccomp_hex: str, sockets_refused: bool, hidden: list[str]) -> dict:
    """What a student root is built with (Family.forker), which keys its root template: the filter
    (hex), whether it refuses every socket, the folders its lives must not see (resolved)."""
    return {"seccomp": seccomp_hex, "sockets_refused": sockets_refused, "hidden": list(hidden)}


def _key(setup: dict, env: dict[str, str]) -> str:
    return json.dumps([setup, env], sort_keys=True)


def ask_root_template(sock, hidden: list[str]) -> tuple[str, object]:
    """Ask the template on SOCK, booted by this process for another one (launch.Booted), to fork
    now the root template that a student root of a Family hiding HIDDEN comes from (as
    life.Starting._start asks it where lives fork from a template: this machine's filter, the life's
    folder LIFE_WORKDIR), without waiting for its answer (it is still booting, maybe): (the key of
    that root template, our end of its socket), for the adopter (adopt_root_template), which reads
    the template's answer before it asks anything else.  It builds the minimal root meanwhile, off
    the adopter's first student's way.  OSError: not asked."""
    import socket

    bpf = seccomp.filter_bpf()
    setup = root_setup((bpf or b"").hex(), seccomp.refuses_sockets(),
                       [os.path.realpath(p) for p in hidden])       # (as Sandbox.hidden_paths)
    env = _env(LIFE_WORKDIR)
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        _send_ask(sock, {"op": "roots", "env": env, "cwd": "/", "setup": setup}, (theirs.fileno(),),
                  socket.MSG_DONTWAIT)
    except BaseException:
        ours.close()
        raise
    finally:
        theirs.close()
    return _key(setup, env), ours


def adopt_root_template(template: _Template, key: str, ours) -> None:
    """The root template the booter of TEMPLATE asked of it (ask_root_template: KEY, OURS), made
    TEMPLATE's own for that setup, as if root_template had started it here, once its answer (read
    first: nothing was asked of it here yet) and the root template's "ready" are read.  Else it is
    let go; and TEMPLATE too when its answer could not be read (an answer read later would be
    taken for another's: the adopter's session boots a template of its own)."""
    try:
        with template.lock:
            pid, pidfd = _fork_answer(template.sock)
    except (OSError, ValueError, KeyError):
        ours.close()
        _drop_template(template)
        return
    try:
        ours, handle, _ = _root_ready(ours, _Forked(pid, pidfd))
    except OSError:
        return                              # (closed: its setup's next student starts one here)
    root = RootTemplate.__new__(RootTemplate)
    root.owner, root.lock, root.sock, root.handle = os.getpid(), threading.Lock(), ours, handle
    with template.roots_lock:
        old = template.roots.get(key)
        template.roots[key] = root
    if old is not None:                     # (none: the template was just adopted)
        old.close()


def root_template(template: _Template, setup: dict, env: dict[str, str]) -> RootTemplate | None:
    """TEMPLATE's root template for SETUP and ENV (its student roots' lives' environment, its own
    too: started now if need be), or None: the template forks student roots itself."""
    key = _key(setup, env)
    with template.roots_lock:
        found = template.roots.get(key)
        if found is not None and not found.alive():
            template.roots.pop(key)
            found.close()
            found = None
        if found is None and key not in template.roots:
            while len(template.roots) >= MAX_ROOT_TEMPLATES:
                old = template.roots.pop(next(iter(template.roots)))
                if old is not None:
                    old.close()
            try:
                found = template.roots[key] = RootTemplate(template, setup, env)
            except OSError:
                template.roots[key] = None      # (this setup's roots fork from the template)
        return found


def drop_root_template(template: _Template, root: RootTemplate) -> None:
    with template.roots_lock:
        for key, found in list(template.roots.items()):
            if found is root:
                template.roots[key] = None
    root.close()
