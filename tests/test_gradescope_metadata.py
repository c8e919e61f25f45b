"""Pass 23 (`leftovers23`): Gradescope's submission_metadata.yml has one reader, a YAML parser.

Until pass 23 two hand parsers read it (lms.gradescope_metadata for times and ids, discover's
gradescope_submitters for the group's people) and read a value holding a quote differently:
``:name: O'Brien`` was a name for one and nothing for the other.  Now `lms.gradescope_metadata`
(PyYAML's safe loader, plain scalars kept as text) is the one reader; a file that is not
Gradescope's is refused with where and why, before anything is graded.  Each case goes through the
real discovery (`discover`) of a real export folder; the last through `grade-all` itself.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.batch import SOLUTION, run_batch

from autograder.assignment import load_assignment
from autograder.grading import lms
from autograder.grading.discover import InputError, discover


def export(folder: Path, meta: str, submissions: int = 2) -> Path:
    for n in range(1, submissions + 1):
        (folder / f"submission_{n}").mkdir(parents=True)
        (folder / f"submission_{n}" / "yahtzee.py").write_text(SOLUTION, encoding="utf-8")
    (folder / "submission_metadata.yml").write_text(meta, encoding="utf-8")
    return folder


def found(folder: Path) -> dict[str, tuple]:
    entries, _ = discover(folder, folder.parent / "work", load_assignment("yahtzee"))
    return {e.id: (e.path.name, e.info.get("lms_id"), e.info.get("lms_name")) for e in entries}


QUOTES = """\
submission_1:
  :submitters:
  - :name: O'Brien
    :sid: '007'
  - :name: "Zo\\u00eb \\"Z\\" Quinn"
    :email: zq@example.com
  - :name: 'Ann ''A'' Bee'
    :sid: "0123"
  :created_at: 2026-11-20 22:00:00.123456789 -0800
  :late: true
submission_2:
  :submitters:
  - :name: Jos\u00e9 Mar\u00eda
      de la Cruz
    :sid: S-9
"""


def test_quotes_unicode_and_multiline_values_are_read_as_yaml_says(tmp_path):
    """A name with an apostrophe, YAML's escapes in both quotings, a plain value folded over two
    lines, non-ASCII, and sids that look like numbers ('007' stays 007, not 7 nor an octal 83)."""
    got = found(export(tmp_path / "gs", QUOTES))
    assert got == {"007": ("submission_1", "007", "O'Brien"),
                   "zq@example.com": ("submission_1", "zq@example.com", 'Zo\u00eb "Z" Quinn'),
                   "0123": ("submission_1", "0123", "Ann 'A' Bee"),
                   "S-9": ("submission_2", "S-9", "Jos\u00e9 Mar\u00eda de la Cruz")}
    meta = lms.gradescope_metadata(QUOTES)
    assert lms._text_loader().__mro__[1].__name__ == "CSafeLoader"     # libyaml's (the pinned wheel's): fast
    assert meta["submission_1"].info == {"lms": "gradescope", "submitted_at": "2026-11-20T22:00:00.123456-08:00",
                                         "late": True}
    assert meta["submission_2"].info == {"lms": "gradescope"}


def test_a_display_name_never_becomes_an_id(tmp_path):
    """A submitter with neither sid nor email is named by the submission's folder (Gradescope's),
    never by the display name they chose: until pass 23 'S4' (a name) took the id of the student
    whose sid is S4, and the real S4 became S4-2.  Two such submitters in one group: two rows."""
    meta = ("submission_1:\n  :submitters:\n  - :name: S4\n  - :name: alice\n"
            "submission_2:\n  :submitters:\n  - :name: Di D\n    :sid: 'S4'\n")
    got = found(export(tmp_path / "gs", meta))
    assert got == {"S4": ("submission_2", "S4", "Di D"),
                   "submission_1": ("submission_1", None, "S4"),
                   "submission_1-2": ("submission_1", None, "alice")}


def test_missing_keys_and_folders_not_in_the_metadata(tmp_path):
    """No :submitters: (the folder's name), an empty list, a submitter with no fields, a folder the
    file does not name, keys without Ruby's colon: each submission is still one row at least."""
    meta = ("submission_1:\n  :created_at: 2026-11-20 10:00:00 -0800\n"
            "submission_2:\n  :submitters: []\n"
            "submission_3:\n  :submitters:\n  - {}\n  - :name:\n"
            "submission_4:\n  submitters:\n  - name: Plain Keys\n    sid: P4\n")
    got = found(export(tmp_path / "gs", meta, submissions=5))
    assert got == {"submission_1": ("submission_1", None, None), "submission_2": ("submission_2", None, None),
                   "submission_3": ("submission_3", None, None), "P4": ("submission_4", "P4", "Plain Keys"),
                   "submission_5": ("submission_5", None, None)}


BAD = {
    "not YAML": ("submission_1:\n  :submitters:\n  - :name: \"Zo\"e\"\n",
                 "it is not YAML (line 3, column 16: did not find expected key)"),
    "a list": ("- submission_1\n- submission_2\n", "it is not a mapping of submission folders to their metadata"),
    "a scalar field": ("submission_1: graded\n", "'submission_1' holds no mapping of fields"),
    "too deep": ("submission_1:\n  :x: " + "[" * 40 + "]" * 40 + "\n",
                 "it nests deeper than 12 levels (line 2)"),
    "two documents": ("submission_1: {}\n---\nsubmission_2: {}\n",
                      "it is not YAML (line 2, column 1: expected a single document in the stream, but found another document)"),
    "a Python tag": ("submission_1: !!python/object/apply:os.system ['true']\n",
                     "it is not YAML (line 1, column 15: could not determine a constructor for the tag "
                     "'tag:yaml.org,2002:python/object/apply:os.system')"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_file_that_is_not_gradescopes_is_refused_with_where_and_why(tmp_path, case):
    text, why = BAD[case]
    with pytest.raises(InputError) as err:
        found(export(tmp_path / "gs", text))
    assert str(err.value) == (f"cannot read Gradescope's submission_metadata.yml ({why}); it names each "
                              "submission's students, so nothing was graded: download the export again from "
                              "Gradescope")


def test_a_huge_file_is_refused_unread(tmp_path, monkeypatch):
    """The size bound (16 MB of text): checked on the file's size before it is read, and on the text."""
    monkeypatch.setattr(lms, "METADATA_LIMIT", 1000)
    text = "submission_1:\n  :submitters:\n" + "  - :name: x\n" * 1000
    with pytest.raises(InputError, match=r"\(it is 13,029 bytes long \(at most 1,000 characters are read\)\)"):
        found(export(tmp_path / "gs", text))
    with pytest.raises(lms.MetadataError, match=r"^it is 13,029 characters long \(at most 1,000 are read\)$"):
        lms.gradescope_metadata(text)


def test_grade_all_refuses_a_bad_metadata_file_and_keeps_the_gradebook(tmp_path):
    """A bad file after a good run: a clear message, exit 2, the gradebook's rows as they were."""
    folder = export(tmp_path / "gs", "submission_1:\n  :submitters:\n  - :name: Ann\n    :sid: 'S1'\n", 1)
    out = tmp_path / "out"
    first = run_batch([str(folder), "--stage", "1", "--jobs", "1", "--out", str(out), "--no-progress"], tmp_path,
                      "good", timeout=300)
    assert first["code"] == 0, first["stdout"] + first["stderr"]
    before = (out / "grades.csv").read_text(encoding="utf-8")
    assert before.splitlines()[1].startswith("S1,30,")
    (folder / "submission_metadata.yml").write_text("submission_1: [\n", encoding="utf-8")
    second = run_batch([str(folder), "--stage", "1", "--jobs", "1", "--out", str(out), "--no-progress"], tmp_path,
                       "bad", timeout=300)
    assert second["code"] == 2, second["stdout"] + second["stderr"]
    assert "cannot read Gradescope's submission_metadata.yml (it is not YAML (line 2, column 1: did not find expected node content))" \
           in second["stderr"], second["stderr"]
    assert (out / "grades.csv").read_text(encoding="utf-8") == before
