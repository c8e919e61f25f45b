"""`grade-all` end to end, with real processes (no mocks).

A small class (the reference, a mutant, a syntax error, an endless loop, a corrupt zip) is graded
by `python -m autograder grade-all` run under a child-subreaper wrapper, so any process that
outlives the batch (a worker, a sandbox of uid 40000+) comes back to the wrapper and is reported.
Then: the CSV's rows and per-stage/per-problem columns; a re-run skips what is unchanged, a
changed file is regraded, --force regrades all; a student's sandbox sees neither classmates nor
the gradebook; a class zipped as an LMS (Canvas) export and an nbgrader submitted/ tree; bad input
(a missing folder, an unreadable zip) is exit 2 with one clear line.  Interrupted batches are in
test_batch_resume.py, LMS files and late work in test_batch_lms.py; the class, the wrapper and
the readers in helpers/batch.py.

Short limits (AUTOGRADER_LIMITS, honoured by every Program the workers make) keep the endless
loop cheap.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from helpers.batch import (
    BROKEN,
    LOOP,
    MUTANT,
    MUTANT_PROBLEMS,
    REPO,
    SOLUTION,
    SPEC,
    count_rows,
    env,
    num,
    read_csv,
    rows_of,
    run_batch,
)
from helpers.cli import class_beside_a_readable_folder, peek_source

from autograder.grading.export import csv_header
from autograder.grading.gradebook import Gradebook
from autograder.grading.tracing import TRACE_ENV
from autograder.grading.workers import PIN_ENV, cores_for


# ---------------------------------------------------------------------------------------------
# The class and its first batch
# ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def tmp(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("batch")


@pytest.fixture(scope="module")
def first(tmp):
    klass, out = tmp / "class", tmp / "out"
    klass.mkdir()
    (klass / "ref.py").write_text(SOLUTION, encoding="utf-8")
    (klass / "mutant.py").write_text(MUTANT, encoding="utf-8")
    (klass / "broken.py").write_text(BROKEN, encoding="utf-8")
    (klass / "loop.py").write_text(LOOP, encoding="utf-8")
    (klass / "late.zip").write_bytes(b"PK\x03\x04 the upload was cut short")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(TRACE_ENV, str(tmp / "first-trace.jsonl"))
        result = run_batch([str(klass), "--jobs", "2", "--out", str(out)], tmp, "first")
    return {"class": klass, "out": out, "result": result, "trace": tmp / "first-trace.jsonl"}


IDS = {"ref", "mutant", "broken", "loop", "late"}


def test_every_submission_is_recorded(first):
    result = first["result"]
    assert result["code"] == 0, result["stdout"] + result["stderr"]
    assert "grade-all done: 5 submissions, 5 graded, 0 unchanged (skipped), 0 grader failures" in result["stdout"]
    rows = rows_of(first["out"])
    assert set(rows) == IDS
    assert count_rows(first["out"]) == (5, 5)
    assert all(n == 1 for _, _, n, _ in rows.values())
    with Gradebook(first["out"] / "gradebook.sqlite") as book:
        runs = book.runs()
    assert [(r["status"], r["found"], r["graded"], r["skipped"]) for r in runs] == [("done", 5, 5, 0)]
    for name in ("grades.csv", "grades.json", "report.html"):
        assert (first["out"] / name).is_file()
    for sid in IDS:
        for ext in ("md", "txt", "html"):
            assert (first["out"] / "feedback" / f"{sid}.{ext}").is_file()


def test_matplotlib_is_imported_once_the_workers_grade_not_while_they_start(first):
    """The class report's matplotlib (~0.3 s of CPU) competes with nothing on the way to the first
    grade: it is imported once the first row from a worker is stored (late.zip's error row, stored
    before the workers start, does not count), after a worker's session was ready.  By the parent
    here: a drawer (charts.Drawer, tests/test_report_drawer.py) is started only when more than two
    grades a worker are left then, and this batch has 4 from the workers at --jobs 2."""
    events = [json.loads(line) for line in first["trace"].read_text(encoding="utf-8").splitlines()]
    order = [e["event"] for e in events]
    assert order.count("charts-warm") == 1 and order.count("first-row") == 1 and order.count("worker-ready") == 2
    assert "drawer-start" not in order and "drawer-lagging" not in order and "charts" not in order
    warm = order.index("charts-warm")
    assert order.index("worker-ready") < order.index("first-row") < warm < order.index("graded") < order.index("exported")



def test_the_parent_says_when_the_middle_half_of_the_rows_begins_and_ends(first):
    """The bench's parent CPU a row in the steady state (bench.batch.accounting): grade_all traces
    its CPU when the row a quarter of the way in and the one three quarters in are stored (of the 4
    rows from the workers: the 1st and the 3rd; late.zip's error row, stored before, is not one)."""
    events = [json.loads(line) for line in first["trace"].read_text(encoding="utf-8").splitlines()]
    middle = [e for e in events if e["event"] == "middle"]
    assert [e["stored"] for e in middle] == [1, 3] and middle[0]["cpu"] <= middle[1]["cpu"]
    order = [e["event"] for e in events]         # (the first with the first row from a worker: just before "first-row")
    assert order.index("found") < order.index("middle") < order.index("first-row") < order.index("graded")

def test_each_worker_runs_on_a_cpu_of_its_own_when_there_is_one_for_each(first):
    """--jobs 2 on a machine with 2 usable CPUs: each worker (and so every sandbox it forks) is
    pinned to its own CPU; with another count of CPUs nothing is pinned (workers.cores_for)."""
    events = [json.loads(line) for line in first["trace"].read_text(encoding="utf-8").splitlines()]
    cores = [e["core"] for e in events if e["event"] == "worker-start"]
    expected = cores_for(2)
    assert len(cores) == 2
    assert sorted(cores) == expected if expected is not None else cores == [None, None]


def test_each_worker_adopts_the_template_the_parent_booted_for_it(first):
    """As root with a pid namespace, grade-all's parent boots one sandbox template per worker while
    its fork server starts (WorkerPool._boot_templates) and hands each to one worker, whose session
    forks its sandboxes from it; the parent reaps them all, with their sandboxes' CPU.  Once the
    submissions are found it asks each for its worker's first students' root template
    (WorkerPool.prepare_roots), which the worker adopts with it (its setup is theirs: one class
    folder; test_sandbox_roots.py shows that their roots come from it)."""
    from autograder.engine.isolation import isolation

    iso = isolation()
    events = [json.loads(line) for line in first["trace"].read_text(encoding="utf-8").splitlines()]
    adopted = [e["template"] for e in events if e["event"] == "worker-start"]
    reaped = [e for e in events if e["event"] == "template-reaped"]
    if not (iso["uid_drop"] and iso["pid_namespace"]):
        pytest.skip("the template serves root graders with a pid namespace only")
    assert adopted == [True, True]
    assert [e["root"] for e in events if e["event"] == "worker-start"] == [True, True]
    assert [e["count"] for e in events if e["event"] == "roots-asked"] == [2]
    starts = {e["pid"] for e in events if e["event"] == "worker-start"}
    assert len(reaped) == 2 and {e["worker"] for e in reaped} == starts and all(e["children"] > 0 for e in reaped)
    order = [e["event"] for e in events]
    assert (order.index("templates-booted") < order.index("roots-asked") < order.index("worker-start")
            < order.index("template-reaped"))


def test_workers_are_pinned_only_with_a_worker_for_every_cpu(monkeypatch):
    monkeypatch.delenv(PIN_ENV, raising=False)
    assert cores_for(2, {0, 1}) == [0, 1]
    assert cores_for(4, {3, 1, 2, 0}) == [0, 1, 2, 3]
    assert cores_for(1, {0}) is None                # one worker: nothing to pin it away from
    assert cores_for(2, {0, 1, 2, 3}) is None       # fewer workers than CPUs: the scheduler moves them
    assert cores_for(3, {0, 1}) is None
    monkeypatch.setenv(PIN_ENV, "0")
    assert cores_for(2, {0, 1}) is None


def test_each_worker_runs_the_session_its_fork_server_collected(first):
    """The fork server configured pytest and collected the suites once before it forked the workers
    (preloading.prepare_session): each worker's session is that one, not one of its own.  (The
    threat model's proof of "the session collected once" names this test.)"""
    events = [json.loads(line) for line in first["trace"].read_text(encoding="utf-8").splitlines()]
    assert [e.get("prepared") for e in events if e["event"] == "session-collected"] == [True, True]


FORK_SERVER = """
import os, sys
from pathlib import Path
from multiprocessing import forkserver
from autograder.grading.workers import WorkerPool
WorkerPool(1, "yahtzee", "all", Path(sys.argv[1]), 60.0).start()
server = forkserver._forkserver._forkserver_pid
print(os.readlink(f"/proc/{server}/fd/1"), os.readlink(f"/proc/{server}/fd/2"), os.readlink("/proc/self/fd/1"),
      os.readlink("/proc/self/fd/2"), flush=True)
"""


def test_the_fork_server_writes_to_its_log_so_our_output_ends_when_we_do(tmp_path):
    """The fork server outlives grade-all by its own exit: on our stdout and stderr, a reader of
    them to their end (a pipe) would wait for it.  It writes to logs/fork-server.log; we keep ours."""
    done = subprocess.run([sys.executable, "-c", FORK_SERVER, str(tmp_path / "logs")], capture_output=True,
                          text=True, cwd=REPO, env=env(), stdin=subprocess.DEVNULL, timeout=60)
    assert done.returncode == 0, done.stderr
    server_out, server_err, ours, our_err = done.stdout.split()
    assert server_out == server_err == str(tmp_path / "logs" / "fork-server.log")
    assert ours.startswith("pipe:") and our_err.startswith("pipe:") and ours != our_err


NO_TRACKER = """
import multiprocessing, os, sys
from multiprocessing import resource_tracker
from autograder.grading.workers import _without_resource_tracker
_without_resource_tracker()
process = multiprocessing.get_context("forkserver").Process(target=os.getpid)
process.start()
process.join(30)
kids = [int(pid) for pid in os.listdir("/proc") if pid.isdigit() and os.path.exists(f"/proc/{pid}/stat")
        and open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1] == str(os.getpid())]
commands = [open(f"/proc/{pid}/cmdline", "rb").read() for pid in kids]
print(process.exitcode, resource_tracker._resource_tracker._pid, sum(b"resource_tracker" in c for c in commands),
      sum(b"forkserver" in c for c in commands))
"""


def test_a_batch_starts_no_resource_tracker():
    """multiprocessing's resource tracker (a process of its own: an interpreter's start) is not
    started: grade-all makes no named semaphore nor shared memory for it to clean up; the fork
    server and its children work as before (workers._without_resource_tracker)."""
    done = subprocess.run([sys.executable, "-c", NO_TRACKER], capture_output=True, text=True, cwd=REPO, env=env(),
                          stdin=subprocess.DEVNULL, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0", "None", "0", "1"]


def test_a_stored_report_is_json_dumps_byte_for_byte(first):
    """Stored.of dumps a report's tests once and splices them into the report's JSON: the result
    is json.dumps's own, for every real grade of the batch and for hostile text around them."""
    from autograder.grading.gradebook import Stored

    with Gradebook(first["out"] / "gradebook.sqlite") as book:
        reports = [row.grade_report().to_dict() for row in book.rows()]
    hostile = {"notes": ['"tests": [], "score": 99}', "\u2603 \x00 \"\n", "}, {"],
               "error": '"tests"', "submission_info": {"tests": [1e300, -0.0, float("nan")], "\u00e9": True}}
    cases = reports + [{**data, **hostile} for data in reports] + [{"tests": [], 1: "x"}]
    assert len(reports) == len(IDS) and any(data["tests"] for data in reports)
    for data in cases:
        stored = Stored.of({"score": 0, "max_score": 0, "error": "", **data})
        assert stored.report_json == json.dumps({"score": 0, "max_score": 0, "error": "", **data})
        assert stored.tests_json == json.dumps(data["tests"])


def test_csv_rows_and_columns(first, mutant_report):
    header, rows = read_csv(first["out"])
    assert header == csv_header(SPEC)
    assert set(rows) == IDS
    ref = rows["ref"]
    assert num(ref["total"]) == num(ref["max"]) == SPEC.total_points == 100
    assert num(ref["percent"]) == 100.0 and ref["status"] == "graded"
    for stage in SPEC.stages:          # the optional stage 5 is not graded by --stage all: left empty
        expected = "" if stage.optional else SPEC.stage_points(stage.number)
        assert (ref[f"stage{stage.number}"] and num(ref[f"stage{stage.number}"])) == expected
    for problem in SPEC.problems:
        expected = "" if SPEC.is_optional(problem.stage) else problem.points
        assert (ref[f"p{problem.number}"] and num(ref[f"p{problem.number}"])) == expected

    mutant = rows["mutant"]
    with Gradebook(first["out"] / "gradebook.sqlite") as book:
        stored = {r.submission_id: r for r in book.rows("yahtzee")}
    assert stored["mutant"].score == mutant_report.score < 100
    assert num(mutant["total"]) == round(mutant_report.score, 2)
    by_problem = mutant_report.problem_scores()
    for problem in SPEC.problems:
        if SPEC.is_optional(problem.stage):
            continue
        cell = num(mutant[f"p{problem.number}"])
        assert cell == round(by_problem[problem.number][0], 2)
        assert (cell < problem.points) == (problem.number in MUTANT_PROBLEMS), problem.number
    for number, (got, _) in mutant_report.stage_scores().items():
        assert num(mutant[f"stage{number}"]) == round(got, 2)

    broken = rows["broken"]
    assert num(broken["total"]) == 0 and broken["status"] == "error"
    assert all(num(broken[f"p{p.number}"]) == 0 for p in SPEC.problems if not SPEC.is_optional(p.stage))
    assert "syntax error" in stored["broken"].error

    loop = rows["loop"]
    assert loop["status"] == "graded" and 0 < num(loop["total"]) < 100
    assert "did not finish in time" in stored["loop"].feedback
    assert stored["loop"].wall_time < 60

    late = rows["late"]                              # a corrupt zip: that student's error row
    assert num(late["total"]) == 0 and num(late["max"]) == 100 and late["status"] == "error"
    assert "late.zip" in stored["late"].error and "zip archive" in stored["late"].error
    assert str(first["class"]) not in stored["late"].feedback, "a server path in the student's feedback"

    data = json.loads((first["out"] / "grades.json").read_text())
    assert {s["id"] for s in data["students"]} == IDS
    assert {s["id"]: s["total"] for s in data["students"]}["ref"] == 100


def test_rerun_skips_unchanged_regrades_changed_and_force(first, tmp):
    klass, out = tmp / "class-rerun", tmp / "out-rerun"
    shutil.copytree(first["class"], klass)
    shutil.copytree(first["out"], out)
    before = rows_of(out)

    result = run_batch([str(klass), "--jobs", "2", "--out", str(out)], tmp, "rerun")
    assert result["code"] == 0, result["stderr"]
    assert "5 submissions, 0 graded, 5 unchanged (skipped)" in result["stdout"]
    assert rows_of(out) == before, "an unchanged submission was regraded"

    (klass / "mutant.py").write_text(SOLUTION, encoding="utf-8")       # the student fixed the bug
    result = run_batch([str(klass), "--jobs", "2", "--out", str(out)], tmp, "changed")
    assert "5 submissions, 1 graded, 4 unchanged (skipped)" in result["stdout"], result["stdout"]
    after = rows_of(out)
    assert after["mutant"][0] == 100 and after["mutant"][2] == 2 and after["mutant"][1] != before["mutant"][1]
    assert {k: v for k, v in after.items() if k != "mutant"} == {k: v for k, v in before.items() if k != "mutant"}

    result = run_batch([str(klass), "--jobs", "2", "--out", str(out), "--force"], tmp, "force")
    assert "5 submissions, 5 graded, 0 unchanged (skipped)" in result["stdout"], result["stdout"]
    forced = rows_of(out)
    assert count_rows(out) == (5, 5)
    for sid, (score, at, times, _) in forced.items():
        assert times == after[sid][2] + 1 and at != after[sid][1], sid
        assert score == after[sid][0], sid
    _, rows = read_csv(out)
    assert num(rows["mutant"]["total"]) == 100


# ---------------------------------------------------------------------------------------------
# What a student's sandbox can see during a batch
# ---------------------------------------------------------------------------------------------
def test_classmates_and_the_gradebook_are_hidden_from_a_student(tmp):
    """A class and --out outside /tmp: the student's code cannot list the class folder, read a
    classmate's file, or read the gradebook; nor an unrelated world-readable folder beside them
    (the sandbox's root is an allowlist: none of these exist in it)."""
    with class_beside_a_readable_folder("batch-hidden-") as (other, klass):
        out = klass.parent / "out"
        (klass / "mallory").mkdir(mode=0o755)
        peek = peek_source([other, klass, klass / "alice.py", out, out / "gradebook.sqlite"])
        (klass / "mallory" / "yahtzee.py").write_text(SOLUTION + peek, encoding="utf-8")
        (klass / "mallory" / "yahtzee.py").chmod(0o644)
        out.mkdir(mode=0o755)
        (out / "gradebook.sqlite").touch(mode=0o644)       # readable by anyone on disk
        result = run_batch([str(klass), "--stage", "2", "--jobs", "1", "--out", str(out)], tmp, "hidden")
        assert result["code"] == 0, result["stdout"] + result["stderr"]
        with Gradebook(out / "gradebook.sqlite") as book:
            feedback = {r.submission_id: r.feedback for r in book.rows("yahtzee")}["mallory"]
        assert "PEEK " + "; ".join(["FileNotFoundError"] * 5) in feedback, feedback[:3000]


# ---------------------------------------------------------------------------------------------
# Other inputs
# ---------------------------------------------------------------------------------------------
def _stage1(report) -> float:
    return round(report.stage_scores()[1][0], 4)


def test_lms_zip_export(tmp, mutant_report):
    """A Canvas download zipped: <name>_<uid>_<sub>_<file>, one student's upload itself a zip."""
    export = tmp / "canvas.zip"
    inner = tmp / "carol-upload.zip"
    with zipfile.ZipFile(inner, "w") as z:
        z.writestr("project2/yahtzee.py", MUTANT)
    with zipfile.ZipFile(export, "w") as z:
        z.writestr("submissions/alice_1001_2001_yahtzee.py", SOLUTION)
        z.writestr("submissions/bob_LATE_1002_2002_yahtzee-1.py", MUTANT)
        z.write(inner, "submissions/carol_1003_2003_project2.zip")
        z.write(REPO / "samples" / "class" / "judy.ipynb", "submissions/judy_1004_2004_yahtzee.ipynb")
    out = tmp / "out-zip"
    result = run_batch([str(export), "--stage", "1", "--jobs", "2", "--out", str(out)], tmp, "zip")
    assert result["code"] == 0, result["stdout"] + result["stderr"]
    rows = rows_of(out)
    full, mutant = SPEC.stage_points(1), _stage1(mutant_report)
    assert {k: round(v[0], 4) for k, v in rows.items()} == {"alice": full, "bob": mutant, "carol": mutant,
                                                             "judy": full}
    assert not any(v[3] for v in rows.values())
    header, csv_rows = read_csv(out)
    assert csv_rows["alice"]["stage1"] == "30" and csv_rows["alice"]["stage2"] == ""   # stage 2 not graded


def test_nbgrader_submitted_tree(tmp, mutant_report):
    root = tmp / "course" / "submitted"
    for student, text in (("s1", SOLUTION), ("s2", MUTANT)):
        folder = root / student / "yahtzee"
        folder.mkdir(parents=True)
        (folder / "yahtzee.py").write_text(text, encoding="utf-8")
    (root / "s2" / "yahtzee" / "timestamp.txt").write_text("2026-11-20 10:00:00\n")
    out = tmp / "out-nbgrader"
    result = run_batch([str(tmp / "course"), "--stage", "1", "--jobs", "2", "--out", str(out)], tmp, "nbgrader")
    assert result["code"] == 0, result["stdout"] + result["stderr"]
    rows = rows_of(out)
    assert {k: round(v[0], 4) for k, v in rows.items()} == {"s1": SPEC.stage_points(1),
                                                             "s2": _stage1(mutant_report)}


@pytest.mark.parametrize("what", ["missing", "unreadable_zip"])
def test_bad_input_is_exit_2_with_one_clear_line(tmp, what):
    if what == "missing":
        source, message = tmp / "no-such-class", "error: no such file or folder: "
    else:
        source, message = tmp / "export.zip", "error: cannot read "
        source.write_bytes(b"PK\x03\x04 not a real zip archive")
    proc = subprocess.run([sys.executable, "-m", "autograder", "grade-all", str(source), "--out",
                           str(tmp / f"out-bad-{what}"), "--no-progress"], capture_output=True, text=True,
                          cwd=tmp, env=env(), stdin=subprocess.DEVNULL, timeout=60)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(message) and str(source) in lines[0], proc.stderr
    if what == "unreadable_zip":
        assert "zip archive" in lines[0]
