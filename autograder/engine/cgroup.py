"""One control group per sandbox: memory (shared memory and tmpfs included), pids and CPU weight.

RLIMIT_AS bounds each process, not the tree, and memory that belongs to no process (tmpfs
pages, shared memory) escapes it; a cgroup bounds everything the sandbox's processes charge.
CPU weight makes the scheduler share the CPU between sandboxes rather than between processes:
a submission running many busy children gets one sandbox's share, not many.

Both cgroup v2 (a unified hierarchy with the memory controller) and v1 (separate memory, pids
and cpu hierarchies, as on this machine) are handled.  The group is created under the grader's
own group.  Without root, or where /sys/fs/cgroup is read-only, nothing is created and
Sandbox.applied["cgroup"] says so.

A stopped sandbox's group that nothing is left in is kept for the grader process's next
sandbox with the same limits (Group.release): making and removing a group (a mkdir, three
writes and an rmdir per hierarchy) was ~0.35 ms of the grader's CPU per sandbox life.
"""

from __future__ import annotations

import atexit
import functools
import itertools
import os
import threading
import time
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
_counter = itertools.count()


class Group:
    def __init__(self, dirs: list[str], kind: str):
        self.dirs, self.kind = dirs, kind          # (paths as str: pathlib cost ~0.2 ms a sandbox)
        self.key: tuple | None = None              # (grader pid, limits): where release() keeps it
        self._count_fd: int | None = None           # its task counter's file, open (_empty)

    @classmethod
    def create(cls, memory_bytes: int, pids: int, cpu_weight: int = 100) -> Group | None:
        """A group with these limits, or None where the machine does not allow one: one this
        process released (nothing in it, the same limits) or a new one."""
        if os.geteuid() != 0 or _hierarchy() is None:
            return None
        key = (os.getpid(), memory_bytes, pids, cpu_weight)
        with _pool_lock:
            kept = _pool.get(key)
            if not kept:         # released while a process of it was still being reaped: empty now?
                ready = [g for g in _later if g.key == key and g._empty()]
                if ready:
                    _later.remove(ready[0])
                    return ready[0]
            if kept:
                return kept.pop()
        name = f"autograder-{os.getpid()}-{next(_counter)}"
        try:
            if _hierarchy() == "v2":
                group = _create_v2(name, memory_bytes, pids, cpu_weight)
            else:
                group = _create_v1(name, memory_bytes, pids, cpu_weight)
        except OSError:
            return None
        if group is not None:
            group.key = key
        return group

    def release(self) -> None:
        """After its sandbox stopped (the caller killed its processes): kept for this process's
        next sandbox with the same limits, which gets it only when no process is left in it in
        any hierarchy (_empty: none can come back, and no process outside the group can enter it
        but by the grader's own writes).  One not empty yet (a zygote its parent has not reaped)
        waits in _later, looked at again by the next create() (its removal used to wait for it
        here, 10 ms at a time); else, or beyond _POOL_MAX groups, removed as remove() does."""
        key = self.key
        gone: list[Group] = [self]
        if key is not None and key[0] == os.getpid():
            empty = self._empty()
            with _pool_lock:
                gone = [] if empty else _settle()
                kept = _pool.setdefault(key, []) if empty else _later
                if len(kept) < _POOL_MAX:
                    kept.append(self)
                else:
                    gone.append(self)
        for group in gone:
            group.remove()

    def _empty(self) -> bool:
        """No task left in the group: v2, its cgroup.events says "populated 0"; v1, its pids
        group counts 0 tasks (every task of the sandbox is in all its hierarchies' groups: the
        grader adds the zygote to each, and a child starts in its parent's groups), or without a
        pids hierarchy every group's cgroup.procs is empty.  The counter's file is kept open and
        read again with one pread (a group is released once per sandbox life)."""
        try:
            if self._count_fd is None:
                if self.kind == "v2":
                    path = os.path.join(self.dirs[0], "cgroup.events")
                else:
                    pids = [d for d in self.dirs if os.path.basename(os.path.dirname(d)) == "pids"]
                    if not pids:
                        return not any(_read(os.path.join(d, "cgroup.procs")) for d in self.dirs)
                    path = os.path.join(pids[0], "pids.current")
                self._count_fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
            data = os.pread(self._count_fd, 256, 0)
        except OSError:
            return False
        return b"populated 0" in data if self.kind == "v2" else data.strip() == b"0"

    def add(self, pid: int) -> bool:
        try:
            for folder in self.dirs:
                _write(os.path.join(folder, "cgroup.procs"), pid)
            return True
        except OSError:
            return False

    def remove(self, wait: float = 2.0) -> None:
        """Remove the group once its processes are gone (the caller killed them)."""
        counter, self._count_fd = self._count_fd, None
        if counter is not None:
            os.close(counter)
        deadline = time.monotonic() + wait
        for folder in self.dirs:
            while True:
                try:
                    os.rmdir(folder)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        break
                    time.sleep(0.01)


def _settle() -> list[Group]:
    """The groups of _later that are empty now, moved to their pools (called with _pool_lock held,
    before a group joins _later): else a pool that never ran dry would leave them in _later for
    good, and once _POOL_MAX of them sat there every group released with a process still in it
    was removed on the spot, waiting for its zygote.  Returns those no pool has room for."""
    gone = []
    for group in [g for g in _later if g._empty()]:
        _later.remove(group)
        kept = _pool.setdefault(group.key, [])
        (kept if len(kept) < _POOL_MAX else gone).append(group)
    return gone


_pool: dict[tuple, list[Group]] = {}     # (grader pid, limits) -> released groups, nothing in them
_later: list[Group] = []                 # released groups that were not empty yet
_POOL_MAX = 8                            # (a student's lives: five, stopped together)
_pool_lock = threading.RLock()          # (re-entered when a finalizer stops a sandbox mid-section)


@atexit.register
def remove_kept() -> None:
    """This process's kept groups removed: at the end of a grading session (program.close_references:
    a grade-all worker ends with os._exit, without atexit) and at its exit (a forked child's
    copy of the pool is not its own; a grader killed outright leaves them to the next one's _sweep)."""
    with _pool_lock:
        mine = [g for g in [*_later, *(g for kept in _pool.values() for g in kept)] if g.key[0] == os.getpid()]
        _pool.clear()
        _later.clear()
    for group in mine:
        group.remove(wait=0.2)


@functools.cache
def _hierarchy() -> str | None:
    """"v2" (unified), "v1" or None (no /sys/fs/cgroup): the machine's, read once."""
    if not ROOT.is_dir():
        return None
    return "v2" if (ROOT / "cgroup.controllers").is_file() else "v1"


_swept: set[str] = set()


def _sweep(parent: Path | str) -> None:
    """Remove empty groups of graders that died without cleaning up (kill -9, os._exit): once per
    grader process and parent (a scan per sandbox cost ~0.5 ms with forty other groups there)."""
    if str(parent) in _swept:
        return
    _swept.add(str(parent))
    try:
        names = [p for p in Path(parent).iterdir() if p.name.startswith("autograder-")]
    except OSError:
        return
    for folder in names:
        pid = folder.name.split("-")[1]
        if pid.isdigit() and not os.path.exists(f"/proc/{pid}"):
            try:
                folder.rmdir()              # fails (harmlessly) while processes remain in it
            except OSError:
                pass


def _own_path(controller: str) -> str:
    """This process's group in the hierarchy of CONTROLLER ('' for v2); read once per process
    (a grader is not moved between groups while it grades)."""
    key = (os.getpid(), controller)
    path = _own.get(key)
    if path is None:
        with open("/proc/self/cgroup") as f:
            lines = f.read().splitlines()
        for line in lines:
            _, names, found = line.split(":", 2)
            if controller in names.split(","):          # "" matches the v2 line "0::/path"
                path = _own[key] = found.lstrip("/")
                break
        else:
            raise OSError(f"not in a {controller or 'v2'} cgroup")
    return path


_own: dict[tuple[int, str], str] = {}


def _read(path: str) -> bytes:
    with open(path, "rb", buffering=0) as f:
        return f.read(256)


def _write(path: str, value: object) -> None:
    """VALUE into the control file PATH (one write, as Path.write_text without its text layer)."""
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, str(value).encode())
    finally:
        os.close(fd)


def _create_v2(name: str, memory_bytes: int, pids: int, weight: int) -> Group | None:
    parent = ROOT / _own_path("")
    wanted = {"memory", "pids", "cpu"}
    enabled = set((parent / "cgroup.subtree_control").read_text().split())
    if not wanted <= enabled:
        try:
            (parent / "cgroup.subtree_control").write_text(" ".join(f"+{c}" for c in wanted - enabled))
        except OSError:
            return None         # "no internal processes": a group with processes cannot delegate
    _sweep(parent)
    folder = str(parent / name)
    os.mkdir(folder)
    try:
        _write(os.path.join(folder, "memory.max"), memory_bytes)
        if os.path.exists(os.path.join(folder, "memory.swap.max")):
            _write(os.path.join(folder, "memory.swap.max"), 0)
        _write(os.path.join(folder, "pids.max"), pids)
        _write(os.path.join(folder, "cpu.weight"), weight)
    except OSError:
        os.rmdir(folder)
        raise
    return Group([folder], "v2")


def _v1_parent(controller: str) -> str | None:
    """Where this process's groups of CONTROLLER go (its own group), None without that
    hierarchy; looked up once per process and controller."""
    key = (os.getpid(), controller)
    if key not in _parents:
        base = ROOT / controller
        _parents[key] = str(base / _own_path(controller)) if (base / "cgroup.procs").is_file() else None
    return _parents[key]


_parents: dict[tuple[int, str], str | None] = {}


def _create_v1(name: str, memory_bytes: int, pids: int, weight: int) -> Group | None:
    settings = {"memory": [("memory.limit_in_bytes", memory_bytes)], "pids": [("pids.max", pids)],
                "cpu": [("cpu.shares", max(2, weight * 1024 // 100))]}
    made: list[str] = []
    try:
        for controller, values in settings.items():
            parent = _v1_parent(controller)
            if parent is None:
                continue
            _sweep(parent)
            folder = os.path.join(parent, name)
            os.mkdir(folder)
            made.append(folder)
            for key, value in values:
                _write(os.path.join(folder, key), value)
    except OSError:
        Group(made, "v1").remove(wait=0)
        return None
    return Group(made, "v1") if made else None
