"""Pass 23 (`leftovers23`): a gradebook's rows of ids the last run no longer found.

A renamed student, or `smithjohn` once a second one comes (`smithjohn_201`, `smithjohn_202`): the
old row stays in the gradebook.  Until pass 23 every export listed it as if graded now (grades.csv,
the LMS import files, the report's figures).  Now the run says which rows it did not find; grades.csv
and grades.json mark them "missing" (every found row's line as before), the LMS import files leave
them out, the report lists them apart from the class's figures, and `--drop-missing` deletes them
(refused when it would delete every row: another class's folder).  Real `grade-all` runs.
"""

from __future__ import annotations

import json
import subprocess
import sys

from helpers.batch import SOLUTION, env, read_csv, rows_of, run_batch

from autograder.grading.names import file_stems

MUTANT = SOLUTION.replace("return sum(dice)", "return sum(dice) - 1", 1)


def grade(klass, out, tmp_path, name, *extra):
    result = run_batch([str(klass), "--stage", "1", "--jobs", "2", "--out", str(out), "--no-progress", *extra],
                       tmp_path, name, timeout=300)
    return result


def lines(out, name="grades.csv"):
    return {line.split(",")[0]: line for line in (out / name).read_text(encoding="utf-8").splitlines()[1:]}


def test_rows_not_found_are_marked_missing_and_dropped_on_request(tmp_path):
    assert MUTANT != SOLUTION
    klass, out = tmp_path / "class", tmp_path / "out"
    klass.mkdir()
    for name, text in (("smithjohn", MUTANT), ("bob", SOLUTION), ("Carl", SOLUTION)):
        (klass / f"{name}.py").write_text(text, encoding="utf-8")
    first = grade(klass, out, tmp_path, "one")
    assert first["code"] == 0, first["stdout"] + first["stderr"]
    assert "not found in this run" not in first["stdout"]
    before, canvas_before = lines(out), (out / "canvas_grades.csv").read_text(encoding="utf-8")

    (klass / "smithjohn.py").rename(klass / "smithjohn_201.py")
    (klass / "Carl.py").rename(klass / "carl.py")      # the same student, now lower case (two ids)
    second = grade(klass, out, tmp_path, "two")
    assert second["code"] == 0, second["stdout"] + second["stderr"]
    assert ("note: 2 rows of the gradebook are of ids not found in this run: Carl, smithjohn; kept as graded "
            "before, marked \"missing\" in grades.csv, grades.json and report.html, left out of canvas_grades.csv "
            "and moodle_grades.csv; --drop-missing deletes them\n") in second["stdout"], second["stdout"]
    after = lines(out)
    assert after["bob"] == before["bob"]                    # a found row's line as it was
    header, rows = read_csv(out)
    assert {sid: row["status"] for sid, row in rows.items()} == {
        "bob": "graded", "carl": "graded", "smithjohn_201": "graded", "Carl": "missing", "smithjohn": "missing"}
    assert after["smithjohn"] == before["smithjohn"].replace(",graded,", ",missing,")
    data = json.loads((out / "grades.json").read_text(encoding="utf-8"))
    assert {s["id"]: s["status"] for s in data["students"]} == {sid: row["status"] for sid, row in rows.items()}
    canvas = (out / "canvas_grades.csv").read_text(encoding="utf-8")
    assert "smithjohn," not in canvas and "Carl," not in canvas and "smithjohn_201," in canvas
    assert len(canvas.splitlines()) == len(canvas_before.splitlines())      # 3 students then, 3 now
    report = (out / "report.html").read_text(encoding="utf-8")
    table, apart = report.split('<h3 id="missing">Not found in the last run</h3>')
    table = table.split('<h2 id="students">')[1]
    stems = file_stems(["bob", "carl", "Carl", "smithjohn", "smithjohn_201"])
    assert f'href="feedback/{stems["smithjohn"]}.html">smithjohn</a>' in apart.split("<h2")[0]
    assert ">smithjohn<" not in table and ">smithjohn_201<" in table and ">carl<" in table
    assert "2 rows of the gradebook whose id the last run did not find" in apart
    assert "<b>3</b>" in report.split('id="summary"')[1].split("</div>")[0]     # submissions: this run's 3
    assert (out / "feedback" / f"{stems['smithjohn']}.html").is_file()         # its feedback is still there

    third = grade(klass, out, tmp_path, "three", "--drop-missing")
    assert third["code"] == 0, third["stdout"] + third["stderr"]
    assert "note: dropped 2 rows of ids not found in this run (--drop-missing): Carl, smithjohn\n" in third["stdout"]
    assert set(rows_of(out)) == {"bob", "carl", "smithjohn_201"}
    assert sorted(p.name for p in (out / "feedback").iterdir()) == sorted(
        f"{sid}.{ext}" for sid in ("bob", "carl", "smithjohn_201") for ext in ("html", "md", "txt"))
    assert "Not found in the last run" not in (out / "report.html").read_text(encoding="utf-8")
    assert lines(out)["bob"] == before["bob"]

    other = tmp_path / "other-class"
    other.mkdir()
    (other / "zed.py").write_text(SOLUTION, encoding="utf-8")
    wrong = grade(other, out, tmp_path, "wrong", "--drop-missing")
    assert wrong["code"] == 2, wrong["stdout"] + wrong["stderr"]
    # pass 23: "..., so every row would go; nothing was dropped (is it the right folder and --out?)"
    # (pass 24: such a folder is another section, of which nothing would be dropped)
    assert (f"error: --drop-missing: none of the gradebook's 3 students is in {other}, so it would be graded as "
            "another section, of which no row is missing; nothing was graded nor dropped (without --drop-missing "
            "it is graded beside them; is it the right folder and --out?)\n") == wrong["stderr"], wrong["stderr"]
    assert set(rows_of(out)) == {"bob", "carl", "smithjohn_201"}


def test_grade_into_a_gradebook_counts_as_found(tmp_path):
    """`grade FILE --gradebook OUT` adds a late student: not missing in the exports it rewrites."""
    klass, out = tmp_path / "class", tmp_path / "out"
    klass.mkdir()
    (klass / "ann.py").write_text(SOLUTION, encoding="utf-8")
    first = grade(klass, out, tmp_path, "one")
    assert first["code"] == 0, first["stdout"] + first["stderr"]
    late = tmp_path / "late.py"
    late.write_text(SOLUTION, encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "autograder", "grade", str(late), "--stage", "1", "--gradebook",
                           str(out), "--id", "lou"], env=env(), capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    _, rows = read_csv(out)
    assert {sid: row["status"] for sid, row in rows.items()} == {"ann": "graded", "lou": "graded"}


def test_two_sections_into_one_out_keep_each_others_rows(tmp_path):
    """Pass 24: two sections graded from two folders into one `--out` marked each other missing (and
    left each other out of the LMS files).  A run's section is every earlier one sharing a student
    with it; a run sharing none is another section beside them, and says so.  A row is missing only
    when a run of its own section no longer finds it, whatever that run's folder is called."""
    out = tmp_path / "out"
    a, b = tmp_path / "section-a", tmp_path / "section-b"
    for folder, names in ((a, ("ann", "bob")), (b, ("cat", "dan"))):
        folder.mkdir()
        for name in names:
            (folder / f"{name}.py").write_text(SOLUTION, encoding="utf-8")
    first = grade(a, out, tmp_path, "a")
    assert first["code"] == 0, first["stdout"] + first["stderr"]
    second = grade(b, out, tmp_path, "b")
    assert second["code"] == 0, second["stdout"] + second["stderr"]
    assert "not found in this run" not in second["stdout"], second["stdout"]
    assert (f"note: no student of this run is among the gradebook's 2 earlier rows (graded from {a}): {b} is "
            "graded as another section beside them; a row is marked missing only when a later run of its own "
            "section does not find it\n") in second["stdout"], second["stdout"]
    _, rows = read_csv(out)
    assert {sid: row["status"] for sid, row in rows.items()} == {sid: "graded" for sid in ("ann", "bob", "cat", "dan")}
    canvas = (out / "canvas_grades.csv").read_text(encoding="utf-8")
    assert all(f"{sid}," in canvas for sid in ("ann", "bob", "cat", "dan"))
    assert "Not found in the last run" not in (out / "report.html").read_text(encoding="utf-8")

    # section A downloaded again into a folder of another name: bob renamed; only bob is missing
    again = tmp_path / "section-a-monday"
    again.mkdir()
    (again / "ann.py").write_text(SOLUTION, encoding="utf-8")
    (again / "bob_2.py").write_text(SOLUTION, encoding="utf-8")
    third = grade(again, out, tmp_path, "a-again")
    assert third["code"] == 0, third["stdout"] + third["stderr"]
    assert "note: 1 row of the gradebook is of ids not found in this run: bob; kept" in third["stdout"], third["stdout"]
    assert "another section" not in third["stdout"], third["stdout"]
    _, rows = read_csv(out)
    assert {sid: row["status"] for sid, row in rows.items()} == {
        "ann": "graded", "bob": "missing", "bob_2": "graded", "cat": "graded", "dan": "graded"}

    # dan leaves section B: its run with --drop-missing drops dan and bob stays (section A's)
    (b / "dan.py").unlink()
    fourth = grade(b, out, tmp_path, "b-again", "--drop-missing")
    assert fourth["code"] == 0, fourth["stdout"] + fourth["stderr"]
    assert "note: dropped 1 row of ids not found in this run (--drop-missing): dan\n" in fourth["stdout"], fourth["stdout"]
    _, rows = read_csv(out)
    assert {sid: row["status"] for sid, row in rows.items()} == {
        "ann": "graded", "bob": "missing", "bob_2": "graded", "cat": "graded"}

    # a third section with --drop-missing: refused (it shares no student: nothing of it to drop)
    c = tmp_path / "section-c"
    c.mkdir()
    (c / "eve.py").write_text(SOLUTION, encoding="utf-8")
    wrong = grade(c, out, tmp_path, "c", "--drop-missing")
    assert wrong["code"] == 2, wrong["stdout"] + wrong["stderr"]
    assert wrong["stderr"] == (
        f"error: --drop-missing: none of the gradebook's 4 students is in {c}, so it would be graded as another "
        "section, of which no row is missing; nothing was graded nor dropped (without --drop-missing it is graded "
        "beside them; is it the right folder and --out?)\n"), wrong["stderr"]
    assert set(rows_of(out)) == {"ann", "bob", "bob_2", "cat"}


def test_a_gradebook_of_pass_23_keeps_its_found_ids(tmp_path):
    """A gradebook written by pass 23 kept one list of ids (the last run's): read as one section of
    unknown folder, so the next run of that class marks the same rows missing as pass 23 did, and a
    run of another section keeps them."""
    from autograder.grading.gradebook import Gradebook

    klass, out = tmp_path / "class", tmp_path / "out"
    klass.mkdir()
    for name in ("ann", "bob", "old"):
        (klass / f"{name}.py").write_text(SOLUTION, encoding="utf-8")
    assert grade(klass, out, tmp_path, "one")["code"] == 0
    with Gradebook(out / "gradebook.sqlite") as book:       # as pass 23 left it: `old` not found last time
        book.set_meta("found:yahtzee", json.dumps(["ann", "bob"]))
        assert book.sections("yahtzee") == [{"source": None, "ids": ["ann", "bob"], "lost": ["old"]}]
        assert book.found("yahtzee") == {"ann", "bob"}
    other = tmp_path / "other"
    other.mkdir()
    (other / "cat.py").write_text(SOLUTION, encoding="utf-8")
    second = grade(other, out, tmp_path, "two")
    assert second["code"] == 0, second["stdout"] + second["stderr"]
    assert "not found in this run" not in second["stdout"], second["stdout"]     # (old: the other section's)
    assert ("(graded from a run before sections were kept): " in second["stdout"]), second["stdout"]
    _, rows = read_csv(out)
    assert {sid: row["status"] for sid, row in rows.items()} == {
        "ann": "graded", "bob": "graded", "cat": "graded", "old": "missing"}


def test_sections_merge_each_run_into_the_sections_it_shares_a_student_with():
    """grading.sections.merge on its own: which sections a run replaces, which it leaves, and which
    rows its section lost (the note's and --drop-missing's); a row found since by another section's
    run (`grade FILE --gradebook`, a student who moved) is never lost by this one."""
    from autograder.grading.sections import merge

    a = {"source": "/a", "ids": ["ann", "bob"], "lost": ["old"]}
    b = {"source": "/b", "ids": ["cat"], "lost": []}
    late = {"source": "/late.py", "ids": ["old"], "lost": []}       # `old` graded again on its own since
    stored = {"ann", "bob", "old", "cat", "stray"}                   # stray: a row no section holds
    merged, others, lost = merge([a, b, late], "/a2", {"ann", "bob_2"}, stored)
    assert merged == [{"source": "/a2", "ids": ["ann", "bob_2"], "lost": ["bob", "stray"]}, b, late]
    assert others == [b, late] and lost == ["bob", "stray"]
    merged, others, lost = merge([a, b], "/c", {"dan"}, stored)      # shares no student: beside them
    assert merged == [a, b, {"source": "/c", "ids": ["dan"], "lost": ["stray"]}] and others == [a, b]
    merged, _, lost = merge([a, b], "/ab", {"ann", "cat"}, stored)   # both sections in one folder now
    assert merged == [{"source": "/ab", "ids": ["ann", "cat"], "lost": ["bob", "old", "stray"]}]
