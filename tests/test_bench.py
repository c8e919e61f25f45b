"""Smoke test of `make bench` (python -m autograder bench) with the smallest settings: it runs
without stdin and prints its four sections.  No timing is asserted: figures belong to the bench.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.authoring.bench import batch, measure

# about 30 s (one nbgrader autograde of one notebook); it measures: alone in make test (tests/run.py)
pytestmark = [pytest.mark.slow, pytest.mark.serial]

ROOT = Path(__file__).resolve().parent.parent


def test_copy_class_renames_every_copy(tmp_path):
    source = tmp_path / "class"
    (source / "carol").mkdir(parents=True)
    (source / "carol" / "yahtzee.py").write_text("x = 1\n")
    (source / "alice.py").write_text("x = 1\n")
    (source / "judy.ipynb").write_text("{}")
    made = batch.copy_class(source, tmp_path / "copies", 2)
    assert sorted(made) == ["alice_1.py", "alice_2.py", "carol_1", "carol_2", "judy_1.ipynb", "judy_2.ipynb"]
    assert (tmp_path / "copies" / "carol_2" / "yahtzee.py").is_file()
    assert measure.student_names(source) == ["alice", "carol", "judy"]


def test_bench_prints_its_sections(tmp_path):
    small = tmp_path / "class"
    small.mkdir()
    for name in ("alice.py", "heidi.py"):
        shutil.copy2(ROOT / "samples" / "class" / name, small / name)
    result = subprocess.run([sys.executable, "-m", "autograder", "bench", "--copies", "1", "--repeat", "1",
                             "--jobs", "2", "--class", str(small), "--nb-students", "1", "--nb-stages", "1",
                             "--honest", "2", "--load", "4", "--skip-worst"],
                            cwd=ROOT, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300)
    out = result.stdout
    assert result.returncode == 0, out + result.stderr
    for heading in ("(a) one submission", "(b) batch", "(c) nbgrader autograde", "(d) slow-but-finite",
                    "(e) false timeouts under load", "(f) targets", "(g) the coach"):
        assert heading in out, heading
    assert "FAILED" not in out
    assert "machine: a pure-Python step " in out             # the machine named before (a)
    assert "100/100" in out                                  # the reference graded in (a)
    assert "2 submissions" in out                            # the small class in (b)
    assert "4 graded" in out and "false timeouts: 0" in out  # (e): two batches of 2 honest students
    assert ("notebook" in out and "autograded" in out) or "note: skipped" in out   # (c) ran or said why not
    for target in ("steady state >= 25", "whole command >= 15", ">= 60x nbgrader", "cold `grade` process <= 0.5 s",
                   "<= 60 ms CPU", "worst case <= 20 s", "under load <= 0", "<= 1 ms", "<= 100 ms"):
        line = next(line for line in out.splitlines() if target in line)
        assert line.rstrip().endswith(("MET", "n/a")), line


def test_steady_rate_is_the_middle_half_of_the_run():
    # 4 slow rows at the start (start-up), 9 rows one every 0.1 s, 3 slow ones at the end (a burst of other work)
    times = [0.0, 1.0, 2.0, 3.0] + [3.1 + 0.1 * i for i in range(9)] + [5.9, 7.9, 9.9]
    assert abs(batch.steady_rate(times) - 10.0) < 1e-9          # rows 4..12: 8 intervals in 0.8 s
    assert batch.steady_rate(times[:7]) is None                  # too few rows to have a middle


def test_accounting_reads_the_phases_every_process_wrote(tmp_path):
    import json

    trace = tmp_path / "trace.jsonl"
    began = 1000.0
    lines = [{"event": "start", "at": 1000.1, "cpu": 0.05}, {"event": "found", "at": 1000.12, "cpu": 0.06},
             {"event": "worker-ready", "at": 1000.4, "cpu": 0.1}, {"event": "worker-ready", "at": 1000.45, "cpu": 0.1},
             {"event": "task", "at": 1000.5, "waited": 0.3, "first": True},
             {"event": "first-row", "at": 1000.9, "cpu": 0.2},
             {"event": "task", "at": 1001.0, "waited": 0.002, "first": False},
             {"event": "graded", "at": 1004.0, "cpu": 0.5},
             {"event": "worker-exit", "at": 1004.1, "cpu": 0.4, "children": 1.6},
             {"event": "worker-exit", "at": 1004.1, "cpu": 0.4, "children": 1.6},
             {"event": "exported", "at": 1004.2, "cpu": 0.7},
             {"event": "end", "at": 1004.25, "cpu": 0.72, "children": 0.08}]
    trace.write_text("".join(json.dumps(line) + "\n" for line in lines))
    got = batch.accounting(trace, began, wall=4.3, cpu=5.0, n=20, jobs=2)
    assert (got["parent"], got["drawing"], got["workers"], got["sandboxes"]) == (0.72, 0.08, 0.8, 3.2)
    assert "parent 0.72 s (0.05 s of it to start; +0.08 s of its children: the charts' drawer (its matplotlib import at idle priority) and forks drawing)" in got["text"]
    assert "the rest 0.20 s" in got["text"]                       # 5.0 - 0.72 - 0.08 - 0.8 - 3.2
    assert abs(got["allowed"] - 10.0) < 1e-9                     # 200 ms of grading a submission on 2 cores
    assert abs(got["waited"] - 0.002) < 1e-9                     # the first task's wait is start-up, not idling
    assert "exports 0.20 s" in got["text"] and "workers ready 0.40, 0.45, first stored 0.90," in got["text"]
    assert got["busy"] == [] and "of a core busy" not in got["text"]     # (no worker-start in this trace)
    assert got["ahead"] == 0 and "0 of 20 submissions loaded ahead" in got["text"]
    assert batch.accounting(tmp_path / "missing.jsonl", began, 4.3, 5.0, 20, 2) is None
    assert "around them" not in got["text"]                      # (workers that did not say: as before)
    # workers that say how much of their CPU the checks and their plans took (the grade itself)
    for line in lines:
        if line["event"] == "worker-exit":
            line.update(graded=10, checks=0.2, plans=0.1)
    trace.write_text("".join(json.dumps(line) + "\n" for line in lines))
    got = batch.accounting(trace, began, wall=4.3, cpu=5.0, n=20, jobs=2)
    assert "workers 0.80 s (the checks and their plans 0.60 s; around them 10.0 ms a submission), their " \
           "sandboxes 3.20 s" in got["text"]
    # the charts' drawer, forked by the fork server (not the parent's child): its CPU as it traced it
    lines.insert(-1, {"event": "drawer-drew", "at": 1004.22, "cpu": 0.05, "forked": True, "children": 0.02})
    trace.write_text("".join(json.dumps(line) + "\n" for line in lines))
    got = batch.accounting(trace, began, wall=4.3, cpu=5.0, n=20, jobs=2)
    assert abs(got["drawing"] - 0.15) < 1e-9 and "+0.15 s of its children" in got["text"]
    assert "the rest 0.13 s" in got["text"]                       # 5.0 - 0.72 - 0.15 - 0.8 - 3.2


def test_accounting_lists_the_phases_of_each_workers_first_grade(tmp_path):
    import json

    trace = tmp_path / "trace.jsonl"
    lines = [{"event": "start", "at": 1000.0, "cpu": 0.05},
             {"event": "worker-ready", "at": 1000.2, "cpu": 0.1},
             {"event": "session-refcache", "at": 1000.25, "cpu": 0.1},
             {"event": "session-refcache", "at": 1000.21, "cpu": 0.1},
             {"event": "session-collected", "at": 1000.35, "cpu": 0.1},
             {"event": "session-first-planned", "at": 1000.46, "cpu": 0.1},
             {"event": "session-first-checked", "at": 1000.49, "cpu": 0.1},
             {"event": "first-row", "at": 1000.5, "cpu": 0.2},
             {"event": "worker-exit", "at": 1002.0, "cpu": 0.4, "children": 1.0},
             {"event": "end", "at": 1002.1, "cpu": 0.5}]
    trace.write_text("".join(json.dumps(line) + "\n" for line in lines))
    got = batch.accounting(trace, 1000.0, wall=2.2, cpu=2.0, n=10, jobs=2)
    assert ("workers ready 0.20, reference cache read 0.21, 0.25, suites collected 0.35, first plan run 0.46, "
            "first checked 0.49, first stored 0.50,") in got["text"]
    assert "fork server ready" not in got["text"]            # (a trace without its phases: as before)
    # the fork server's boot, and workers that ran the session it collected (preloading.prepare_session)
    lines[1:1] = [{"event": "forkserver-imported", "at": 1000.12, "cpu": 0.11},
                  {"event": "forkserver-prepared", "at": 1000.18, "cpu": 0.17}]
    next(line for line in lines if line["event"] == "session-collected")["prepared"] = True
    trace.write_text("".join(json.dumps(line) + "\n" for line in lines))
    got = batch.accounting(trace, 1000.0, wall=2.2, cpu=2.0, n=10, jobs=2)
    assert ("fork server ready 0.18 (0.17 s CPU, suites collected there), workers ready 0.20, reference cache "
            "read 0.21, 0.25, suites collected 0.35,") in got["text"]


def test_accounting_says_how_busy_each_worker_kept_its_core_and_how_many_went_ahead(tmp_path):
    import json

    trace = tmp_path / "trace.jsonl"
    lines = [{"event": "start", "at": 1000.0, "cpu": 0.05},
             {"event": "worker-start", "pid": 7, "at": 1000.2, "cpu": 0.0},
             {"event": "worker-start", "pid": 8, "at": 1000.2, "cpu": 0.0},
             {"event": "task", "pid": 7, "at": 1000.3, "waited": 0.0, "first": True, "ahead": False},
             {"event": "task", "pid": 7, "at": 1000.3, "waited": 0.0, "first": False, "ahead": True},
             {"event": "task", "pid": 8, "at": 1000.3, "waited": 0.0, "first": True, "ahead": False},
             {"event": "task", "pid": 8, "at": 1000.9, "waited": 0.1, "first": False, "ahead": False},
             {"event": "worker-exit", "pid": 7, "at": 1004.2, "cpu": 0.8, "children": 3.0},     # 3.8 s in 4 s
             {"event": "worker-exit", "pid": 8, "at": 1002.2, "cpu": 0.2, "children": 1.0},     # 1.2 s in 2 s
             {"event": "end", "at": 1004.3, "cpu": 0.7}]
    trace.write_text("".join(json.dumps(line) + "\n" for line in lines))
    got = batch.accounting(trace, 1000.0, wall=4.4, cpu=5.9, n=4, jobs=2)
    assert [round(b, 6) for b in got["busy"]] == [0.95, 0.6] and got["ahead"] == 1
    assert "each worker kept 0.95, 0.60 of a core busy over its life; 1 of 4 submissions loaded ahead" in got["text"]


def test_share_line_bounds_the_rate_by_the_cores_left_and_by_jobs():
    import os

    cores = len(os.sched_getaffinity(0))
    # other work took 0.5 cores; our 39 submissions took 7.8 s of CPU (200 ms each) in 10 s
    two = batch.share_line(busy=7.8 + 0.5 * 10, wall=10.0, cpu=7.8, n=39, jobs=cores)
    assert f"the {cores - 0.5:.2f} left for --jobs {cores}" in two and f"at most {(cores - 0.5) / 0.2:.1f}/s" in two
    one = batch.share_line(busy=7.8 + 0.5 * 10, wall=10.0, cpu=7.8, n=39, jobs=1)
    left = min(1.0, cores - 0.5)                                 # --jobs 1 grades on one core at most
    assert f"the {left:.2f} left for --jobs 1" in one and f"at most {left / 0.2:.1f}/s" in one
    assert f"ran at 3.9/s ({100 * 3.9 / (left / 0.2):.0f} % of that)" in one


def test_a_warm_grade_counts_its_sandboxes_cpu():
    # A worker delivers a report before it stops the report's sandboxes, whose CPU is counted once
    # they have been reaped: a warm grade is timed up to the next one, or (a) shows the grader alone
    # (a four-stage grade's five sandbox lives cost several times the grader's own CPU).
    runs = measure.time_grades(str(ROOT / "autograder" / "assignments" / "yahtzee" / "reference.py"), "all", 2)["runs"]
    assert [run["score"] for run in runs] == [100.0, 100.0, 100.0]
    for run in runs[1:]:
        assert run["cpu"] >= 3 * run["grader"], run


def test_a_rows_time_stamp_is_one_clock_reading(monkeypatch):
    """A row's graded_at (the bench's first-row and steady figures read it): its seconds and its
    milliseconds come from one reading of the clock; two readings straddling a second gave a stamp
    up to a second early (the first row stored "before" the workers were ready)."""
    import time

    from autograder.grading import gradebook

    readings = iter([1000.9999, 1001.0005])
    monkeypatch.setattr(gradebook.time, "time", lambda: next(readings, 1001.0005))
    expected = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(1000.9999)) + ".999"
    assert gradebook.now() == expected


def test_a_descendant_reaped_while_proc_is_read_makes_the_pass_read_again(monkeypatch):
    """descendants_cpu reads each process's times at a different moment: a pass during which a
    process it counted was reaped (its time moved to its parent's, read before or after) may count
    it twice or not at all, so it is read again; a pass whose processes are all still there counts."""
    gone = os.fork()
    if gone == 0:
        os._exit(0)
    os.waitpid(gone, 0)                 # (a pid no process has now: "reaped during the pass")
    passes = iter([(9.0, [os.getpid(), gone]), (1.0, [os.getpid()])])
    monkeypatch.setattr(measure, "_descendants_pass", lambda root: next(passes))
    assert measure.descendants_cpu() == 1.0


def test_machine_yardsticks_are_measured_and_the_cpu_set_put_back():
    from autograder.authoring.bench import machine

    before = os.sched_getaffinity(0)
    step = machine.python_step_ns(steps=2000, rounds=1)
    assert 1 < step < 100_000                                 # ns: a real loop was timed
    cpu = min(before)
    one = machine.handover_us(cpu, cpu, trips=200)
    assert one is not None and one[0] > 0 and one[1] > 0
    assert machine.handover_us(cpu, max(before) + 1, trips=10) is None   # a CPU this process may not use
    assert os.sched_getaffinity(0) == before
    line = machine.machine_line()
    assert line.startswith("machine: a pure-Python step ") and "on one CPU" in line
    assert ("across two" in line) == (len(before) > 1)
