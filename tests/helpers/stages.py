"""A program handed in after stage N, made from the whole program (tests/submissions/<course>/stages/).

stages.toml there says how: the regions of later stages are the starter's (the stubs a student
has not replaced yet), and the functions two stages grade lose what the later stage added (the
kit's find/replace edits).  One file to keep right instead of one per stage.
"""

from __future__ import annotations

from pathlib import Path

from autograder import toml as tomllib
from autograder.assignment import load_assignment
from autograder.authoring.build import outer_fences
from autograder.authoring.edits import apply_edits

SUBMISSIONS = Path(__file__).resolve().parent.parent / "submissions"


def handed_in_after(course: str, stage: int, whole: str = "upto_stage4.py") -> str:
    """The program of tests/submissions/COURSE/stages/WHOLE as handed in after STAGE."""
    folder = SUBMISSIONS / course / "stages"
    spec = load_assignment(course)
    text = (folder / whole).read_text(encoding="utf-8")
    for entry in tomllib.loads((folder / "stages.toml").read_text(encoding="utf-8")).get("before", []):
        if stage < int(entry["stage"]):
            text = apply_edits(text, entry["edits"], f"{whole} (before stage {entry['stage']})")
    return with_starter_regions(text, spec.starter.read_text(encoding="utf-8"),
                                {p.number for p in spec.problems if p.stage > stage})


def with_starter_regions(text: str, starter: str, problems: set[int]) -> str:
    """TEXT with the outer region of every problem in PROBLEMS replaced by the starter's (the
    regions must be the starter's, in the same order: a student keeps the fences)."""
    mine, theirs = outer_fences(text), outer_fences(starter)
    assert [f.number for f in mine] == [f.number for f in theirs], "the fences differ from the starter's"
    lines, given = text.splitlines(keepends=True), starter.splitlines(keepends=True)
    out: list[str] = []
    position = 0
    for fence, stub in zip(mine, theirs):
        if fence.number in problems:
            out += lines[position:fence.begin] + given[stub.begin:stub.end + 1]
            position = fence.end + 1
    return "".join(out + lines[position:])
