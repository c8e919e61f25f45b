"""A small class graded by `grade-all` under the subreaper wrapper, for the test_batch*.py files.

The programs (the reference, a mutant, a syntax error, an endless loop), the wrapper (`Batch`:
the batch leads a new session so a test can signal its whole process group, while the wrapper,
outside that group, reports whatever outlives it) and readers of what a batch wrote (the
gradebook read-only, the CSV).  Short limits (AUTOGRADER_LIMITS) keep the endless loop cheap.
"""

from __future__ import annotations

import csv
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from autograder.assignment import load_assignment
from autograder.authoring.bench.batch import SLOW_TAIL
from helpers.cli import REPO, SUBREAPER, cli_env

SPEC = load_assignment("yahtzee")
SOLUTION = (REPO / "solution" / "yahtzee.py").read_text(encoding="utf-8")
LIMITS_ENV = "wall_s=1,memory_mb=256"
SANDBOX_UID_BASE = 40000
MUTANT_FIND = "    if max(face_counts(dice).values()) >= n:\n        return sum(dice)"
MUTANT_REPLACE = ("    counts = face_counts(dice)\n    if max(counts.values()) >= n:\n"
                  "        return sum(die for die in dice if counts[die] >= n)")
MUTANT_PROBLEMS = {2}                       # of-a-kind sums only the matching dice: problem 2 (score, P6, returns what its own score_of_a_kind gives: not charged again)
LOOP = SOLUTION + "\n\ndef score_chance(dice):\n    while True:\n        pass\n"
# Every call sleeps just below the per-call wall limit (wall_s=1 above): no timeout, no trial limit
# shortens it, so a whole grade overruns a worker's --timeout of a few seconds under any load.
SLOW = SOLUTION + SLOW_TAIL.replace("PAUSE", "0.9")
BROKEN = SOLUTION.replace("def score_upper(dice, face):", "def score_upper(dice, face)", 1)
assert SOLUTION.count(MUTANT_FIND) == 1 and BROKEN != SOLUTION
MUTANT = SOLUTION.replace(MUTANT_FIND, MUTANT_REPLACE)


def env() -> dict[str, str]:
    return cli_env(LIMITS_ENV)


def _ctrl_c_as_at_a_terminal() -> None:
    """Ctrl-C acts on the batch as on a command typed at a terminal: a shell without job control
    starts background commands (a CI step, `make test &`) with SIGINT ignored, which every child
    inherits, and a Python started so never installs its KeyboardInterrupt handler."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@dataclass
class Batch:
    """A `grade-all` started under the wrapper."""

    proc: subprocess.Popen
    report: Path

    @classmethod
    def start(cls, args: list[str], tmp: Path, name: str) -> Batch:
        report = tmp / f"{name}.json"
        for suffix in ("", ".pid", ".out", ".err"):
            Path(str(report) + suffix).unlink(missing_ok=True)
        proc = subprocess.Popen([sys.executable, str(SUBREAPER), str(report), sys.executable, "-m", "autograder",
                                 "grade-all", *args, "--no-progress"], cwd=tmp, env=env(),
                                stdin=subprocess.DEVNULL, preexec_fn=_ctrl_c_as_at_a_terminal)
        return cls(proc, report)

    def pid(self, timeout: float = 20) -> int:
        path = Path(str(self.report) + ".pid")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if path.is_file() and path.read_text().strip():
                return int(path.read_text())
            time.sleep(0.01)
        raise AssertionError("the batch did not start")

    def finish(self, timeout: float = 120) -> dict:
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.pid(), signal.SIGKILL)
            self.proc.kill()
            self.proc.wait()
            raise AssertionError(f"the batch took more than {timeout} s") from None
        result = json.loads(self.report.read_text())
        result["stdout"] = Path(str(self.report) + ".out").read_text()
        result["stderr"] = Path(str(self.report) + ".err").read_text()
        return result


def interrupted(args: list[str], tmp: Path, name: str, out: Path, sig: int, rows: int = 2) -> dict:
    """A batch (ARGS, writing to OUT) sent SIG, to its whole process group, once ROWS grades are stored."""
    batch = Batch.start(args, tmp, name)
    pid = batch.pid()
    deadline = time.monotonic() + 90
    while len(rows_of(out)) < rows:
        assert batch.proc.poll() is None, "the batch ended before it could be interrupted"
        assert time.monotonic() < deadline, "no grade stored after 90 s"
        time.sleep(0.02)
    os.killpg(pid, sig)
    return batch.finish()


def run_batch(args: list[str], tmp: Path, name: str, timeout: float = 120) -> dict:
    result = Batch.start(args, tmp, name).finish(timeout)
    assert_nothing_left(result)
    return result


def assert_nothing_left(result: dict) -> None:
    sandboxes = [p for p in result["left"] if p["uid"] >= SANDBOX_UID_BASE]
    assert not sandboxes, f"sandbox processes (uid {SANDBOX_UID_BASE}+) outlived the batch: {sandboxes}"
    assert not result["left"], f"processes outlived the batch: {result['left']}"


def rows_of(out: Path) -> dict[str, tuple[float, str, int, str]]:
    """id -> (score, graded_at, times_graded, error), read without writing to the gradebook."""
    path = out / "gradebook.sqlite"
    if not path.exists():
        return {}
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
    try:
        return {sid: (score, at, n, error) for sid, score, at, n, error in db.execute(
            "SELECT submission_id, score, graded_at, times_graded, error FROM grades")}
    except sqlite3.OperationalError:              # created but no table yet
        return {}
    finally:
        db.close()


def count_rows(out: Path) -> tuple[int, int]:
    db = sqlite3.connect(f"file:{out / 'gradebook.sqlite'}?mode=ro", uri=True)
    try:
        return db.execute("SELECT COUNT(*), COUNT(DISTINCT submission_id) FROM grades").fetchone()
    finally:
        db.close()


def read_csv(out: Path) -> tuple[list[str], dict[str, dict[str, str]]]:
    with open(out / "grades.csv", newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        header = next(reader)
        return header, {line[0]: dict(zip(header, line)) for line in reader}


def num(text: str) -> float:
    return float(text)
