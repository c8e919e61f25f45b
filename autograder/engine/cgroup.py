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

import itertools
import os
import time
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
_counter = itertools.count()


class Group:
    def __init__(self, dirs: list[Path], kind: str):
        self.dirs, self.kind = dirs, kind

    @classmethod
    def create(cls, memory_bytes: int, pids: int, cpu_weight: int = 100) -> Group | None:
        """A new group with these limits, or None where the machine does not allow one."""
        if os.geteuid() != 0 or not ROOT.is_dir():
            return None
        name = f"autograder-{os.getpid()}-{next(_counter)}"
        try:
            if (ROOT / "cgroup.controllers").is_file():
                return _create_v2(name, memory_bytes, pids, cpu_weight)
            return _create_v1(name, memory_bytes, pids, cpu_weight)
        except OSError:
            return None

    def add(self, pid: int) -> bool:
        try:
            for folder in self.dirs:
                (folder / "cgroup.procs").write_text(str(pid))
            return True
        except OSError:
            return False

    def remove(self, wait: float = 2.0) -> None:
        """Remove the group once its processes are gone (the caller killed them)."""
        deadline = time.monotonic() + wait
        for folder in self.dirs:
            while True:
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        break
                    time.sleep(0.01)


_swept: set[Path] = set()


def _sweep(parent: Path) -> None:
    """Remove empty groups of graders that died without cleaning up (kill -9, os._exit): once per
    grader process and parent (a scan per sandbox cost ~0.5 ms with forty other groups there)."""
    if parent in _swept:
        return
    _swept.add(parent)
    try:
        names = [p for p in parent.iterdir() if p.name.startswith("autograder-")]
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
    """This process's group in the hierarchy of CONTROLLER ('' for v2)."""
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, names, path = line.split(":", 2)
        if controller in names.split(","):          # "" matches the v2 line "0::/path"
            return path.lstrip("/")
    raise OSError(f"not in a {controller or 'v2'} cgroup")


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
    folder = parent / name
    folder.mkdir()
    try:
        (folder / "memory.max").write_text(str(memory_bytes))
        if (folder / "memory.swap.max").exists():
            (folder / "memory.swap.max").write_text("0")
        (folder / "pids.max").write_text(str(pids))
        (folder / "cpu.weight").write_text(str(weight))
    except OSError:
        folder.rmdir()
        raise
    return Group([folder], "v2")


def _create_v1(name: str, memory_bytes: int, pids: int, weight: int) -> Group | None:
    settings = {"memory": [("memory.limit_in_bytes", memory_bytes)], "pids": [("pids.max", pids)],
                "cpu": [("cpu.shares", max(2, weight * 1024 // 100))]}
    made: list[Path] = []
    try:
        for controller, values in settings.items():
            base = ROOT / controller
            if not (base / "cgroup.procs").is_file():
                continue
            parent = base / _own_path(controller)
            _sweep(parent)
            folder = parent / name
            folder.mkdir()
            made.append(folder)
            for key, value in values:
                (folder / key).write_text(str(value))
    except OSError:
        Group(made, "v1").remove(wait=0)
        return None
    return Group(made, "v1") if made else None
