"""grade-all's fork server forked by `python -m autograder` itself, first thing (grading/early.py),
with real processes: it is multiprocessing's fork server once the pool starts, with the parent's
environment, path and output of that moment; it writes to its log, never to our output; a command
that needs none has it import nothing more and leave with the parent; one that cannot be used has
the pool start its own, as before.  (test_batch.py: a real batch's fork server is the early one.)"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

from helpers.batch import REPO, SOLUTION, env, run_batch

from autograder.grading.early import EARLY_ENV
from autograder.grading.tracing import TRACE_ENV

# As __main__.py: the early fork first; then what the pool's start gets (after the fork: an
# environment variable, a folder on the path); a worker-like process forked by the fork server
# says what it sees.  ARGV: the log folder, a file for the child's answer, "kill" (the early one
# killed before the pool starts).
SCRIPT = """
import os, signal, sys
from autograder.grading import early
early.fork_server_early(["x"])
forked = early._forked.pid
if sys.argv[3] == "kill":
    os.kill(forked, signal.SIGKILL)
os.environ["EARLY_SEEN"] = "set after the fork"
sys.path.append("/after/the/fork")
from pathlib import Path
from multiprocessing import forkserver
from autograder.grading.workers import WorkerPool
pool = WorkerPool(1, "yahtzee", "all", Path(sys.argv[1]), 60.0)
pool.start()
server = forkserver._forkserver
process = pool.ctx.Process(target=os.system, args=(f"echo \\"$EARLY_SEEN\\" > {sys.argv[2]}; "
                                                   f"cut -d' ' -f19 /proc/$$/stat >> {sys.argv[2]}",))
process.start()
process.join(60)
folder = os.path.dirname(server._forkserver_address)
print(process.exitcode, server._forkserver_pid == forked, os.getpriority(os.PRIO_PROCESS, server._forkserver_pid), os.readlink(f"/proc/{server._forkserver_pid}/fd/1"),
      os.readlink(f"/proc/{server._forkserver_pid}/fd/2"), os.readlink("/proc/self/fd/1"),
      oct(os.stat(folder).st_mode & 0o777), oct(os.stat(server._forkserver_address).st_mode & 0o777), flush=True)
"""


def _run(tmp_path: Path, how: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path / "logs"), str(tmp_path / "seen"), how],
                          capture_output=True, text=True, cwd=REPO, env=env(), stdin=subprocess.DEVNULL, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_the_early_fork_server_serves_with_what_the_pool_had_when_it_started_and_writes_to_its_log(tmp_path):
    code, early, nice, out, err, ours, folder, socket = _run(tmp_path, "keep")
    assert code == "0" and early == "True"
    ours_nice = str(os.getpriority(os.PRIO_PROCESS, 0))     # (niced while it waits, as root: ours again)
    assert nice == ours_nice
    assert (tmp_path / "seen").read_text() == f"set after the fork\n{ours_nice}\n"   # the pool's start's environment
    assert out == err == str(tmp_path / "logs" / "fork-server.log") and ours.startswith("pipe:")
    assert (folder, socket) == ("0o700", "0o600")                         # only this uid reaches it


def test_an_early_fork_server_gone_before_the_pool_starts_is_replaced_by_a_new_one(tmp_path):
    code, early, _, out, _, _, _, _ = _run(tmp_path, "kill")
    assert code == "0" and early == "False"
    assert (tmp_path / "seen").read_text().splitlines()[0] == "set after the fork"
    assert out == str(tmp_path / "logs" / "fork-server.log")


def _class(tmp_path: Path) -> Path:
    klass = tmp_path / "class"
    klass.mkdir()
    (klass / "ref.py").write_text(SOLUTION, encoding="utf-8")
    return klass


def _events(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_a_batch_with_nothing_to_grade_holds_the_early_fork_server_which_leaves_with_it(tmp_path, monkeypatch):
    """Run again without --force: a gradebook is there, so the early fork server imports no more
    (grade_all's hold) and, never handed over, leaves with the command (the subreaper finds nothing)."""
    klass, out = _class(tmp_path), tmp_path / "out"
    monkeypatch.setenv(TRACE_ENV, str(tmp_path / "first.jsonl"))
    first = run_batch([str(klass), "--jobs", "1", "--out", str(out)], tmp_path, "first")
    assert first["code"] == 0 and "1 graded" in first["stdout"]
    events = _events(tmp_path / "first.jsonl")
    early = [e for e in events if e["event"] == "forkserver-early"]
    assert len(early) == 1 and "forkserver-handed" in [e["event"] for e in events]
    assert [e["pid"] for e in events if e["event"] == "forkserver-imported"] == [early[0]["pid"]]
    monkeypatch.setenv(TRACE_ENV, str(tmp_path / "again.jsonl"))
    again = run_batch([str(klass), "--jobs", "1", "--out", str(out)], tmp_path, "again")
    assert again["code"] == 0 and "0 graded, 1 unchanged (skipped)" in again["stdout"]
    events = _events(tmp_path / "again.jsonl")
    order = [e["event"] for e in events]
    assert "forkserver-handed" not in order and "forkserver-imported" not in order and "worker-start" not in order
    assert order.count("forkserver-early") == 1             # (forked, held, gone: nothing left, run_batch)


def test_a_command_that_fails_on_its_input_leaves_no_early_fork_server(tmp_path):
    result = run_batch([str(tmp_path / "missing"), "--out", str(tmp_path / "out")], tmp_path, "missing")
    assert result["code"] == 2 and "no such file or folder" in result["stderr"]


def test_no_early_fork_server_when_it_is_turned_off_and_the_grades_are_the_same(tmp_path, monkeypatch):
    klass = _class(tmp_path)
    monkeypatch.setenv(TRACE_ENV, str(tmp_path / "off.jsonl"))
    monkeypatch.setenv(EARLY_ENV, "0")
    off = run_batch([str(klass), "--jobs", "1", "--out", str(tmp_path / "off")], tmp_path, "off")
    monkeypatch.delenv(EARLY_ENV)
    monkeypatch.setenv(TRACE_ENV, str(tmp_path / "on.jsonl"))
    on = run_batch([str(klass), "--jobs", "1", "--out", str(tmp_path / "on")], tmp_path, "on")
    assert off["code"] == on["code"] == 0
    order = [e["event"] for e in _events(tmp_path / "off.jsonl")]
    assert "forkserver-early" not in order and "forkserver-handed" not in order and "forkserver-prepared" in order
    order = [e["event"] for e in _events(tmp_path / "on.jsonl")]
    assert order.count("forkserver-early") == order.count("forkserver-handed") == 1
    from autograder.grading.gradebook import Gradebook

    scores = []
    for name in ("off", "on"):
        with Gradebook(tmp_path / name / "gradebook.sqlite") as book:
            scores.append([(r.submission_id, r.score, r.feedback) for r in book.rows()])
    assert scores[0] == scores[1] and scores[0][0][1] == 100
    assert os.environ.get(EARLY_ENV) is None and stat.S_ISDIR(os.stat(tmp_path / "on").st_mode)
