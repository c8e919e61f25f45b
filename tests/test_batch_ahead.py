"""A worker grading one submission while the next is loaded ahead (grade.grade_stream, _Ahead).

When its queue already holds the next path, a grading stream starts that submission's sandboxes,
loads its file and runs its request plan in a thread while the checks of the current one run.
Two students' sandbox families are then alive at once in one worker.  These tests show:
  * every report of a pipelined stream is the report of the same stream graded one at a time
    (scores, statuses, feedback, notes, flags, load failures), with a hostile program (mallory),
    one that SIGKILLs everything it can (its exact score), a file that does not load and
    a file that is not UTF-8 (no sandbox at all), each both ahead of an honest one and graded
    while an honest one is ahead; and each of them was really loaded ahead (taken before the
    report before it was delivered);
  * grade-all interrupted while its worker holds a submission ahead loses nothing and grades
    nothing twice on resume;
  * a worker that dies holding two submissions (one ahead) costs only the one it died of;
  * suites that do not load cost one failed session, whose reason every row gets;
  * a worker's queue hands out in order, starts each row's clock when it is graded, and hands
    what a failed session took ahead to the next; a grader fault while loading ahead ends the
    session on that submission, with its sandboxes stopped.
One grading session per stream; the batches are small and use --jobs 1 (one worker: always one ahead).
"""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest
from helpers.batch import (
    BROKEN,
    MUTANT,
    SOLUTION,
    assert_nothing_left,
    count_rows,
    interrupted,
    rows_of,
    run_batch,
)
from helpers.hostile import BY_NAME, CORPUS, LIMITS_ENV, REPO

from autograder.engine import reporters
from autograder.engine.isolation import isolation
from autograder.grading.grade import grade_stream
from autograder.grading.gradebook import Gradebook
from autograder.grading.tracing import TRACE_ENV

MALLORY = (REPO / "samples" / "class" / "mallory.py").read_text(encoding="utf-8")
KILLER = SOLUTION.rstrip("\n") + "\n\n\n" + (CORPUS / "kill_everything.py").read_text(encoding="utf-8")

# Each hostile or broken program sits between honest ones: it is loaded ahead while an honest
# one's checks run, and an honest one is loaded ahead while its checks run.
STREAM = {"a_honest": SOLUTION, "b_killer": KILLER, "c_honest": SOLUTION, "d_mallory": MALLORY,
          "e_mutant": MUTANT, "f_broken": BROKEN, "g_honest": SOLUTION, "h_not_utf8": b"\xff\xfe\x00def",
          "i_honest": SOLUTION}


class _Queue:
    """A worker's queue as grade_stream sees it: paths, and ready() (the next is already here)."""

    def __init__(self, paths: list[Path], events: list[tuple[str, str]]):
        self.paths = list(paths)
        self.events = events

    def __iter__(self) -> _Queue:
        return self

    def __next__(self) -> Path:
        if not self.paths:
            raise StopIteration
        path = self.paths.pop(0)
        self.events.append(("taken", path.stem))
        return path

    def ready(self) -> bool:
        return bool(self.paths)


def _seen(report) -> tuple:
    """Everything of a report but its timing."""
    return (report.score, report.max_score, report.error, report.notes, report.flags, report.hidden_not_run,
            [(t.test_id, t.status, t.score, t.max_score, t.output) for t in report.tests],
            reporters.to_text(report))


@pytest.fixture(scope="module")
def streams(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ahead")
    paths = []
    for name, text in STREAM.items():
        path = folder / f"{name}.py"
        path.write_bytes(text) if isinstance(text, bytes) else path.write_text(text, encoding="utf-8")
        paths.append(folder / f"{name}.py")
    events: list[tuple[str, str]] = []
    pipelined: dict[str, object] = {}
    alone: dict[str, object] = {}

    def deliver(report) -> None:
        name = Path(report.submission).stem
        events.append(("delivered", name))
        pipelined[name] = report

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("AUTOGRADER_LIMITS", LIMITS_ENV)       # the hostile corpus's limits (its exact scores)
        grade_stream(_Queue(paths, events), deliver, "yahtzee")
        grade_stream(iter(paths), lambda r: alone.__setitem__(Path(r.submission).stem, r), "yahtzee")
    return pipelined, alone, events


def test_each_submission_was_loaded_ahead_of_the_last_ones_report(streams):
    _, _, events = streams
    names = list(STREAM)
    for before, after in zip(names, names[1:]):
        assert events.index(("taken", after)) < events.index(("delivered", before)), (before, after, events)
    assert [name for kind, name in events if kind == "delivered"] == names


@pytest.mark.parametrize("name", list(STREAM))
def test_a_report_graded_with_another_ahead_is_the_report_graded_alone(streams, name):
    pipelined, alone, _ = streams
    assert _seen(pipelined[name]) == _seen(alone[name])


def test_the_exact_scores_with_two_families_alive_at_once(streams):
    pipelined, _, _ = streams
    for name in ("a_honest", "c_honest", "g_honest", "i_honest"):
        assert pipelined[name].score == 100 and not pipelined[name].error, name
    assert pipelined["f_broken"].score == 0 and "line" in pipelined["f_broken"].error
    assert pipelined["h_not_utf8"].score == 0 and "UTF-8" in pipelined["h_not_utf8"].error
    assert pipelined["d_mallory"].flags, "mallory's shell command is flagged"
    killer = BY_NAME["kill_everything"]
    if killer.needs and not isolation().get(killer.needs):
        pytest.skip(f"kill_everything needs {killer.needs}")
    assert pipelined["b_killer"].score == killer.score
    assert any("your program crashed (killed by SIGKILL)" in t.output for t in pipelined["b_killer"].tests)


# --- grade-all: one worker, always one submission ahead --------------------------------------------

def _class(folder: Path, programs: dict[str, str]) -> Path:
    folder.mkdir()
    for name, text in programs.items():
        (folder / f"{name}.py").write_text(text, encoding="utf-8")
    return folder


def test_an_interrupted_batch_with_one_ahead_loses_nothing_and_grades_nothing_twice(tmp_path, mutant_report):
    names = [f"s{i:02d}" for i in range(6)]
    klass = _class(tmp_path / "class", {n: MUTANT if i % 3 == 2 else SOLUTION for i, n in enumerate(names)})
    out, trace = tmp_path / "out", tmp_path / "trace.jsonl"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(TRACE_ENV, str(trace))
        result = interrupted([str(klass), "--jobs", "1", "--out", str(out)], tmp_path, "interrupted", out,
                             signal.SIGINT)
    assert result["code"] == 130, result["stdout"] + result["stderr"]
    assert_nothing_left(result)
    events = [json.loads(line) for line in trace.read_text(encoding="utf-8").splitlines()]
    assert any(e["event"] == "task" and e.get("ahead") for e in events), "no submission was ever sent ahead"
    before = rows_of(out)
    assert 2 <= len(before) < len(names)
    result = run_batch([str(klass), "--jobs", "1", "--out", str(out)], tmp_path, "resumed")
    assert result["code"] == 0, result["stdout"] + result["stderr"]
    assert f"{len(names)} submissions, {len(names) - len(before)} graded, {len(before)} unchanged" in result["stdout"]
    after = rows_of(out)
    assert count_rows(out) == (len(names), len(names)) and set(after) == set(names)
    for i, name in enumerate(names):
        score, _at, times, error = after[name]
        assert score == (mutant_report.score if i % 3 == 2 else 100) and not error and times == 1, name
    for name, row in before.items():
        assert after[name] == row, f"{name} was stored before the interruption and then regraded"


def test_a_worker_dying_with_one_ahead_costs_only_the_one_it_died_of(tmp_path):
    """The test hook kills the worker as it receives 'dies', which it does while grading 'a' (sent
    to it ahead): both go back, each is graded alone; 'a' gets its grade, 'dies' its crashed row."""
    klass = _class(tmp_path / "class", {"a": SOLUTION, "dies": SOLUTION, "z": MUTANT})
    out = tmp_path / "out"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("AUTOGRADER_TEST_CRASH_ON", "dies")
        result = run_batch([str(klass), "--jobs", "1", "--out", str(out)], tmp_path, "dies")
    assert result["code"] == 0, result["stdout"] + result["stderr"]
    assert "3 submissions, 2 graded, 0 unchanged (skipped), 1 grader failures" in result["stdout"]
    with Gradebook(out / "gradebook.sqlite") as book:
        rows = {r.submission_id: r for r in book.rows("yahtzee")}
    assert rows["dies"].status == "crashed" and "the grader crashed on this submission" in rows["dies"].error
    assert rows["a"].status == "graded" and rows["a"].score == 100 and 0 < rows["z"].score < 100
    assert {sid: times for sid, (_, _, times, _) in rows_of(out).items()} == {"a": 1, "dies": 1, "z": 1}


def test_suites_that_do_not_load_cost_one_session_not_one_per_submission(tmp_path):
    """A worker takes its first submission before its session collects the suites (its sandbox
    loads it meanwhile): when the suites do not load, that one and the rest get the reason (a
    grader failure, never the student's) from the one failed session, not a new session each."""
    import shutil

    course = tmp_path / "pig"
    shutil.copytree(REPO / "tests" / "toy" / "pig", course,
                    ignore=shutil.ignore_patterns("__pycache__", "solution", "starter"))
    suite = course / "suites" / "test_stage1_scoring.py"
    suite.write_text("not_defined_anywhere()\n" + suite.read_text(encoding="utf-8"), encoding="utf-8")
    reference = (course / "reference.py").read_text(encoding="utf-8")
    klass = _class(tmp_path / "class", {f"s{i}": reference for i in range(4)})
    out = tmp_path / "out"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("AUTOGRADER_CACHE_DIR", str(tmp_path / "cache"))
        result = run_batch([str(klass), "--assignment", str(course), "--stage", "1", "--jobs", "1", "--out", str(out)],
                           tmp_path, "broken-suites")
    assert result["code"] == 0, result["stdout"] + result["stderr"]
    assert "4 submissions, 0 graded, 0 unchanged (skipped), 4 grader failures" in result["stdout"], result["stdout"]
    with Gradebook(out / "gradebook.sqlite") as book:
        rows = list(book.rows("pig"))
    assert len(rows) == 4 and all(r.status == "crashed" and "SuiteLoadError" in r.error for r in rows), \
        [(r.status, r.error) for r in rows]
    logs = "".join(p.read_text(encoding="utf-8") for p in (out / "logs").glob("worker-*.log"))
    assert logs.count("Traceback") == 1, logs[-3000:]


def test_a_workers_queue_hands_out_in_order_and_starts_each_clock_once_it_is_graded():
    """worker._Tasks over a real pipe: the current submission's clock starts when it becomes the
    one graded (not when it is received or loaded ahead), again when the session that took it
    early asks for its first one, and what a failed session had taken ahead is handed out again."""
    import multiprocessing

    from autograder.grading.worker import _Tasks

    parent, child = multiprocessing.Pipe()
    clocks: list[str] = []
    queue = _Tasks(child, lambda task: clocks.append(task[0]), None, False)
    assert not queue.ready()
    for sid in ("a", "b"):
        parent.send((sid, f"/{sid}.py", {}))
    assert queue.ready() and next(queue) == "/a.py" and clocks == ["a"]     # taken early, as a session starts
    queue.session_started()
    assert clocks == ["a", "a"]                                           # the session asks: a's clock again
    assert queue.ready() and next(queue) == "/b.py" and clocks == ["a", "a"]   # b loaded ahead: no clock yet
    queue.delivered()
    assert clocks == ["a", "a", "b"] and queue.current[0] == "b"
    parent.send(("c", "/c.py", {}))
    assert next(queue) == "/c.py" and queue.handed == 2                    # c loaded ahead of b
    queue.rewind()                                                        # the session failed on b
    queue.delivered()                                                     # (b's failure row)
    assert queue.current is None and clocks == ["a", "a", "b"]
    assert queue.ready() and next(queue) == "/c.py" and clocks[-1] == "c"   # c again, to the next session
    queue.delivered()
    parent.send(None)
    assert not queue.ready() or next(queue, None) is None
    assert queue.done and next(queue, None) is None and (queue.taken, queue.answered) == (4, 3)


def test_a_grader_fault_while_loading_ahead_ends_the_session_on_that_submission(tmp_path, monkeypatch):
    """The thread loading a submission ahead raises (a grader bug, injected): the report before it
    is delivered, the session ends when that submission would be graded (a worker then gives it
    the grader's-fault row and hands what follows to a new session: the queue test above), the
    one after it was never taken, and its sandboxes are stopped."""
    from autograder.engine.program import Program

    paths = []
    for name in ("a", "bad", "c"):
        (tmp_path / f"{name}.py").write_text(SOLUTION + f"\n# {name}\n", encoding="utf-8")
        paths.append(tmp_path / f"{name}.py")
    faulty: list[Program] = []
    load_early = Program.load_early

    def failing(self, plan):
        if self.source.endswith("# bad\n"):
            faulty.append(self)
            raise RuntimeError("injected grader fault")
        return load_early(self, plan)

    monkeypatch.setattr(Program, "load_early", failing)
    events: list[tuple[str, str]] = []
    delivered: list[str] = []
    grade_stream(_Queue(paths, events), lambda r: delivered.append(Path(r.submission).stem), "yahtzee")
    assert delivered == ["a"] and events == [("taken", "a"), ("taken", "bad")]
    assert len(faulty) == 1 and faulty[0]._sandbox._closed
