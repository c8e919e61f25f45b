"""A sandbox's life (its zygote process), grader side: started and stopped.

Starting (mixed into Sandbox, sandbox.py): the life's config (its limits, isolation, the source
and the reference as raw bytes after one JSON line), the process spawned, or forked from the
session's template or the student's root (launch.py, roots.py), joined to its cgroup, and its
"ready" read.  _State: what a Sandbox must clean up (the process, its uid slot, its cgroup), and
how it stops: by its pid namespace's end, its uid's sweep or its process tree.
prestart_template boots a grading session's template early.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import shutil
import subprocess
import tempfile
import time
from typing import Any

from . import cgroup, seccomp
from .isolation import _kill_tree, _kill_uid, _python, _Slot, isolation
from .launch import (
    START_TIMEOUT,
    _drop_template,
    _env,
    _harness_source,
    _Proc,
    _spawn,
    _template,
    compiled_reference,
)
from .outcomes import _internal
from .protocol import Limits, Outcome, _parse, json_encoder
from .roots import LIFE_WORKDIR


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
            proc.popen.kill()                 # last resort: the outer process (a student root's life:
            #                                   the zygote itself); its tree dies with it
            proc.popen.wait(timeout=3)
        proc.close_fds()
        group, self.group = self.group, None
        if group is not None:
            group.release()                   # kept for the next sandbox when nothing is left in it
        if proc.cleanup_dir:
            shutil.rmtree(proc.cleanup_dir, ignore_errors=True)

    def _end_namespace(self, proc: _Proc) -> bool:
        """A clean stop: end of input makes the zygote (pid 1 of its pid namespace) kill its
        descendants and exit; the kernel kills whatever else is in the namespace before the
        outer process (or, for a student root's life, the grader's pidfd) sees it exit.  True when
        that happened in time (no uid sweep needed)."""
        self.end_input(proc)
        try:
            proc.popen.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            return False
        return True

    def end_input(self, proc: _Proc | None = None) -> None:
        """End the input of PROC (the running zygote's) where that stops it (pid 1 of its namespace)."""
        proc = proc or self.proc
        if proc is not None and self.pidns and proc.ctl >= 0 and os.getpid() == self.owner:
            os.close(proc.ctl)
            proc.ctl = -1

    def shutdown(self) -> None:
        if os.getpid() != self.owner:     # a forked copy of the grader must not kill our sandbox
            return
        self.stop(graceful=True)
        if self.slot is not None:
            self.slot.clean = self.clean and self.proc is None
            self.slot.release()
            self.slot = None


class Starting:
    """Sandbox's start of its zygote (a mixin: the state is Sandbox's, set in its __init__)."""

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
            workdir = LIFE_WORKDIR                    # inside the sandbox's private /tmp
        else:
            workdir = cleanup_dir = tempfile.mkdtemp(prefix="sandbox-")
        cfg = {
            "filename": self.filename, "source": self.source, "limits": _limits_dict(self.limits),
            "root": root, "namespaces": root and iso["namespaces"], "pidns": root and iso["pid_namespace"],
            "hidden": self.hidden_paths, "uid": state.slot.uid if root else None, "workdir": workdir,
            "tmp_mb": max(16, 4 * self.limits.fsize_mb),
            "seccomp": (seccomp.filter_bpf() or b"").hex(), "sockets_refused": seccomp.refuses_sockets(),
            "reference": self.reference,
            # how the fresh runner's clean-state check reads dict versions (harness/clean.py)
            "dict_versions": os.environ.get("AUTOGRADER_DICT_VERSIONS", "auto"),
        }
        # The long texts go as raw bytes after the config's line ("blobs": their names and sizes): no
        # JSON escaping or base64 for the grader, no parse, decode or copies of them in each life.
        blobs = {"source": _utf8(self.source)}
        cfg["source"] = None
        if self.reference is not None and (code := compiled_reference(self.reference)) is not None:
            cfg["reference"] = None                       # compiled once per grader process
            blobs["reference_code"] = code
        cfg["blobs"] = [[name, len(data)] for name, data in blobs.items()]
        env = _env(workdir)
        template = _template() if root and iso["pid_namespace"] else None
        forker = None
        if template is not None and self.family is not None and self.family.hidden == self.hidden_paths:
            # (its first life compiles for the others; it prepares the filter, and makes the net
            # namespace its lives share when the filter refuses sockets)
            setup = {"seccomp": cfg["seccomp"], "sockets_refused": cfg["sockets_refused"]}
            forker = self.family.forker(template, setup, env)
        try:
            proc = None
            if forker is not None:
                try:
                    proc = forker.spawn(env, "/")
                except OSError:          # the student root died: this sandbox forks from the template
                    self.family.drop()   # type: ignore[union-attr]
                    forker = None
            if proc is None and template is not None:
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
        state.group = cgroup.Group.create(self._cgroup_memory(), self.limits.nproc + 16) if root else None
        late = forker is not None and forker.pid1
        if not late:             # before the child reads its harness: every process it ever forks is inside
            self._join_group(proc)
        if template is None:     # a spawned child reads the harness first; a template's fork has it
            harness = _harness_source()
            proc.send(f"{len(harness):16d}".encode() + harness)
        line = _config_line(cfg)
        proc.send(b"%15d\n" % len(line) + line + b"".join(blobs.values()))   # (harness/entry.py read_config)
        if late:                 # a pid-1 life forks nothing before its first request (sent after the
            #                    move below): it joins its group
            self._join_group(proc)   # while it isolates itself (a move waits ~3 ms per hierarchy)
        deadline = time.monotonic() + START_TIMEOUT
        kind, line = proc.next_line(deadline)
        msg = _parse(line) if kind == "line" else None
        if msg is None or msg.get("t") != "ready":
            detail = (msg or {}).get("error") or f"{kind}: {line!r} {proc.raw_text()[-2000:]}"
            state.stop()
            return _internal(f"the sandbox did not start: {detail}", 0.0)
        self.applied = dict(msg.get("applied") or {}, python=_python(),
                            cgroup=state.group.kind if state.group is not None else False,
                            started="student_root" if forker is not None else
                            "template" if template is not None else "spawn")
        state.pidns = "pid" in (self.applied.get("namespaces") or []) and bool(self.applied.get("proc"))
        self.starts += 1
        return proc

    def _join_group(self, proc: _Proc) -> None:      # (no group when the move fails)
        group = self._state.group
        if group is not None and not group.add(proc.popen.pid):
            group.remove(wait=0)
            self._state.group = None

    def _cgroup_memory(self) -> int:
        """The whole sandbox's memory: two processes at their limit plus its tmpfs folders, in bytes."""
        tmp_mb = max(16, 4 * self.limits.fsize_mb) + 8 + 8
        return (2 * self.limits.memory_mb + tmp_mb + 64) << 20


def _config_line(cfg: dict[str, Any]) -> bytes:
    """json.dumps(CFG) and a newline, byte for byte, with its long texts (the seccomp filter, a
    reference's text where the life compiles it: the same for each of a student's lives) encoded
    once per text (_json_text) instead of once per life, the rest with json.dumps's encoder made
    once (_DUMPS: half of json.dumps's time on these small values; the config is the grader's own
    data, never circular)."""
    return ("{" + ", ".join(f"{_DUMPS(key)}: {_json_text(value) if type(value) is str and len(value) > 256 else _DUMPS(value)}"
                            for key, value in cfg.items()) + "}\n").encode()


_DUMPS = json_encoder()         # json.dumps's defaults: ", " and ": " between items and keys


_json_text = functools.lru_cache(maxsize=16)(json.dumps)


@functools.lru_cache(maxsize=16)
def _utf8(text: str) -> bytes:
    """TEXT as the life reads it back (harness/entry.py read_config): any str, lone surrogates too."""
    return text.encode("utf-8", "surrogatepass")


_LIMIT_FIELDS = tuple(field.name for field in dataclasses.fields(Limits))


def _limits_dict(limits: Limits) -> dict[str, Any]:
    """dataclasses.asdict of LIMITS (all its fields are numbers) without its deep copy (~0.2 ms)."""
    return {name: getattr(limits, name) for name in _LIMIT_FIELDS}


def prestart_template() -> None:
    """Boot the open template_scope's template now where sandboxes fork from one (as root with a
    pid namespace): a new interpreter starting on the other CPU while the caller loads pytest
    and collects its suites, instead of on the first sandbox's critical path."""
    iso = isolation()
    if iso["uid_drop"] and iso["pid_namespace"]:
        _template()
