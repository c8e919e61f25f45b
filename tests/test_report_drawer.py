"""grade-all's chart drawer (charts.Drawer): a real process that imports matplotlib in a thread at
SCHED_IDLE and draws the class report's charts; they must be the charts drawn here, byte for byte.
Whatever goes wrong with it (starved, dead, nonsense, another list than it was sent), the charts
are drawn here, and the drawer is gone (reaped) either way.  Two real drawers (one stopped before
it runs), a few tiny stand-in processes; ~1 s of CPU in all.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from autograder.grading import charts
from autograder.grading.tracing import TRACE_ENV

WANTED = [(charts.histogram, ([5.0, 50.0, 100.0, 100.0],), {}),
          (charts.rate_bars, ([("Stage 1", 0.5), ("Stage 2", 0.1)], "stage-rates", "Checks", 0.2), {}),
          (charts.rate_bars, ([(f"P{n} a title", n / 20) for n in range(1, 21)], "problem-rates", "Full"),
           {"axis": "% full"})]
ONE = [(charts.histogram, ([10.0, 90.0],), {})]


@pytest.fixture(scope="module")
def serial() -> dict[str, list[str]]:
    return {"wanted": [f(*a, **k) for f, a, k in WANTED], "one": [f(*a, **k) for f, a, k in ONE]}


def _events(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()] if path.exists() else []


def _ready(drawer: charts.Drawer, within: float = 120.0) -> None:
    """Wait (a test may run on a busy machine: the import gets idle CPU only) until DRAWER is ready."""
    deadline = time.monotonic() + within
    while not drawer._wait_ready():
        assert drawer.process.poll() is None, "the drawer died while importing"
        assert time.monotonic() < deadline, "the drawer never finished its import"


def test_the_drawer_imports_at_idle_priority_and_draws_the_charts_drawn_here(tmp_path, monkeypatch, serial):
    """(The fork server that forks it runs already, started without the trace: the drawer traces
    as its starter says, not as the fork server's environment was.)"""
    import multiprocessing

    first = multiprocessing.get_context("forkserver").Process(target=os.getpid)
    first.start()
    first.join(60)
    trace = tmp_path / "trace.jsonl"
    monkeypatch.setenv(TRACE_ENV, str(trace))
    drawer = charts.Drawer.start()
    assert drawer is not None
    _ready(drawer)
    drawer.send(WANTED)                             # as grade-all: sent before the other exports ...
    assert drawer.sent == WANTED
    assert charts.draw(list(WANTED), drawer) == serial["wanted"]     # ... collected by the report
    assert drawer.process.returncode == 0           # it exited at once and was reaped
    events = _events(trace)
    (imported,) = [e for e in events if e["event"] == "drawer-imported"]
    assert imported["pid"] == drawer.process.pid and imported["policy"] == os.SCHED_IDLE
    assert [e["by"] for e in events if e["event"] == "charts"] == ["drawer"]


@pytest.mark.serial      # a wall-clock or CPU bound: alone in make test
def test_a_starved_drawer_is_given_up_at_once_and_the_charts_are_drawn_here(tmp_path, monkeypatch, serial):
    """A drawer that gets no CPU (here: stopped) is given up after a STARVED_WINDOW, not READY_AT_MOST."""
    trace = tmp_path / "trace.jsonl"
    monkeypatch.setenv(TRACE_ENV, str(trace))
    drawer = charts.Drawer.start()
    os.kill(drawer.process.pid, signal.SIGSTOP)
    began = time.monotonic()
    assert drawer._wait_ready() is False
    assert time.monotonic() - began < charts.READY_AT_MOST * 0.9
    drawer.send(ONE)                                # not ready: nothing sent, nothing waited for
    assert drawer.sent is None
    assert charts.draw(ONE, drawer) == serial["one"]
    assert drawer.process.returncode == -signal.SIGKILL     # stopped and reaped
    assert [e["by"] for e in _events(trace) if e["event"] == "charts"] == ["here"]


# Stand-ins for the drawer's side (real processes): each says it is ready, then answers ANSWER.
STAND_IN = """
import os, pickle, sys
sys.stdout.buffer.write(b"R"); sys.stdout.flush()
sys.stdin.buffer.read()
answer = {answer}
if answer is None:
    os._exit(3)
sys.stdout.buffer.write(answer); sys.stdout.flush()
"""


def _stand_in(answer: str) -> charts.Drawer:
    return charts.Drawer(subprocess.Popen([sys.executable, "-c", STAND_IN.format(answer=answer)],
                                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL))


@pytest.mark.parametrize("answer", [
    "None",                                              # dies after it was sent the charts
    "b'not a pickle'",                                   # nonsense
    "pickle.dumps(['<svg one/>', '<svg two/>'])",        # two charts for one
    "pickle.dumps([b'<svg/>'])",                         # not text
    "pickle.dumps(['<script>alert(1)</script>'])",       # not a chart
    "b'cbuiltins\\nno_such_name\\n.'",                    # a name that is not there (AttributeError)
    "pickle.dumps(['<svg/>'])[:-3]",                     # the right answer cut short
])
def test_a_drawer_that_fails_in_any_way_leaves_the_charts_drawn_here(answer, serial):
    drawer = _stand_in(answer)
    _ready(drawer)          # (so the answer is what fails: a starved drawer is given up before it is read)
    assert charts.draw(ONE, drawer) == serial["one"]
    assert drawer.process.returncode is not None          # reaped


def test_charts_other_than_those_sent_are_drawn_here(serial):
    drawer = _stand_in("pickle.dumps(['<svg the charts sent/>'])")
    _ready(drawer)
    drawer.send([(charts.histogram, ([1.0],), {})])
    assert drawer.sent is not None
    assert charts.draw(ONE, drawer) == serial["one"]
    assert drawer.process.returncode is not None


def test_the_stand_in_is_taken_at_its_word_when_it_answers_right():
    """(So the cases above fail on their answers, not on the stand-in.)"""
    drawer = _stand_in("pickle.dumps(['<svg the chart/>'])")
    _ready(drawer)          # (on a busy machine a starved drawer is given up and the chart drawn here)
    assert charts.draw(ONE, drawer) == ["<svg the chart/>"]


def test_grade_alls_exports_with_a_drawer_equal_a_fresh_export(tmp_path, monkeypatch):
    """As grade-all writes them (a background feedback writer, a drawer sent the charts before the
    last pages are written): every file equals what write_exports writes from the gradebook alone."""
    from autograder.assignment import load_assignment
    from autograder.engine.results import GradeReport, TestResult
    from autograder.grading.export import FeedbackWriter, write_exports
    from autograder.grading.gradebook import Gradebook, Stored

    spec = load_assignment("yahtzee")
    trace = tmp_path / "trace.jsonl"
    monkeypatch.setenv(TRACE_ENV, str(trace))
    kept, fresh = tmp_path / "kept", tmp_path / "fresh"
    drawer = charts.Drawer.start()
    with Gradebook(kept / "gradebook.sqlite") as book:
        writer = FeedbackWriter(book, spec, kept, background=True)
        for n, student in enumerate(["ana", "ben", "cleo"]):
            report = GradeReport(submission=student, assignment=spec.name)
            for number, (problem, stage) in enumerate([(1, 1), (7, 2), (13, 3), (17, 4)]):
                ok = number <= n
                report.tests.append(TestResult(name=f"P{problem} check {number}", problem=problem, stage=stage,
                                               score=2.5 if ok else 0.0, max_score=2.5,
                                               status="passed" if ok else "failed", output="" if ok else "<b>no</b>"))
            writer.write(book.store(assignment=spec.name, submission_id=student, content_hash=f"h-{student}",
                                    stage="all", stored=Stored.of(report.to_dict()), feedback=f"for {student}",
                                    wall_time=0.1, cpu_time=0.05, grader_version="test", keep=True))
        _ready(drawer)
        write_exports(book, spec, kept, written=writer, drawer=drawer)
    assert drawer.sent is not None and drawer.process.returncode == 0
    assert [e["by"] for e in _events(trace) if e["event"] == "charts"] == ["drawer"]
    fresh.mkdir()
    (fresh / "gradebook.sqlite").write_bytes((kept / "gradebook.sqlite").read_bytes())
    with Gradebook(fresh / "gradebook.sqlite") as book:
        write_exports(book, spec, fresh)

    def files(out):
        return {str(p.relative_to(out)): b"".join(line for line in p.read_bytes().splitlines(True)
                                                  if b"generated" not in line.lower())
                for p in sorted(out.rglob("*")) if p.is_file() and not p.name.startswith("gradebook")}
    assert files(kept) == files(fresh)
    assert files(kept)["report.html"].count(b"<svg") == 3


def test_a_drawer_lagging_while_the_workers_grade_is_told_apart_from_one_that_is_ready():
    """grade-all gives up a drawer that gets under LAGGING_SHARE of a core while the workers grade,
    or is not ready as their last grades run (its own import then runs while they grade, not after
    the last grade): not before LAGGING_AFTER, nor a drawer that is ready; one that is gone lags."""
    stopped = charts.Drawer.start()
    os.kill(stopped.process.pid, signal.SIGSTOP)
    assert stopped.lagging() is False                           # (too early to tell)
    assert stopped.lagging(last=True) is True                   # not ready as the last grades run
    stopped.started -= 2 * charts.LAGGING_AFTER                 # as if started two of them ago
    assert stopped.lagging() is True
    stopped.close()
    assert stopped.lagging() is True                            # gone
    ready = _stand_in("pickle.dumps(['<svg the chart/>'])")
    _ready(ready)
    ready.started -= 2 * charts.LAGGING_AFTER
    assert ready.lagging() is False and ready.lagging(last=True) is False
    ready.close()
