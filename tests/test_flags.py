"""What a submission tried beyond the assignment is flagged for the instructor (GradeReport.flags).

Real sandboxes, real hostile programs from tests/corpus: reading the solution, writing outside its
folder, the network, forking, forged protocol lines; the reference and an honest mutant are never
flagged.  The end-to-end path (gradebook, CSV, report, feedback page, demo line) is in
tests/test_batch.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from autograder.grading.grade import grade

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO / "tests" / "corpus"
BASES = {case["name"]: case.get("base", "none")
         for case in tomllib.loads((CORPUS / "expected.toml").read_text(encoding="utf-8"))["case"]}

CASES = [                     # (corpus program, stage graded, words one of its flags must hold)
    ("read_solution", "1", "opened the file '" + str(REPO / "solution" / "yahtzee.py") + "' to read"),
    ("write_outside", "3", "opened the file '/etc/planted.txt' to write"),
    ("network", "2", "used the network"),
    ("fork_bomb", "4", "started a new process (fork)"),
    ("forge_protocol", "1", "wrote forged grader-protocol lines"),
    ("list_grader_folders", "1", "listed the folder"),
]


def prepared(name: str, tmp_path: Path) -> Path:
    text = (CORPUS / f"{name}.py").read_text(encoding="utf-8")
    tmp_path.mkdir(parents=True, exist_ok=True)
    canary = tmp_path / "canary"
    canary.mkdir(exist_ok=True)
    for key, value in {"@REPO@": str(REPO), "@PORT@": "9", "@CANARY@": str(canary)}.items():
        text = text.replace(key, value)
    base = BASES.get(name, "none")                  # as tests/test_hostile.py builds it
    if base != "none":
        text = (REPO / base / "yahtzee.py").read_text(encoding="utf-8").rstrip("\n") + "\n\n\n" + text
    folder = tmp_path / name
    folder.mkdir()
    path = folder / f"{name}.py"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("name,stage,words", CASES, ids=[c[0] for c in CASES])
def test_hostile_programs_are_flagged_with_what_they_tried(name, stage, words, tmp_path):
    report = grade(prepared(name, tmp_path), "yahtzee", stage=stage)
    assert any(words in flag for flag in report.flags), report.flags
    assert len(report.flags) <= 20 and all(len(flag) <= 200 for flag in report.flags)
    assert report.to_dict()["flags"] == report.flags


@pytest.mark.parametrize("name", ["reference", "honest_mutant"])
def test_honest_programs_are_never_flagged(name, tmp_path):
    for stage in ("1", "2"):
        assert grade(prepared(name, tmp_path / stage), "yahtzee", stage=stage).flags == []
