"""`grade-all` with LMS inputs: late work, due dates, extensions and penalties, the Canvas and
Moodle gradebook files, the hostile sample flagged everywhere, --only, `grade --gradebook` and
submission times from Gradescope and nbgrader (issue 18).  The batch runs under the subreaper
wrapper (helpers/batch.py).
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.batch import (
    MUTANT,
    REPO,
    SOLUTION,
    SPEC,
    env,
    num,
    read_csv,
    rows_of,
    run_batch,
)

from autograder.grading.gradebook import Gradebook


@pytest.fixture(scope="module")
def tmp(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("batch")


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
    assert "a due date is set, but" not in lms_class["result"]["stdout"]       # (pass 22's note: times here)


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


def test_a_due_date_on_a_plain_folder_says_no_one_can_be_late(tmp):
    """Pass 22: `--due` and `--late-penalty` on a plain folder (no submission times, no LMS) marked no
    one late and said nothing; now one note says why.  A class whose export gives a time, an LMS or a
    flag gets no note (lms_class: Canvas's LATE flags)."""
    from autograder.grading.lms import untimed_note

    klass = tmp / "plain-class"
    (klass / "ann").mkdir(parents=True)
    (klass / "ann" / "yahtzee.py").write_text(SOLUTION, encoding="utf-8")
    (klass / "ben.py").write_text(SOLUTION, encoding="utf-8")
    result = run_batch([str(klass), "--stage", "1", "--jobs", "1", "--out", str(tmp / "out-plain"), "--due",
                        "2026-11-20T23:59", "--late-penalty", "10", "--no-progress"], tmp, "plain-due", timeout=300)
    assert result["code"] == 0, result["stdout"] + result["stderr"]
    assert ("note: a due date is set, but none of the 2 submissions carries a submission time or a late flag, "
            "so none is marked late: a plain folder of files has none (Canvas, Moodle and Gradescope exports "
            "and nbgrader's timestamp.txt do)\n") in result["stdout"], result["stdout"]
    assert untimed_note([{"submitted_at": "", "lms": "", "late": False}]).startswith(
        "a due date is set, but the one submission carries")
    assert untimed_note([{"submitted_at": "", "lms": "canvas", "late": False}]) == ""
    assert untimed_note([]) == ""
