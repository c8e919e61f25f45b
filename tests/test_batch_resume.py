"""`grade-all` interrupted for real, then resumed; a dying or hung worker.

A real kill -9 and a real Ctrl-C (SIGINT to the process group) in the middle of a run, then a
resume that loses and duplicates nothing and does not regrade what was already stored; a worker
that dies or overruns --timeout costs one 'crashed' row, retried by the next run.  The batch
runs under the subreaper wrapper (helpers/batch.py).
"""

from __future__ import annotations

import signal
from pathlib import Path

import pytest
from helpers.batch import (
    MUTANT,
    SLOW,
    SOLUTION,
    assert_nothing_left,
    count_rows,
    interrupted,
    num,
    read_csv,
    rows_of,
    run_batch,
)

from autograder.grading.gradebook import Gradebook


@pytest.fixture(scope="module")
def tmp(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("batch")


BIG = 12


@pytest.fixture(scope="module")
def big_class(tmp) -> Path:
    klass = tmp / "big"
    klass.mkdir()
    for i in range(BIG):
        (klass / f"s{i:02d}.py").write_text(MUTANT if i % 3 == 2 else SOLUTION, encoding="utf-8")
    return klass


def _expected(sid: str, mutant_score: float) -> float:
    return mutant_score if int(sid[1:]) % 3 == 2 else 100.0


def _interrupt(big_class: Path, tmp: Path, name: str, sig: int) -> tuple[dict, dict, Path]:
    out = tmp / f"out-{name}"
    result = interrupted([str(big_class), "--jobs", "2", "--out", str(out)], tmp, name, out, sig)
    return result, rows_of(out), out


def _resume(big_class: Path, tmp: Path, out: Path, name: str, before: dict, mutant_score: float) -> None:
    result = run_batch([str(big_class), "--jobs", "2", "--out", str(out)], tmp, name)
    assert result["code"] == 0, result["stdout"] + result["stderr"]
    assert f"{BIG} submissions, {BIG - len(before)} graded, {len(before)} unchanged (skipped)" in result["stdout"]
    after = rows_of(out)
    assert count_rows(out) == (BIG, BIG), "a submission lost or recorded twice"
    assert set(after) == {f"s{i:02d}" for i in range(BIG)}
    for sid, (score, _at, times, error) in after.items():
        assert score == _expected(sid, mutant_score) and not error, sid
        assert times == 1, f"{sid} graded {times} times"
    for sid, row in before.items():
        assert after[sid] == row, f"{sid} was stored before the interruption and then regraded"
    _, rows = read_csv(out)
    assert len(rows) == BIG


def test_kill_9_mid_run_then_resume(big_class, tmp, mutant_report):
    result, before, out = _interrupt(big_class, tmp, "kill", signal.SIGKILL)
    assert result["code"] == -signal.SIGKILL
    assert_nothing_left(result)
    assert 2 <= len(before) < BIG, f"{len(before)} graded before the kill: not mid-run"
    with Gradebook(out / "gradebook.sqlite") as book:
        assert [r["status"] for r in book.runs()] == ["running"]          # it never got to say more
    _resume(big_class, tmp, out, "kill-resume", before, mutant_report.score)


def test_ctrl_c_mid_run_then_resume(big_class, tmp, mutant_report):
    result, before, out = _interrupt(big_class, tmp, "sigint", signal.SIGINT)
    assert result["code"] == 130, result["stdout"] + result["stderr"]
    assert "grade-all interrupted; run the same command again to resume" in result["stdout"]
    assert "Traceback" not in result["stderr"]
    assert_nothing_left(result)
    assert 2 <= len(before) < BIG, f"{len(before)} graded before Ctrl-C: not mid-run"
    with Gradebook(out / "gradebook.sqlite") as book:
        assert [r["status"] for r in book.runs()] == ["interrupted"]
    _resume(big_class, tmp, out, "sigint-resume", before, mutant_report.score)


def test_a_dying_or_hung_worker_costs_one_row_and_is_retried(tmp):
    """A worker that dies (test hook) or overruns --timeout is replaced; only that submission gets a
    'crashed' row, the others are graded; the next run tries the crashed ones again."""
    klass, out = tmp / "crashy", tmp / "out-crashy"
    klass.mkdir()
    for name, text in (("a", SOLUTION), ("b", SOLUTION), ("dies", SOLUTION), ("hangs", SLOW), ("z", MUTANT)):
        (klass / f"{name}.py").write_text(text, encoding="utf-8")
    with pytest.MonkeyPatch.context() as patch:           # this run only: the next one is not told
        patch.setenv("AUTOGRADER_TEST_CRASH_ON", "dies")
        result = run_batch([str(klass), "--jobs", "2", "--out", str(out), "--timeout", "5"], tmp, "crashy")
    assert result["code"] == 0, result["stdout"] + result["stderr"]
    assert "5 submissions, 3 graded, 0 unchanged (skipped), 2 grader failures" in result["stdout"]
    with Gradebook(out / "gradebook.sqlite") as book:
        rows = {r.submission_id: r for r in book.rows("yahtzee")}
    assert rows["dies"].status == "crashed" and "the grader crashed on this submission" in rows["dies"].error
    assert rows["hangs"].status == "crashed" and "longer than 5 s" in rows["hangs"].error
    assert "not the student's fault" in rows["dies"].feedback
    assert [rows[k].score for k in ("a", "b")] == [100, 100] and 0 < rows["z"].score < 100
    _, csv_rows = read_csv(out)
    assert csv_rows["dies"]["status"] == "crashed" and num(csv_rows["dies"]["max"]) == 100

    result = run_batch([str(klass), "--jobs", "2", "--out", str(out), "--timeout", "5"], tmp, "crashy-again")
    assert "5 submissions, 1 graded, 3 unchanged (skipped), 1 grader failures" in result["stdout"], result["stdout"]
    after = rows_of(out)
    assert after["dies"][0] == 100 and after["dies"][2] == 2 and not after["dies"][3]
    assert after["hangs"][2] == 2 and "longer than 5 s" in after["hangs"][3]
