"""Pass 23 (`leftovers23`): every file a run writes per student is unique on any disk.

Ids are case-sensitive (`Alice` and `alice` are two students), but macOS's and Windows' disks (and
a zip of the feedback opened there) are not: until pass 23 `feedback/Alice.html` and
`feedback/alice.html` were one file there, one student's feedback over the other's.  Now an id whose
name clashes with another's under case folding and Unicode normalisation, or is a device name
Windows reserves, has files named `<id>-<digest>`; every other id keeps its own name (the sample
class's names do not move).  Graded for real by `grade-all`; the report's links are followed.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from helpers.batch import SOLUTION, run_batch

from autograder.assignment import load_assignment
from autograder.grading.names import file_stems, fold


def folded_unique(names: list[str]) -> bool:
    return len({fold(name) for name in names}) == len(names)


def test_file_stems_keep_every_name_that_clashes_with_none():
    ids = ["Alice", "alice", "ALICE", "bob", "Bob.", "con", "Nul", "com1", "console", "caf\u00e9", "cafe\u0301",
           "Caf\u00c9", "stra\u00dfe", "STRASSE", "dora"]
    stems = file_stems(ids)
    assert {sid: stems[sid] for sid in ("bob", "Bob.", "console", "dora")} == {
        "bob": "bob", "Bob.": "Bob.", "console": "console", "dora": "dora"}
    moved = {sid for sid in ids if stems[sid] != sid}
    assert moved == {"Alice", "alice", "ALICE", "con", "Nul", "com1", "caf\u00e9", "cafe\u0301", "Caf\u00c9",
                     "stra\u00dfe", "STRASSE"}
    assert all(re.fullmatch(re.escape(sid) + "-[0-9a-f]{8}", stems[sid]) for sid in moved)
    files = [f"{stem}.{ext}" for stem in stems.values() for ext in ("md", "txt", "html")]
    assert folded_unique(files) and folded_unique(list(stems.values()))
    # an id that is literally another's stem does not take it
    tricky = file_stems(["Ann", "ann", file_stems(["Ann", "ann"])["ann"]])
    assert folded_unique(list(tricky.values())) and tricky[file_stems(["Ann", "ann"])["ann"]] == \
        file_stems(["Ann", "ann"])["ann"]


def test_the_sample_class_keeps_its_names():
    """No exact output moves for the sample class: every one of its ids is its own stem."""
    spec = load_assignment("yahtzee")
    ids = [p.stem for p in (Path(__file__).parents[1] / "samples" / "class").iterdir()]
    assert len(ids) >= 14 and spec.name == "yahtzee"
    assert file_stems(ids) == {sid: sid for sid in ids}


def feedback_files(out: Path) -> list[str]:
    return sorted(p.name for p in (out / "feedback").iterdir())


def test_grade_all_writes_no_two_files_one_disk_folds_together(tmp_path):
    klass = tmp_path / "class"
    klass.mkdir()
    for name in ("alice", "bob", "con"):
        (klass / f"{name}.py").write_text(SOLUTION, encoding="utf-8")
    out = tmp_path / "out"
    args = [str(klass), "--stage", "1", "--jobs", "2", "--out", str(out), "--no-progress"]
    first = run_batch(args, tmp_path, "one", timeout=300)
    assert first["code"] == 0, first["stdout"] + first["stderr"]
    con = file_stems(["con"])["con"]
    assert feedback_files(out) == sorted([f"{con}.html", f"{con}.md", f"{con}.txt", "alice.html", "alice.md",
                                          "alice.txt", "bob.html", "bob.md", "bob.txt"])
    # a second student Alice: both alices' files get names of their own; alice's old files go
    (klass / "Alice.py").write_text(SOLUTION, encoding="utf-8")
    second = run_batch(args, tmp_path, "two", timeout=300)
    assert second["code"] == 0, second["stdout"] + second["stderr"]
    stems = file_stems(["Alice", "alice", "bob", "con"])
    assert stems["bob"] == "bob" and stems["alice"] != "alice" and stems["Alice"] != "Alice"
    names = feedback_files(out)
    assert names == sorted(f"{stems[sid]}.{ext}" for sid in stems for ext in ("html", "md", "txt"))
    assert folded_unique(names)
    data = json.loads((out / "grades.json").read_text(encoding="utf-8"))
    assert {s["id"]: s["feedback"] for s in data["students"]} == {sid: f"feedback/{stems[sid]}.md" for sid in stems}
    report = (out / "report.html").read_text(encoding="utf-8")
    links = set(re.findall(r'href="feedback/([^"]+)"', report))
    assert links == {f"{stems[sid]}.html" for sid in stems}
    assert all((out / "feedback" / link).is_file() for link in links)
    for sid in ("Alice", "alice"):         # each page is its own student's
        page = (out / "feedback" / f"{stems[sid]}.html").read_text(encoding="utf-8")
        assert f"Feedback: {sid}<" in page
