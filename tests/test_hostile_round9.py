"""Round nine of the hostile corpus (redteam9, pass 22): identity in a class, and a later stage's
reference.  Cases and predictions: tests/corpus/round9/expected.toml (committed before each fix
was graded; `main_*` is what main d3a0ea6 gives, measured with these tests on main's discover.py:
every case of parts A-D failed there).

Part A, a Canvas download (`[[canvas]]`): a student's files were grouped by the display name and
staged in a folder named by it, so a classmate's files could replace a student's, two students
could be one row, and a zip named `...zip` wrote into every staged classmate's folder; one
`grade-all --stage 1` of the whole class, the honest classmates (a single file, a zip upload) at 30.
Part B (`[[lossy]]`): a name that becomes a classmate's id once made safe, and sorts first, took
the classmate's row, --only and extension (nbgrader tree, plain folder).
Part C (`[[lms_rows]]`): a Moodle participant's plugin folders were several rows; a Gradescope
group's later submitters none.
Part D (`[[own_output]]`): grade-all's --out inside the class was graded as a student.
Part E (`[[unfixed]]`): found and not fixed here, pinned: a stage-1 public check's message carried
the reference's later stages' bytecode (stage 5's strategy no longer); closed in pass 23 (redteam10,
engine/lent.py): the test now proves it closed.
"""

from __future__ import annotations

import csv
import io
import sqlite3
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from helpers.batch import SOLUTION, env, read_csv, rows_of, run_batch

from autograder import toml as tomllib  # the one TOML shim
from autograder.assignment import load_assignment
from autograder.grading.discover import discover

REPO = Path(__file__).resolve().parent.parent
FOLDER = REPO / "tests" / "corpus" / "round9"
EXPECTED = tomllib.loads((FOLDER / "expected.toml").read_text(encoding="utf-8"))
PROGRAMS = {"solution": SOLUTION, "plant": (FOLDER / "plant.py").read_text(encoding="utf-8"),
            "notes": "# my notes\n"}
CLASSMATES = {"bob_102_5002_yahtzee.py": SOLUTION}          # a single file: never staged


def _zip(members: list[str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for member in members:
            name, program = member.split("=")
            archive.writestr(name, PROGRAMS[program])
    return buffer.getvalue()


def canvas_class(folder: Path) -> Path:
    """Every [[canvas]] case's files in one Canvas download, with the honest classmates."""
    folder.mkdir(parents=True)
    (folder / "alice_101_5001_project.zip").write_bytes(_zip(["project/yahtzee.py=solution"]))  # staged
    for name, text in CLASSMATES.items():
        (folder / name).write_text(text, encoding="utf-8")
    for case in EXPECTED["canvas"]:
        for name, kind, *members in case["files"]:
            if kind == "zip":
                (folder / name).write_bytes(_zip(members))
            else:
                (folder / name).write_text(PROGRAMS[kind], encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def canvas_batch(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("round9-canvas")
    klass = canvas_class(tmp / "class")
    out = tmp / "out"
    result = run_batch([str(klass), "--stage", "1", "--jobs", "2", "--out", str(out)], tmp, "canvas", timeout=300)
    assert result["code"] == 0, result["stdout"] + result["stderr"]
    return {"out": out, "klass": klass, "tmp": tmp}


@pytest.mark.parametrize("case", EXPECTED["canvas"], ids=lambda c: c["name"])
def test_round9_canvas_students_are_their_own_files(canvas_batch, case):
    rows = rows_of(canvas_batch["out"])
    got = {sid: round(rows[sid][0], 4) if sid in rows else -1 for sid in case["points"]}
    assert got == case["points"], case["why"]
    assert not any(error for _, _, _, error in rows.values())


def test_round9_canvas_one_row_per_user_id_in_the_lms_file(canvas_batch):
    """canvas_grades.csv: one row per Canvas user id, each with its own grade (on main 202 had none
    and 201 had 202's 0)."""
    with open(canvas_batch["out"] / "canvas_grades.csv", newline="", encoding="utf-8") as f:
        lines = list(csv.reader(f))
    by_id = {line[1]: float(line[5]) for line in lines[2:] if line[1]}
    assert by_id == {"101": 30.0, "102": 30.0, "109": 0.0, "201": 30.0, "202": 0.0, "301": 30.0, "302": 0.0}
    assert len(rows_of(canvas_batch["out"])) == len(by_id) == 7


def test_round9_canvas_no_two_students_share_a_folder(tmp_path):
    """The class of the cases: every student's entry is a path of its own, none inside another's,
    and nothing is written outside the staging folder of its own student (discover alone, with
    more names: '..' and '.' zips, names equal after safe_id, NFC and NFD spellings, one name and
    three user ids, a late and an on-time file of one id)."""
    klass = canvas_class(tmp_path / "class")
    extra = {"ann_401_8001_..zip": _zip(["ann/yahtzee.py=solution"]),
             "ann_401_8001_notes.py": PROGRAMS["notes"].encode(),
             "jos\u00e9_501_8101_yahtzee.py": SOLUTION.encode(),
             "jos\u00e9_501_8101_notes.py": PROGRAMS["notes"].encode(),
             "jose\u0301_502_8102_yahtzee.py": PROGRAMS["plant"].encode(),
             "jose\u0301_502_8102_notes.py": PROGRAMS["notes"].encode(),
             "lee_601_8201_a.py": SOLUTION.encode(), "lee_602_8202_a.py": SOLUTION.encode(),
             "lee_LATE_603_8203_a.py": PROGRAMS["plant"].encode(),
             "kim_LATE_701_8301_yahtzee.py": SOLUTION.encode(), "kim_701_8302_notes.py": PROGRAMS["notes"].encode(),
             "zz_999_9999_...zip": _zip(["q/ann/yahtzee.py=plant", "q/kim/yahtzee.py=plant"])}
    for name, data in extra.items():
        (klass / name).write_bytes(data)
    entries, notes = discover(klass, tmp_path / "work", load_assignment("yahtzee"))
    paths = [Path(e.path).resolve() for e in entries]
    for i, path in enumerate(paths):
        for j, other in enumerate(paths):
            assert i == j or not (path == other or path.is_relative_to(other)), (entries[i].id, entries[j].id)
    assert len({e.id for e in entries}) == len(entries)
    by_uid = {e.info["lms_id"]: e for e in entries}
    assert sorted(by_uid) == sorted({name.split("_")[-3] for name in (*extra, *CLASSMATES, "alice_101_5001_x")}
                                    | {n.split("_")[-3] for c in EXPECTED["canvas"] for n, *_ in c["files"]})
    for uid, entry in by_uid.items():       # each student's files are its own: the plant only where handed in
        texts = [path.read_text(encoding="utf-8") for _, path in entry.files if path is not None]
        planted = PROGRAMS["plant"] in texts
        handed = any(name.split("_")[-3] == uid and data == PROGRAMS["plant"].encode()
                     for name, data in extra.items()) or uid in ("202", "302")
        assert planted == handed or uid in ("109", "999"), (uid, entry.id, [n for n, _ in entry.files])
    assert by_uid["701"].info["late"] is True and len(by_uid["701"].files) == 2
    staged = tmp_path / "work" / "staged"
    assert sorted(p.name for p in staged.iterdir()) == sorted(Path(e.path).name for e in entries
                                                              if Path(e.path).parent == staged)


# --- Part B: a name that becomes a classmate's id once made safe -----------------------------------

def lossy_class(folder: Path, case: dict) -> Path:
    """CASE's names as an nbgrader submitted/ tree or a plain folder of files."""
    for name, program in case["folders"]:
        if case["layout"] == "nbgrader":
            path = folder / "submitted" / name / "yahtzee" / "yahtzee.py"
        else:
            path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(PROGRAMS[program], encoding="utf-8")
        if "finals" in case:
            (path.parent / "timestamp.txt").write_text("2026-06-01 10:00:00.000000 UTC\n", encoding="utf-8")
    return folder


@pytest.mark.parametrize("case", EXPECTED["lossy"], ids=lambda c: c["name"])
def test_round9_a_name_made_safe_never_takes_a_classmates_id(tmp_path, case):
    klass = lossy_class(tmp_path / "class", case)
    out = tmp_path / "out"
    late = []
    if "finals" in case:        # the real student's extension must reach the real student's row
        (tmp_path / "ext.csv").write_text("id,due\nalice,2027-01-01T00:00\n", encoding="utf-8")
        late = ["--due", "2026-01-01T00:00", "--late-penalty", "50", "--extensions", str(tmp_path / "ext.csv")]
    result = run_batch([str(klass), "--stage", "1", "--jobs", "1", "--out", str(out), *late], tmp_path, "lossy",
                       timeout=300)
    assert result["code"] == 0, result["stdout"] + result["stderr"]
    rows = rows_of(out)
    assert {sid: round(score, 4) for sid, (score, *_) in rows.items()} == case["points"], case["why"]
    if "finals" in case:
        _, lines = read_csv(out)
        sources = _sources(out)             # (nbgrader: submitted/<student>/yahtzee)
        assert {Path(sources[sid]).parent.name: float(line["final"]) for sid, line in lines.items()} == case["finals"]


def _sources(out: Path) -> dict[str, str]:
    """id -> the submission's path as the gradebook stored it."""
    db = sqlite3.connect(f"file:{out / 'gradebook.sqlite'}?mode=ro", uri=True)
    try:
        return dict(db.execute("SELECT submission_id, source FROM grades"))
    finally:
        db.close()


def test_round9_ids_claimed_by_exact_names_first(tmp_path):
    """The class, in discover alone: every name that is its id exactly keeps it, whatever names
    that become the same id sort before it (leading and trailing spaces and '_', a zero-width
    space, NFD and NFC spellings), in a plain folder, an nbgrader tree and a Gradescope export."""
    plain = tmp_path / "plain"
    plain.mkdir()
    names = [" carl.py", "_carl.py", "carl .py", "carl.py", "\u200bcarl.py", "jose\u0301.py", "jose.py",
             "_dora", "dora"]
    for name in names:
        target = plain / name
        if name.endswith(".py"):
            target.write_text(SOLUTION, encoding="utf-8")
        else:
            target.mkdir()
            (target / "yahtzee.py").write_text(SOLUTION, encoding="utf-8")
    entries, _ = discover(plain, tmp_path / "w1", load_assignment("yahtzee"))
    by_id = {e.id: e.path.name for e in entries}
    assert by_id["carl"] == "carl.py" and by_id["jose"] == "jose.py" and by_id["dora"] == "dora"
    assert len(by_id) == len(names)
    tree = tmp_path / "nb" / "submitted"
    for student in (" eve", "eve", "eve.", "_eve_"):
        (tree / student / "yahtzee").mkdir(parents=True)
        (tree / student / "yahtzee" / "yahtzee.py").write_text(SOLUTION, encoding="utf-8")
    entries, _ = discover(tmp_path / "nb", tmp_path / "w2", load_assignment("yahtzee"))
    assert {e.id: e.path.parent.name for e in entries}["eve"] == "eve" and len(entries) == 4
    export = tmp_path / "gs"
    export.mkdir()
    meta = []
    for n, (sid, name) in enumerate((("", "' fay'"), ("fay", "Fay Real")), 1):
        (export / f"submission_{n}").mkdir()
        (export / f"submission_{n}" / "yahtzee.py").write_text(SOLUTION, encoding="utf-8")
        meta += [f"submission_{n}:", "  :submitters:", f"  - :name: {name}"] + ([f"    :sid: '{sid}'"] if sid else [])
    (export / "submission_metadata.yml").write_text("\n".join(meta) + "\n", encoding="utf-8")
    entries, _ = discover(export, tmp_path / "w3", load_assignment("yahtzee"))
    assert {e.id: e.path.name for e in entries}["fay"] == "submission_2" and len(entries) == 2


# --- Part C: one LMS student, one row; every submitter of a group, a row ---------------------------

def lms_rows_class(folder: Path, layout: str) -> Path:
    if layout == "moodle":
        for plugin, name, text in (("file", "yahtzee.py", SOLUTION),
                                   ("onlinetext", "onlinetext.html", "<p>my game is attached</p>")):
            path = folder / f"Carl Moodle_201_assignsubmission_{plugin}" / name
            path.parent.mkdir(parents=True)
            path.write_text(text, encoding="utf-8")
        return folder
    meta = []
    for n, (submitters, program) in enumerate(((["S1", "S2"], "solution"), (["S3"], "plant")), 1):
        (folder / f"submission_{n}").mkdir(parents=True)
        (folder / f"submission_{n}" / "yahtzee.py").write_text(PROGRAMS[program], encoding="utf-8")
        meta += [f"submission_{n}:", "  :submitters:"]
        for sid in submitters:
            meta += [f"  - :name: Student {sid}", f"    :sid: '{sid}'", f"    :email: {sid.lower()}@example.com"]
        meta += ["  :created_at: 2026-11-20 10:00:00.000000000 -0800", "  :score: 0.0", "  :status: processed"]
    (folder / "submission_metadata.yml").write_text("\n".join(meta) + "\n", encoding="utf-8")
    return folder


@pytest.mark.parametrize("case", EXPECTED["lms_rows"], ids=lambda c: c["name"])
def test_round9_an_lms_student_is_one_row(tmp_path, case):
    klass = lms_rows_class(tmp_path / "class", case["layout"])
    out = tmp_path / "out"
    result = run_batch([str(klass), "--stage", "1", "--jobs", "2", "--out", str(out)], tmp_path, "lms", timeout=300)
    assert result["code"] == 0, result["stdout"] + result["stderr"]
    rows = rows_of(out)
    got = {sid: round(rows[sid][0], 4) if sid in rows else -1 for sid in case["points"]}
    assert got == case["points"], case["why"]
    assert len(rows) == sum(1 for v in case["points"].values() if v >= 0)
    if case["layout"] == "moodle":
        with open(out / "moodle_grades.csv", newline="", encoding="utf-8") as f:
            lines = list(csv.reader(f))[1:]
        assert [(line[0], float(line[4])) for line in lines] == [("Participant 201", 30.0)]


# --- Part D: grade-all's own output folder inside the class ----------------------------------------

@pytest.mark.parametrize("case", EXPECTED["own_output"], ids=lambda c: c["name"])
def test_round9_the_graders_own_output_is_not_a_student(tmp_path, case):
    klass = tmp_path / "class"
    klass.mkdir()
    (klass / "alice_101_5001_project.zip").write_bytes(_zip(["project/yahtzee.py=solution"]))
    for name, text in CLASSMATES.items():
        (klass / name).write_text(text, encoding="utf-8")
    out = klass / "results"
    for run in range(2):
        result = run_batch([str(klass), "--stage", "1", "--jobs", "2", "--out", str(out)], tmp_path, f"own{run}",
                           timeout=300)
        assert result["code"] == 0, result["stdout"] + result["stderr"]
    rows = rows_of(out)
    assert {sid: round(rows[sid][0], 4) if sid in rows else -1 for sid in case["points"]} == case["points"], case["why"]
    assert "skipped results: grade-all's own output folder (--out)" in result["stdout"]


# --- Part E: found in round 9, closed in round 10 (engine/lent.py) ---------------------------------

@pytest.mark.parametrize("case", EXPECTED["unfixed"], ids=lambda c: c["name"])
def test_round9_later_stages_reference_no_longer_reaches_a_public_check(tmp_path, case):
    """Closed in pass 23 (redteam10; it pinned the hole until then): a stage-1 public check whose
    code ran beside the reference's later stages (a substitution variant) showed their compressed
    bytecode in its message; now its row shows the data-free summary and the call, with a sentence
    saying why (a run without the later stages' reference raises another message: not confirmed).
    Its score is the same.  docs/threat-model.md, "A lent check"; more channels: test_hostile_round10.py."""
    path = tmp_path / "yahtzee.py"
    path.write_text(SOLUTION.rstrip("\n") + "\n\n\n" + (FOLDER / f"{case['name']}.py").read_text(encoding="utf-8"),
                    encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "autograder", "grade", str(path), "--stage", str(case["stage"])],
                          env=env(), capture_output=True, text=True, timeout=600)
    assert f"Score: {case['points']:g} / 30" in proc.stdout, proc.stdout[-3000:]
    assert "LEAK" not in proc.stdout and case["functions"] == 0, proc.stdout[-3000:]
    assert "score_chance did not return normally (chance is the sum)." in proc.stdout
    assert "Not shown: what your code printed, returned or raised here." in proc.stdout


def test_round9_only_the_real_out_folder_is_skipped(tmp_path):
    """discover alone: OUT (a real folder inside the class) is skipped with a note; a student's link
    to it stays that student's error row, never followed; a folder merely named like OUT elsewhere
    (another class's results/) is a student."""
    klass = tmp_path / "class"
    (klass / "results" / ".work").mkdir(parents=True)
    (klass / "results" / "feedback").mkdir()
    (klass / "results" / ".work" / "x.py").write_text(SOLUTION, encoding="utf-8")
    (klass / "ann.py").write_text(SOLUTION, encoding="utf-8")
    (klass / "zed").symlink_to(klass / "results")
    entries, notes = discover(klass, klass / "results" / ".work", load_assignment("yahtzee"))
    assert {e.id: bool(e.error) for e in entries} == {"ann": False, "zed": True}
    assert notes == ["skipped results: grade-all's own output folder (--out)"]
    entries, notes = discover(klass, tmp_path / "elsewhere" / ".work", load_assignment("yahtzee"))
    assert {e.id: bool(e.error) for e in entries} == {"ann": False, "results": False, "zed": True} and not notes


def test_round9_every_submitter_of_a_group_is_a_student(tmp_path):
    """discover alone, a Gradescope export: a group of three (sid; email only; name only) gives
    three entries of one folder, each with its own LMS id and name; a lone submitter one entry."""
    export = tmp_path / "gs"
    for n in (1, 2):
        (export / f"submission_{n}").mkdir(parents=True)
        (export / f"submission_{n}" / "yahtzee.py").write_text(SOLUTION, encoding="utf-8")
    (export / "submission_metadata.yml").write_text(
        "submission_1:\n  :submitters:\n  - :name: Ann A\n    :sid: 'S1'\n    :email: ann@example.com\n"
        "  - :name: \"Bo B\"\n    :email: bo@example.com\n  - :name: Cy C\n"
        "  :created_at: 2026-11-20 10:00:00.000000000 -0800\n  :late: true\n"
        "submission_2:\n  :submitters:\n  - :name: Di D\n    :sid: 'S4'\n", encoding="utf-8")
    entries, _ = discover(export, tmp_path / "w", load_assignment("yahtzee"))
    got = {e.id: (e.path.name, e.info.get("lms_id"), e.info.get("lms_name"), e.info.get("late")) for e in entries}
    assert got == {"S1": ("submission_1", "S1", "Ann A", True), "bo@example.com": ("submission_1", "bo@example.com", "Bo B", True),
                   # a submitter with neither sid nor email: the folder's name, never their display name
                   # (pass 23; was "Cy_C", made from "Cy C")
                   "submission_1": ("submission_1", None, "Cy C", True), "S4": ("submission_2", "S4", "Di D", None)}
