"""One control group per sandbox: memory (shared memory and tmpfs included), pids and CPU weight.

RLIMIT_AS bounds each process, not the tree, and memory that belongs to no process (tmpfs
pages, shared memory) escapes it; a cgroup bounds everything the sandbox's processes charge.
CPU weight makes the scheduler share the CPU between sandboxes rather than between processes:
a submission running many busy children gets one sandbox's share, not many.

Both cgroup v2 (a unified hierarchy with the memory controller) and v1 (separate memory, pids
and cpu hierarchies, as on this machine) are handled.  The group is created under the grader's
own group.  Without root, or where /sys/fs/cgroup is read-only, nothing is created and
Sandbox.applied["cgroup"] says so.
"""

from __future__ import annotations

import functools
import itertools
import os
import time
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
_counter = itertools.count()


class Group:
    def __init__(self, dirs: list[str], kind: str):
        self.dirs, self.kind = dirs, kind          # (paths as str: pathlib cost ~0.2 ms a sandbox)

    @classmethod
    def create(cls, memory_bytes: int, pids: int, cpu_weight: int = 100) -> Group | None:
        """A new group with these limits, or None where the machine does not allow one."""
        if os.geteuid() != 0 or _hierarchy() is None:
            return None
        name = f"autograder-{os.getpid()}-{next(_counter)}"
        try:
            if _hierarchy() == "v2":
                return _create_v2(name, memory_bytes, pids, cpu_weight)
            return _create_v1(name, memory_bytes, pids, cpu_weight)
        except OSError:
            return None

    def add(self, pid: int) -> bool:
        try:
            for folder in self.dirs:
                _write(os.path.join(folder, "cgroup.procs"), pid)
            return True
        except OSError:
            return False

    def remove(self, wait: float = 2.0) -> None:
        """Remove the group once its processes are gone (the caller killed them)."""
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
