"""Student roots (a student's sandboxes forked by one root process: Family, StudentRoot) and the
root templates that fork them (RootTemplate: a student root's shared setup built once a session);
harness/entry.py root_template_main and root_main are their other side."""

from __future__ import annotations

import json
import os
import select
import subprocess
import threading

from .launch import START_TIMEOUT, _ask_fork, _env, _Forked, _Proc, _spawn_from, _Template

MAX_ROOT_TEMPLATES = 4           # a template's root templates (one per distinct setup; a session has one)


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
    handle = _Forked(pid, pidfd)
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
                    self.root = StudentRoot(template, dict(setup, hidden=self.hidden), env)
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


def root_template(template: _Template, setup: dict, env: dict[str, str]) -> RootTemplate | None:
    """TEMPLATE's root template for SETUP and ENV (its student roots' lives' environment, its own
    too: started now if need be), or None: the template forks student roots itself."""
    key = json.dumps([setup, env], sort_keys=True)
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
