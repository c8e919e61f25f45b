"""The hostile corpus (tests/corpus/) and the machinery that grades it, for test_hostile.py.

The corpus's cases and their expected outcomes; processes, files and hashes (what outlived a
grade, what changed); the process-pool worker that grades one case alone.  The pool's workers
import this module by name, so it holds no fixture.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from autograder import toml as tomllib  # the one TOML shim
from autograder.engine.sandbox import Limits, descendants, isolation

REPO = Path(__file__).resolve().parent.parent.parent
CORPUS = REPO / "tests" / "corpus"
EXPECTED = tomllib.loads((CORPUS / "expected.toml").read_text(encoding="utf-8"))
ISO = isolation()

LIMITS = Limits(wall_s=1.0, cpu_s=4, memory_mb=256)
LIMITS_ENV = "wall_s=1,cpu_s=4,memory_mb=256"        # the same limits for the batch's workers
WALL_BOUND = 30.0                                     # seconds per submission, alone or in the batch
WALL_RATIO = 25.0       # ...or this many times the reference's own grade in the same run, if more:
#                         a busy machine stretches both (CI at load 25: the reference 5 s, a loop 49 s)


def wall_bound(reference_wall: float) -> float:
    """The wall-clock bound of one submission's grade, next to the reference graded in the same run."""
    return max(WALL_BOUND, WALL_RATIO * reference_wall)
MARKER = "planted by a submission"                    # what the corpus writes wherever it can
SECRET_ENV = "AUTOGRADER_HOSTILE_SECRET"
WATCHED = [REPO / "solution", REPO / "autograder" / "assignments", REPO / "tests" / "corpus"]
# Text of hidden files that must never reach a student's feedback.
HIDDEN_TEXT = ["def test_scoring(student, reference, case)", "# BEGIN PROBLEM", "script = [",
               "pyproject.toml", "ARCHITECTURE.md", "gradebook.py", "[[problems]]"]


@dataclass
class Case:
    name: str
    why: str
    base: str                     # "solution" | "starter": this file is appended to it; "none": the file alone
    score: float
    phrases: list[str]
    forbidden: list[str] = field(default_factory=list)
    needs: str = ""               # "namespaces" | "uid_drop": skipped where isolation() lacks it
    honest: bool = False
    same_as: str = ""             # another case that must get the very same score

    @property
    def runnable(self) -> bool:
        return not self.needs or bool(ISO[self.needs])


CASES = [Case(**entry) for entry in EXPECTED["case"]]
BY_NAME = {case.name: case for case in CASES}
RUNNABLE = [case for case in CASES if case.runnable]
# Broken files that only the batch sees (the CLI tests below feed them to `grade` too).
BAD_FILES = {
    "bad_encoding.py": "def score_upper(dice, face):\n    return 0  # caf\xe9\n".encode("latin-1"),
    "bad_empty_notebook.ipynb": b"",
    "bad_corrupt_notebook.ipynb": b'{"cells": [{"cell_type": "code", "source": "def score_upper(dice, fa',
}
BAD_MESSAGES = {
    "bad_encoding": "is not UTF-8 text (byte 0xe9 on line 2)",
    "bad_empty_notebook": "the notebook file is empty",
    "bad_corrupt_notebook": "the notebook is not valid .ipynb JSON",
    "bad_no_code": "no Python file (.py) or notebook (.ipynb) in",       # a student folder without code
}


def source_for(case: Case, world: dict) -> str:
    text = (CORPUS / f"{case.name}.py").read_text(encoding="utf-8")
    for key, value in world["placeholders"].items():
        text = text.replace(key, value)
    if case.base == "none":
        return text
    base = (REPO / case.base / "yahtzee.py").read_text(encoding="utf-8")
    return base.rstrip("\n") + "\n\n\n" + text


# ---------------------------------------------------------------------------------------------
# Processes, files and hashes
# ---------------------------------------------------------------------------------------------
def _set_subreaper() -> None:
    """Orphans of anything this process starts come back to it (so leftovers can be seen)."""
    ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)     # PR_SET_CHILD_SUBREAPER


def _proc_status(pid: int) -> dict[str, str]:
    try:
        with open(f"/proc/{pid}/status") as f:
            return dict(line.split(":\t", 1) for line in f.read().splitlines() if ":\t" in line)
    except OSError:
        return {}


def live_descendants(root: int) -> set[int]:
    """Pids below ROOT that are still running (zombies are dead: not counted)."""
    found = descendants(root)
    return {p for p in found if _proc_status(p).get("State", "Z")[:1] not in ("Z", "X", "")}


def describe(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmd = f.read().replace(b"\0", b" ").decode(errors="replace")[:120]
    except OSError:
        cmd = "?"
    return f"{pid} uid={_proc_status(pid).get('Uid', '?').split()[:1]} {cmd}"


def tree_hash(roots: list[Path], skip: set[str] = frozenset()) -> dict[str, str]:
    out = {}
    for root in roots:
        for path in sorted(root.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.name not in skip:
                out[str(path.relative_to(REPO))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def folder_state(folder: Path) -> dict[str, str]:
    if not folder.is_dir():
        return {}
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir()) if p.is_file()}


def planted_files() -> list[str]:
    """Files the corpus may have planted in the machine's shared temporary folders."""
    found = []
    for top in ("/tmp", "/var/tmp", "/dev/shm"):
        for name in ("planted.txt", "results.json"):
            if os.path.exists(os.path.join(top, name)):
                found.append(os.path.join(top, name))
    return found + [p for p in ("/etc/planted.txt", "/root/planted.txt", "/autograder/results/results.json")
                    if os.path.exists(p)]


# ---------------------------------------------------------------------------------------------
# Grading one case alone (in a pool worker)
# ---------------------------------------------------------------------------------------------
_RECORDED: list = []
_DEBUG: list = []
_UID_LEFT: list = []


def _worker_init(env: dict[str, str]) -> None:
    os.environ.update(env)
    _set_subreaper()
    import autograder.grading.grade as grade_module

    class RecordingProgram(grade_module.Program):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            _RECORDED.append(self)

    grade_module.Program = RecordingProgram
    from autograder.engine import isolation as isolation_module

    release = isolation_module._Slot.release

    def checked_release(slot):
        # While the slot (its uid) is still ours: nothing may run under that uid any more.
        # (After the release another grader may take the uid: checking later would be a race.)
        _UID_LEFT.extend(describe(pid) for pid in isolation_module.uid_processes(slot.uid))
        release(slot)

    isolation_module._Slot.release = checked_release
    if os.environ.get("HOSTILE_DEBUG"):
        from autograder.engine import program as program_module
        original = program_module.Program.run

        def run(self, request):
            outcome = original(self, request)
            if self.label == "your program" and outcome.status not in ("ok", "exception"):
                _DEBUG.append([request.func, request.fresh, outcome.status, outcome.message,
                               str((outcome.error or {}).get("internal", ""))[:500], outcome.elapsed])
            return outcome
        program_module.Program.run = run


def _grade_alone(name: str, path: str, canary: str) -> dict:
    from autograder.engine import reporters
    from autograder.engine.program import _REFERENCES
    from autograder.grading.grade import grade

    _RECORDED.clear()
    _DEBUG.clear()
    _UID_LEFT.clear()
    canary_before = folder_state(Path(canary))
    threads_before = threading.active_count()
    t0 = time.monotonic()
    report = grade(path, "yahtzee", limits=LIMITS)
    wall = time.monotonic() - t0
    keep: set[int] = set()                                # the shared reference's sandbox stays up
    for program in _REFERENCES.values():
        proc = program._sandbox._state.proc
        if proc is not None:
            keep |= {proc.popen.pid} | live_descendants(proc.popen.pid)
    left = sorted(live_descendants(os.getpid()) - keep)
    uids = {p._sandbox.applied.get("uid") for p in _RECORDED} - {None, os.getuid()}
    leftovers = [describe(pid) for pid in left] + list(_UID_LEFT)
    for pid in left:
        try:
            os.kill(pid, 9)                               # do not blame the next case for them
        except OSError:
            pass
    return {"name": name, "score": report.score, "max_score": report.max_score, "wall": wall,
            "text": reporters.to_text(report), "json": reporters.to_json(report),
            "error": report.error, "notes": report.notes, "leftovers": leftovers,
            "threads": threading.active_count() - threads_before,
            "canary_changed": folder_state(Path(canary)) != canary_before, "uids": sorted(uids), "debug": list(_DEBUG)}
