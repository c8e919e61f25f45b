"""grade-all's parent stores each grade as its worker serialised it and makes the exports from the
rows it kept in memory; the class report draws its last chart in a forked child.  Each shortcut
must give exactly what the long way gives: the row read back, the files of a fresh export, the
chart drawn in this process.  Constructed grades (no grading), so the whole file takes ~1 s.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from autograder.assignment import load_assignment
from autograder.engine.results import GradeReport, TestResult
from autograder.grading.export import FeedbackWriter, write_exports
from autograder.grading.gradebook import Gradebook, Stored

SPEC = load_assignment("yahtzee")
STUDENTS = ["ana", "ben", "cleo", "dev"]


def _report(student: str, passed: int) -> GradeReport:
    report = GradeReport(submission=student, assignment=SPEC.name,
                         submission_info={"submitted_at": "2026-11-21T10:00:00+00:00", "lms": "canvas"})
    for number, (problem, stage) in enumerate([(1, 1), (2, 1), (7, 2), (13, 3), (17, 4)]):
        ok = number < passed
        report.tests.append(TestResult(
            name=f"P{problem} check {number}", problem=problem, stage=stage, score=2.5 if ok else 0.0,
            max_score=2.5, status="passed" if ok else "failed", output="" if ok else f"<b>{student}</b> \u00e9 0",
            hint="" if ok else "a hint", elapsed=0.001 * number, test_id=f"suite::t{number}"))
    if student == "dev":
        report.error = "Your file has a syntax error on line 3"
    return report


def _store(book: Gradebook, student: str, passed: int, keep: bool = True):
    report = _report(student, passed)
    return book.store(assignment=SPEC.name, submission_id=student, content_hash=f"h-{student}", stage="all",
                      stored=Stored.of(report.to_dict()), feedback=f"feedback for {student}", wall_time=0.123456,
                      cpu_time=0.0654321, grader_version="test", source=f"/class/{student}.py", keep=keep)


def test_a_kept_row_is_the_row_read_back_and_record_stores_the_same_bytes(tmp_path):
    with Gradebook(tmp_path / "a.sqlite") as book, Gradebook(tmp_path / "b.sqlite") as other:
        first = _store(book, "ana", 3)
        again = _store(book, "ana", 4)                     # an upsert: times_graded 2
        (read,) = book.rows(SPEC.name)
        assert again == read and again.times_graded == 2 and first.times_graded == 1
        assert isinstance(read.score, float) and read.score == 10.0
        other.record(assignment=SPEC.name, submission_id="ana", content_hash="h-ana", stage="all",
                     report=_report("ana", 4), feedback="feedback for ana", wall_time=0.123456, cpu_time=0.0654321,
                     grader_version="test", source="/class/ana.py")
        columns = "submission_id, content_hash, stage, status, score, max_score, tests, report, feedback, error"
        assert (book.db.execute(f"SELECT {columns} FROM grades").fetchall()
                == other.db.execute(f"SELECT {columns} FROM grades").fetchall())
        # an error row with a maximum of its own (grade-all's "could not grade" row): 0 of that maximum
        error = GradeReport(submission="eve", assignment=SPEC.name, error="no file")
        row = book.store(assignment=SPEC.name, submission_id="eve", content_hash="x", stage="all",
                         stored=Stored.of(error.to_dict(), 100.0), feedback="x", wall_time=0, cpu_time=0,
                         grader_version="test", keep=True)
        assert (row.score, row.max_score, row.error) == (0.0, 100.0, "no file")
        assert row == book.rows(SPEC.name, "eve")[0]
        assert json.loads(book.db.execute("SELECT tests FROM grades WHERE submission_id = 'ana'").fetchone()[0]) \
            == read.report["tests"]


def test_to_dict_is_asdict_with_the_totals_byte_for_byte():
    """GradeReport.to_dict (by hand, a result's plain fields copied as they are) gives the JSON text
    dataclasses.asdict gives, key order included, whatever a result's fields hold."""
    report = _report("ana", 3)
    report.tests[0].status, report.tests[0].score = "failed", 0.0         # changed after it was made
    report.tests[1].output = ["not", {"plain": "text"}]                   # a field holding containers
    report.tests[2].hint = 7                                              # another type than declared
    report.notes, report.flags = ["a note"], ["a flag"]
    expected = dict(dataclasses.asdict(report), score=report.score, max_score=report.max_score)
    assert json.dumps(report.to_dict()) == json.dumps(expected)
    assert report.to_dict()["tests"][1]["output"] is not report.tests[1].output     # a copy, as asdict's


def _files(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*"))
            if p.is_file() and not p.name.startswith("gradebook") and p.name != "report.html"}


def test_exports_from_rows_kept_in_memory_equal_a_fresh_export(tmp_path):
    """The rows this run stored come from memory, one stored by an earlier run from the gradebook;
    every file equals what write_exports writes from the gradebook alone."""
    kept, fresh = tmp_path / "kept", tmp_path / "fresh"
    with Gradebook(kept / "gradebook.sqlite") as book:
        _store(book, "cleo", 1, keep=False)                # an earlier run's row
        writer = FeedbackWriter(book, SPEC, kept, background=True)      # as grade-all writes them
        for passed, student in enumerate(["ana", "ben", "dev"]):
            writer.write(_store(book, student, passed + 2))
        write_exports(book, SPEC, kept, written=writer)                 # waits for the writer's thread
        assert set(writer.rows) == {"ana", "ben", "dev"}
        report = (kept / "report.html").read_text(encoding="utf-8")
    fresh.mkdir()
    (fresh / "gradebook.sqlite").write_bytes((kept / "gradebook.sqlite").read_bytes())
    with Gradebook(fresh / "gradebook.sqlite") as book:
        write_exports(book, SPEC, fresh)
    assert _files(kept) == _files(fresh)
    assert sorted(p.name for p in (kept / "feedback").iterdir()) == sorted(
        f"{s}.{ext}" for s in ["ana", "ben", "cleo", "dev"] for ext in ("html", "md", "txt"))
    # report.html differs only in the minute it was generated
    strip = lambda text: "\n".join(line for line in text.splitlines() if "generated" not in line.lower())  # noqa: E731
    assert strip(report) == strip((fresh / "report.html").read_text(encoding="utf-8"))
    assert report.count("<svg") >= 3


def test_a_page_that_cannot_be_written_in_the_background_fails_the_exports(tmp_path):
    import pytest

    with Gradebook(tmp_path / "gradebook.sqlite") as book:
        writer = FeedbackWriter(book, SPEC, tmp_path, background=True)
        writer.write(_store(book, "ana", 2))
        writer.write(_store(book, "no/such/folder", 2))            # its page has nowhere to go
        writer.write(_store(book, "ben", 2))
        with pytest.raises(FileNotFoundError):
            writer.finish()
        assert "ana" in writer.rows and "no/such/folder" not in writer.rows
        writer.finish()                                             # raised once; the thread is gone


# The fork checks run in a fresh process: draw() forks only when no other thread runs, and a test
# process may hold threads of earlier tests.  Its forks are counted (the pids in `forks`).
COUNT_FORKS = """
forks = []
real_fork = os.fork
def counting_fork():
    pid = real_fork()
    if pid:
        forks.append(pid)
    return pid
os.fork = counting_fork
"""
FORKS = """
import json, os, sys, threading
from pathlib import Path
from autograder.grading import charts
""" + COUNT_FORKS + """

wanted = [(charts.histogram, ([5.0, 50.0, 100.0, 100.0],), {}),
          (charts.rate_bars, ([("Stage 1", 0.5), ("Stage 2", 0.1)], "stage-rates", "Checks", 0.2), {}),
          (charts.rate_bars, ([(f"P{n} a title", n / 20) for n in range(1, 21)], "problem-rates", "Full"),
           {"axis": "% full"})]
serial = [function(*args, **kwargs) for function, args, kwargs in wanted]
out = {"same": charts.draw(wanted) == serial, "forks": len(forks)}

def dies_in_the_child(parent, marker):
    if os.getpid() != parent:
        Path(marker).write_text("the child ran")
        os._exit(3)
    return "drawn here"

marker = Path(sys.argv[1])
out["fallback"] = charts.draw([(charts.histogram, ([10.0],), {}), (dies_in_the_child, (os.getpid(), str(marker)), {})])[1]
out["child_ran"] = marker.is_file()
stop = threading.Event()
other = threading.Thread(target=stop.wait)
other.start()
before = len(forks)
out["threaded_same"] = charts.draw(wanted) == serial
out["threaded_forks"] = len(forks) - before
stop.set()
other.join()
print(json.dumps(out))
"""


def test_a_chart_drawn_by_a_forked_child_is_the_one_drawn_here_and_a_dying_child_costs_only_its_time(tmp_path):
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", FORKS, str(tmp_path / "marker")], capture_output=True, text=True,
                          cwd=Path(__file__).resolve().parent.parent, stdin=subprocess.DEVNULL, timeout=120)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got == {"same": True, "forks": 1,                   # the last chart by a child, byte for byte
                   "fallback": "drawn here", "child_ran": True,  # the child died: the chart was drawn here
                   "threaded_same": True, "threaded_forks": 0}  # another thread running: no fork at all


def _wal_frames(path: Path) -> tuple[int, int]:
    """(frames in PATH's WAL, frames of them copied back into the file), read from its wal-index
    (the -shm file; SQLite's documented layout: mxFrame at byte 16 of the index header, nBackfill
    at byte 96, native byte order), without a checkpoint of our own (that would copy them)."""
    import struct

    data = Path(f"{path}-shm").read_bytes()[:100]
    return struct.unpack_from("=I", data, 16)[0], struct.unpack_from("=I", data, 96)[0]


def test_the_gradebooks_wal_is_copied_back_while_the_exports_are_made_and_nothing_is_lost(tmp_path):
    """grade-all has its gradebook's WAL copied back (and synced) by a thread of its own once the
    last row is stored (Gradebook.checkpoint_soon), not by close() at the command's end: meanwhile
    the book reads as ever; closed, the file holds every row and no WAL is left.  A row stored after
    (grade-all stores none) is not lost either: close() copies it."""
    path = tmp_path / "gradebook.sqlite"
    with Gradebook(path) as book:
        book.db.execute("PRAGMA wal_autocheckpoint=0")       # (everything stays in the WAL: the copy is ours)
        for n, student in enumerate(STUDENTS):
            _store(book, student, n + 1, keep=False)
        frames, copied = _wal_frames(path)
        assert frames > 0 and copied == 0
        book.checkpoint_soon()
        assert [r.submission_id for r in book.rows(SPEC.name)] == sorted(STUDENTS)    # read meanwhile
        book.checkpointed()
        assert book._checkpointing is None
        assert _wal_frames(path) == (frames, frames)          # every frame copied by the thread
        _store(book, "eve", 2, keep=False)                   # written after: left to close()
        later, copied = _wal_frames(path)                    # (the WAL begins again once all copied)
        assert later > copied
        book.checkpoint_soon()                               # (a second one: as well)
    assert not Path(f"{path}-wal").exists() and not Path(f"{path}-shm").exists()
    with Gradebook(path) as book:
        assert [r.submission_id for r in book.rows(SPEC.name)] == sorted([*STUDENTS, "eve"])


# (a fresh process, as FORKS: the copy's thread is slowed down, as on a slow disk)
SLOW_COPY = """
import json, os, sys, time
from pathlib import Path
from autograder.assignment import load_assignment
from autograder.grading import gradebook
from autograder.grading.export import write_exports
""" + COUNT_FORKS + """
copy = gradebook._checkpoint
def slow_copy(path):
    time.sleep(0.5)
    copy(path)
gradebook._checkpoint = slow_copy
with gradebook.Gradebook(Path(sys.argv[1])) as book:
    book.checkpoint_soon()
    write_exports(book, load_assignment("yahtzee"), Path(sys.argv[2]))
    print(json.dumps({"forks": len(forks), "copying": book._checkpointing is not None}))
"""


def test_the_charts_drawn_here_wait_for_the_copy_so_the_last_one_is_still_drawn_by_a_forked_child(tmp_path):
    """Without a drawer the report's last chart is drawn by a forked child only when no other thread
    runs (charts.draw): write_exports waits for the gradebook's copy first (a copy still running
    would make it draw all three here, one after the other)."""
    import subprocess
    import sys

    with Gradebook(tmp_path / "gradebook.sqlite") as book:
        for n, student in enumerate(STUDENTS):
            _store(book, student, n + 1, keep=False)
    done = subprocess.run([sys.executable, "-c", SLOW_COPY, str(tmp_path / "gradebook.sqlite"), str(tmp_path / "out")],
                          capture_output=True, text=True, cwd=Path(__file__).resolve().parent.parent,
                          stdin=subprocess.DEVNULL, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {"forks": 1, "copying": False}
    assert (tmp_path / "out" / "report.html").read_text(encoding="utf-8").count("<svg") >= 3
