"""`grade-all` end to end, with real processes (no mocks).

A small class (the reference, a mutant, a syntax error, an endless loop, a corrupt zip) is graded
by `python -m autograder grade-all` run under a child-subreaper wrapper, so any process that
outlives the batch (a worker, a sandbox of uid 40000+) comes back to the wrapper and is reported.
Then: the CSV's rows and per-stage/per-problem columns; a re-run skips what is unchanged, a
changed file is regraded, --force regrades all; a real kill -9 and a real Ctrl-C (SIGINT to the
process group) in the middle of a run, then a resume that loses and duplicates nothing and does
not regrade what was already stored; a class zipped as an LMS (Canvas) export and an nbgrader
submitted/ tree; bad input (a missing folder, an unreadable zip) is exit 2 with one clear line.

Short limits (AUTOGRADER_LIMITS, honoured by every Program the workers make) keep the endless
loop cheap.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from autograder.assignment import load_assignment
from autograder.grading.export import csv_header
from autograder.grading.gradebook import Gradebook

REPO = Path(__file__).resolve().parent.parent
SPEC = load_assignment("yahtzee")
SOLUTION = (REPO / "solution" / "yahtzee.py").read_text(encoding="utf-8")
LIMITS_ENV = "wall_s=1,memory_mb=256"
SANDBOX_UID_BASE = 40000
MUTANT_FIND = "    if max(face_counts(dice).values()) >= n:\n        return sum(dice)"
MUTANT_REPLACE = ("    counts = face_counts(dice)\n    if max(counts.values()) >= n:\n"
                  "        return sum(die for die in dice if counts[die] >= n)")
MUTANT_PROBLEMS = {2, 6}                    # of-a-kind sums only the matching dice: problem 2, and 6 (score dispatches to it: same stage)
LOOP = SOLUTION + "\n\ndef score_chance(dice):\n    while True:\n        pass\n"
BROKEN = SOLUTION.replace("def score_upper(dice, face):", "def score_upper(dice, face)", 1)
assert SOLUTION.count(MUTANT_FIND) == 1 and BROKEN != SOLUTION
MUTANT = SOLUTION.replace(MUTANT_FIND, MUTANT_REPLACE)

# Runs COMMAND as the leader of a new session (so the test can signal its whole process group),
# while this wrapper stays outside that group as a child subreaper: whatever outlives the batch
# is re-parented here and reported (pid, uid, command line), then killed.


SUBREAPER = Path(__file__).resolve().parent / "subreaper.py"


def env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(REPO), AUTOGRADER_LIMITS=LIMITS_ENV)


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
                                stdin=subprocess.DEVNULL)
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


# ---------------------------------------------------------------------------------------------
# The class and its first batch
# ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def tmp(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("batch")


@pytest.fixture(scope="module")
def mutant_report(tmp):
    """The mutant graded by grade() directly, in this process, with the same limits."""
    from autograder.engine.program import default_limits
    from autograder.grading.grade import grade

    path = tmp / "alone" / "mutant.py"
    path.parent.mkdir()
    path.write_text(MUTANT, encoding="utf-8")
    old = os.environ.get("AUTOGRADER_LIMITS")
    os.environ["AUTOGRADER_LIMITS"] = LIMITS_ENV
    try:
        return grade(path, "yahtzee", limits=default_limits())
    finally:
        if old is None:
            os.environ.pop("AUTOGRADER_LIMITS")
        else:
            os.environ["AUTOGRADER_LIMITS"] = old


@pytest.fixture(scope="module")
def first(tmp):
    klass, out = tmp / "class", tmp / "out"
    klass.mkdir()
    (klass / "ref.py").write_text(SOLUTION, encoding="utf-8")
    (klass / "mutant.py").write_text(MUTANT, encoding="utf-8")
    (klass / "broken.py").write_text(BROKEN, encoding="utf-8")
    (klass / "loop.py").write_text(LOOP, encoding="utf-8")
    (klass / "late.zip").write_bytes(b"PK\x03\x04 the upload was cut short")
    result = run_batch([str(klass), "--jobs", "2", "--out", str(out)], tmp, "first")
    return {"class": klass, "out": out, "result": result}


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
# Interrupted for real, then resumed
# ---------------------------------------------------------------------------------------------
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
    batch = Batch.start([str(big_class), "--jobs", "2", "--out", str(out)], tmp, name)
    pid = batch.pid()
    deadline = time.monotonic() + 90
    while len(rows_of(out)) < 2:
        assert batch.proc.poll() is None, "the batch ended before it could be interrupted"
        assert time.monotonic() < deadline, "no grade stored after 90 s"
        time.sleep(0.02)
    os.killpg(pid, sig)
    result = batch.finish()
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
    for name, text in (("a", SOLUTION), ("b", SOLUTION), ("dies", SOLUTION), ("hangs", LOOP), ("z", MUTANT)):
        (klass / f"{name}.py").write_text(text, encoding="utf-8")
    old = os.environ.get("AUTOGRADER_TEST_CRASH_ON")
    os.environ["AUTOGRADER_TEST_CRASH_ON"] = "dies"
    try:
        result = run_batch([str(klass), "--jobs", "2", "--out", str(out), "--timeout", "5"], tmp, "crashy")
    finally:
        if old is None:
            os.environ.pop("AUTOGRADER_TEST_CRASH_ON")
        else:
            os.environ["AUTOGRADER_TEST_CRASH_ON"] = old
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


# ---------------------------------------------------------------------------------------------
# What a student's sandbox can see during a batch
# ---------------------------------------------------------------------------------------------
PEEK = """

import os


def format_dice(dice):
    found = []
    for path in ("@OTHER@", "@CLASS@", "@CLASS@/alice.py", "@OUT@", "@OUT@/gradebook.sqlite"):
        try:
            found.append(str(sorted(os.listdir(path)) if os.path.isdir(path) else len(open(path).read())))
        except OSError as err:
            found.append(type(err).__name__)
    return "PEEK " + "; ".join(found)
"""


def _readable_spot() -> Path | None:
    """A world-readable, writable-by-us folder outside /tmp (every sandbox has a private /tmp)."""
    for top in ("/srv", "/mnt", "/opt", "/var/lib"):
        path = Path(top)
        if path.is_dir() and os.access(path, os.W_OK) and all(
                os.stat(p).st_mode & 0o005 == 0o005 for p in [path, *path.parents]):
            return path
    return None


def test_classmates_and_the_gradebook_are_hidden_from_a_student(tmp):
    """A class and --out outside /tmp: the student's code cannot list the class folder, read a
    classmate's file, or read the gradebook; nor an unrelated world-readable folder beside them
    (the sandbox's root is an allowlist: none of these exist in it)."""
    from autograder.engine.sandbox import isolation

    if not isolation()["namespaces"]:
        pytest.skip("only mount namespaces can hide folders (run as root)")
    spot = _readable_spot()
    if spot is None:
        pytest.skip("no world-readable folder outside /tmp to put a class in")
    import tempfile

    root = Path(tempfile.mkdtemp(prefix="batch-hidden-", dir=spot))
    try:
        os.chmod(root, 0o755)
        other, klass, out = root / "other", root / "class", root / "out"
        for folder in (other, klass, klass / "mallory"):
            folder.mkdir(mode=0o755)
        (other / "note.txt").write_text("readable\n")
        (klass / "alice.py").write_text(SOLUTION, encoding="utf-8")
        peek = PEEK.replace("@OTHER@", str(other)).replace("@CLASS@", str(klass)).replace("@OUT@", str(out))
        (klass / "mallory" / "yahtzee.py").write_text(SOLUTION + peek, encoding="utf-8")
        for path in (other / "note.txt", klass / "alice.py", klass / "mallory" / "yahtzee.py"):
            path.chmod(0o644)
        out.mkdir(mode=0o755)
        (out / "gradebook.sqlite").touch(mode=0o644)       # readable by anyone on disk
        result = run_batch([str(klass), "--stage", "2", "--jobs", "1", "--out", str(out)], tmp, "hidden")
        assert result["code"] == 0, result["stdout"] + result["stderr"]
        with Gradebook(out / "gradebook.sqlite") as book:
            feedback = {r.submission_id: r.feedback for r in book.rows("yahtzee")}["mallory"]
        assert "PEEK " + "; ".join(["FileNotFoundError"] * 5) in feedback, feedback[:3000]
    finally:
        shutil.rmtree(root, ignore_errors=True)


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


# ---------------------------------------------------------------------------------------------
# Late work, extensions, --only, grade --gradebook, sandbox refusals and the LMS files (issue 18)
# ---------------------------------------------------------------------------------------------
MALLORY = (REPO / "samples" / "class" / "mallory.py").read_text(encoding="utf-8")


def read_any_csv(path: Path) -> list[list[str]]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


@pytest.fixture(scope="module")
def lms_class(tmp) -> dict:
    """A Canvas download (a late file, the hostile sample) next to a Moodle folder, graded with a due
    date, a 10 %/day penalty and an extension for the late student's classmate."""
    klass = tmp / "lms-class"
    klass.mkdir()
    (klass / "alice_LATE_101_5001_yahtzee.py").write_text(SOLUTION, encoding="utf-8")
    (klass / "bob_LATE_102_5002_yahtzee.py").write_text(SOLUTION, encoding="utf-8")
    (klass / "mallory_103_5003_yahtzee.py").write_text(MALLORY, encoding="utf-8")
    moodle = klass / "Carl Moodle_201_assignsubmission_file"
    moodle.mkdir()
    (moodle / "yahtzee.py").write_text(SOLUTION, encoding="utf-8")
    extensions = tmp / "extensions.csv"
    extensions.write_text("id,due\nbob,2026-12-31T23:59\n", encoding="utf-8")
    out = tmp / "out-lms"
    result = run_batch([str(klass), "--stage", "1", "--jobs", "2", "--out", str(out), "--due", "2026-11-20T23:59",
                        "--late-penalty", "10", "--extensions", str(extensions)], tmp, "lms", timeout=300)
    assert result["code"] == 0, result["stdout"] + result["stderr"]
    return {"out": out, "klass": klass, "result": result}


def test_late_flag_due_date_extension_and_penalty(lms_class):
    header, rows = read_csv(lms_class["out"])
    assert set(rows) == {"alice", "bob", "mallory", "Carl_Moodle_201"}
    alice, bob, carl = rows["alice"], rows["bob"], rows["Carl_Moodle_201"]
    # Canvas says alice is late (no time given: one day): 10 % of her 30 points
    assert alice["late"] == "yes" and num(alice["penalty"]) == 3 and num(alice["final"]) == 27
    assert alice["lms_id"] == "101" and alice["due"].startswith("2026-11-20T23:59")
    # bob is flagged late too, but his extension (no submission time to compare) covers it
    assert bob["late"] == "" and num(bob["final"]) == 30 and bob["due"].startswith("2026-12-31T23:59")
    assert carl["late"] == "" and carl["lms_id"] == "201"
    data = json.loads((lms_class["out"] / "grades.json").read_text(encoding="utf-8"))
    assert data["late_policy"]["penalty_per_day"] == 10 and data["late_policy"]["extensions"] == {
        "bob": "2026-12-31T23:59"}
    page = (lms_class["out"] / "feedback" / "alice.html").read_text(encoding="utf-8")
    assert "late (flagged late by the LMS) (-3 points: 27 counted)" in page


def test_canvas_and_moodle_gradebook_files_keyed_by_the_lms_id(lms_class):
    canvas = read_any_csv(lms_class["out"] / "canvas_grades.csv")
    assert canvas[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", SPEC.title]
    assert canvas[1][0] == "Points Possible" and num(canvas[1][5]) == 30
    by_id = {row[1]: row for row in canvas[2:] if row[1]}
    assert set(by_id) == {"101", "102", "103"}                    # the Canvas user ids of the download
    assert num(by_id["101"][5]) == 27                             # the final grade, after the late penalty
    moodle = read_any_csv(lms_class["out"] / "moodle_grades.csv")
    assert moodle[0][:6] == ["Identifier", "Full name", "Email address", "Status", "Grade", "Maximum Grade"]
    carl = next(row for row in moodle[1:] if row[0] == "Participant 201")
    assert carl[1] == "Carl Moodle" and num(carl[4]) == 30


def test_the_hostile_submission_is_flagged_everywhere(lms_class):
    """mallory.py runs a shell command: the gradebook, the CSV, the report and her page say so."""
    with Gradebook(lms_class["out"] / "gradebook.sqlite") as book:
        rows = {r.submission_id: r for r in book.rows("yahtzee")}
    flags = rows["mallory"].report["flags"]
    assert any("shell command 'cat /etc/passwd > /dev/null'" in f for f in flags), flags
    assert not rows["alice"].report["flags"] and not rows["Carl_Moodle_201"].report["flags"]
    _, csv_rows = read_csv(lms_class["out"])
    assert "cat /etc/passwd" in csv_rows["mallory"]["sandbox_flags"] and csv_rows["alice"]["sandbox_flags"] == ""
    report = (lms_class["out"] / "report.html").read_text(encoding="utf-8")
    refusals = report[report.index('<h2 id="refusals">'):report.index('<h2 id="hints">')]
    assert 'href="feedback/mallory.html">mallory</a>' in refusals and "cat /etc/passwd" in refusals
    assert "alice" not in refusals
    from autograder.grading.demo import table

    line = next(x for x in table(list(rows.values())).splitlines() if x.startswith("mallory"))
    assert "SANDBOX FLAG (1): ran the shell command" in line           # the demo's line for her
    assert "Flagged by the sandbox" in (lms_class["out"] / "feedback" / "mallory.html").read_text(encoding="utf-8")


def test_only_regrades_the_listed_students(lms_class, tmp):
    out = lms_class["out"]
    before = rows_of(out)
    result = run_batch([str(lms_class["klass"]), "--stage", "1", "--jobs", "1", "--out", str(out),
                        "--only", "alice,Carl_Moodle_201"], tmp, "only")
    assert result["code"] == 0, result["stdout"] + result["stderr"]
    after = rows_of(out)
    assert {sid for sid in after if after[sid][2] != before[sid][2]} == {"alice", "Carl_Moodle_201"}
    assert after["alice"][2] == before["alice"][2] + 1 and after["mallory"] == before["mallory"]
    assert "4 submissions, 2 graded, 2 unchanged" in result["stdout"]
    _, csv_rows = read_csv(out)
    assert num(csv_rows["alice"]["penalty"]) == 3                 # the stored policy still applies
    bad = run_batch([str(lms_class["klass"]), "--out", str(out), "--only", "nobody"], tmp, "only-bad")
    assert bad["code"] == 2 and "--only: no submission with id nobody" in bad["stderr"]


def test_grade_one_file_into_the_class_gradebook(lms_class, tmp):
    late = tmp / "dora.py"
    late.write_text(MUTANT, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "autograder", "grade", str(late), "--stage", "1",
                           "--gradebook", str(lms_class["out"]), "--id", "dora"], capture_output=True, text=True,
                          cwd=tmp, env=env(), stdin=subprocess.DEVNULL, timeout=300)
    assert done.returncode == 0, done.stderr
    rows = rows_of(lms_class["out"])
    assert "dora" in rows and rows["dora"][0] < SPEC.stage_points(1)
    _, csv_rows = read_csv(lms_class["out"])
    assert "dora" in csv_rows and (lms_class["out"] / "feedback" / "dora.html").is_file()
    assert 'href="feedback/dora.html"' in (lms_class["out"] / "report.html").read_text(encoding="utf-8")


def test_submission_times_from_gradescope_and_nbgrader(tmp):
    """Gradescope's created_at and nbgrader's timestamp.txt are kept and compared with the due date."""
    export = tmp / "gs-export"
    for n in ("1", "2"):
        (export / f"submission_{n}").mkdir(parents=True)
        (export / f"submission_{n}" / "yahtzee.py").write_text(SOLUTION, encoding="utf-8")
    (export / "submission_metadata.yml").write_text(
        "submission_1:\n  :submitters:\n  - :name: Ann\n    :sid: 'S1'\n  :created_at: 2026-11-20 22:00:00.123456789 -0800\n"
        "submission_2:\n  :submitters:\n  - :name: Ben\n    :sid: 'S2'\n  :created_at: 2026-11-19 10:00:00.000000000 -0800\n",
        encoding="utf-8")
    out = tmp / "out-gs"
    result = run_batch([str(export), "--stage", "1", "--jobs", "2", "--out", str(out), "--due", "2026-11-21T00:00",
                        "--late-penalty", "20"], tmp, "gs")
    assert result["code"] == 0, result["stdout"] + result["stderr"]
    _, rows = read_csv(out)
    assert rows["S1"]["submitted_at"] == "2026-11-20T22:00:00.123456-08:00"
    assert rows["S1"]["late"] == "yes" and rows["S1"]["late_by"] == "6 h 0 min" and num(rows["S1"]["final"]) == 24
    assert rows["S2"]["late"] == "" and num(rows["S2"]["final"]) == 30

    root = tmp / "nb-course" / "submitted"
    for student, stamp in (("n1", "2026-11-22 09:30:00.000000 UTC"), ("n2", "2026-11-20 09:30:00.000000 UTC")):
        folder = root / student / "yahtzee"
        folder.mkdir(parents=True)
        (folder / "yahtzee.py").write_text(SOLUTION, encoding="utf-8")
        (folder / "timestamp.txt").write_text(stamp + "\n", encoding="utf-8")
    out = tmp / "out-nb-late"
    result = run_batch([str(tmp / "nb-course"), "--stage", "1", "--jobs", "2", "--out", str(out),
                        "--due", "2026-11-21T00:00+00:00"], tmp, "nb-late")
    assert result["code"] == 0, result["stdout"] + result["stderr"]
    _, rows = read_csv(out)
    assert rows["n1"]["late"] == "yes" and rows["n1"]["late_by"] == "1 d 9 h" and num(rows["n1"]["penalty"]) == 0
    assert rows["n2"]["late"] == ""
