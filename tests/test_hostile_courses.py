"""Hostile submissions for the courses besides yahtzee (swe3006, cs21, yatzy, pytzee): each gets
EXACTLY the points it earned, the batch never crashes or stalls, and nothing escapes.  Honest
single-bug programs (a correct program of tests/submissions with one bug a struggling student
writes) ride in the same batches: each loses points only in the stage where its bug lives; and
a Yahtzee program handed in stage by stage (one file cut back to each stage, tests/helpers/stages.py)
gets exactly the points of the stages written.

The corpus is tests/hostile_courses/<course>/<case>.py with the exact outcome of each case in
tests/hostile_courses/expected.toml.  A case is a snippet put into the course's reference (or
starter) just before its `if __name__ == "__main__":` block, so its later definitions replace
the reference's (and the file still runs as a script), or the whole file (base "none").

One `grade-all --jobs 1` batch per course, the four started together under tests/subreaper.py
(which reports any process that outlived its batch), with short limits (AUTOGRADER_LIMITS).
For every case: the exact score, the feedback's phrases, the sandbox flags the instructor must
see, a bounded wall time.  Per course: no grader failure, nothing outlived the batch, nothing
was written outside the submissions' sandboxes (their folders and the kit's course folders
are unchanged).

HOSTILE_COURSES_DUMP=path.json writes what each case got (to review expected.toml by hand).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from helpers.stages import handed_in_after

from autograder import toml as tomllib
from autograder.assignment import load_assignment

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO / "tests" / "hostile_courses"
EXPECTED = tomllib.loads((CORPUS / "expected.toml").read_text(encoding="utf-8"))
SUBREAPER = REPO / "tests" / "subreaper.py"
LIMITS_ENV = "wall_s=1,cpu_s=4,memory_mb=256"
WALL_BOUND = 60.0            # seconds per submission in its batch
BATCH_TIMEOUT = 400.0
COURSES = ("swe3006", "cs21", "yatzy", "pytzee", "yahtzee")
MAIN_BLOCK = '\nif __name__ == "__main__":'


@dataclass
class Case:
    course: str
    name: str
    why: str
    score: float
    base: str = "reference"          # "reference" | "starter": put into that file; "none": the file alone
    phrases: list[str] = field(default_factory=list)    # the feedback says these (case-insensitive)
    flags: list[str] = field(default_factory=list)      # the instructor sees these sandbox flags
    error: bool = False              # the file could not be loaded at all (a clear message, score 0)
    program: str = ""                # an honest single bug: this tests/submissions file with EDITS
    edits: list[dict] = field(default_factory=list)
    stages_lost: list[int] = field(default_factory=list)   # a single bug loses points in these only
    stages_zero: list[int] | None = None   # a program handed in stage by stage: exactly 0 in these
    handed_in_after: int = 0         # PROGRAM as handed in after this stage (tests/helpers/stages.py)

    @property
    def id(self) -> str:
        return f"{self.course}/{self.name}"


CASES = [Case(**entry) for entry in EXPECTED["case"]]


def test_every_corpus_file_has_an_expected_outcome():
    files = {f"{p.parent.name}/{p.stem}" for p in CORPUS.glob("*/*.py")}
    assert files == {case.id for case in CASES if not case.program}


def source_for(case: Case) -> str:
    if case.program:                 # a correct program of tests/submissions with one bug put in
        text = (REPO / "tests" / "submissions" / case.course / case.program).read_text(encoding="utf-8")
        if case.handed_in_after:
            text = handed_in_after(case.course, case.handed_in_after, Path(case.program).name)
        for edit in case.edits:
            assert text.count(edit["find"]) == 1, (case.id, edit["find"])
            text = text.replace(edit["find"], edit["replace"])
        return text
    snippet = (CORPUS / case.course / f"{case.name}.py").read_text(encoding="utf-8")
    if case.base == "none":
        return snippet
    spec = load_assignment(case.course)
    base = (spec.solution if case.base == "reference" else spec.starter).read_text(encoding="utf-8")
    at = base.rfind(MAIN_BLOCK)
    assert at > 0, f"{case.base} of {case.course} has no main block"
    return base[:at] + "\n\n# --- the hostile part ---\n" + snippet + "\n" + base[at:]


def tree_hash(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() and "__pycache__" not in p.parts}


@pytest.fixture(scope="module")
def batches(tmp_path_factory) -> dict[str, dict]:
    """course -> {"report": the subreaper's report, "students": id -> grades.json entry,
    "feedback": id -> feedback text, "folders": the submissions' folders and their hashes}."""
    root = tmp_path_factory.mktemp("hostile-courses")
    kit_before = tree_hash(REPO / "autograder" / "assignments")
    started = {}
    for course in COURSES:
        spec = load_assignment(course)
        class_dir = root / course / "class"
        for case in (c for c in CASES if c.course == course):
            folder = class_dir / case.name
            folder.mkdir(parents=True)
            (folder / spec.student_file).write_text(source_for(case), encoding="utf-8")
        cwd = root / course / "cwd"
        cwd.mkdir()
        report = root / course / "report.json"
        env = dict(os.environ, PYTHONPATH=str(REPO), AUTOGRADER_LIMITS=LIMITS_ENV)
        command = [sys.executable, str(SUBREAPER), str(report), sys.executable, "-m", "autograder", "grade-all",
                   str(class_dir), "--assignment", course, "--jobs", "1", "--out", str(root / course / "out"),
                   "--no-progress"]
        started[course] = (subprocess.Popen(command, cwd=cwd, env=env, start_new_session=True),
                           report, class_dir, tree_hash(class_dir))
    deadline = time.monotonic() + BATCH_TIMEOUT
    found = {}
    for course, (proc, report, class_dir, before) in started.items():
        proc.wait(timeout=max(1.0, deadline - time.monotonic()))
        out = root / course / "out"
        grades = json.loads((out / "grades.json").read_text(encoding="utf-8"))
        students = {s["id"]: s for s in grades["students"]}
        feedback = {sid: (out / "feedback" / f"{sid}.txt").read_text(encoding="utf-8") for sid in students}
        found[course] = {"report": json.loads(report.read_text(encoding="utf-8")), "students": students,
                         "feedback": feedback, "before": before, "after": tree_hash(class_dir),
                         "cwd": sorted(p.name for p in (root / course / "cwd").iterdir())}
    found["kit"] = {"before": kit_before, "after": tree_hash(REPO / "autograder" / "assignments")}
    dump = os.environ.get("HOSTILE_COURSES_DUMP")
    if dump:
        Path(dump).write_text(json.dumps({course: {sid: {k: s[k] for k in ("total", "status", "error", "wall_time",
                                                                            "stages", "problems", "sandbox_flags")}
                                                   for sid, s in found[course]["students"].items()}
                                          for course in COURSES}, indent=1, default=str), encoding="utf-8")
    return found


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_exact_score(batches, case):
    student = batches[case.course]["students"][case.name]
    assert student["total"] == pytest.approx(case.score, abs=1e-4), (student["problems"], student["error"])
    assert (student["status"] == "error") == case.error, student["error"]


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_feedback_and_flags(batches, case):
    text = batches[case.course]["feedback"][case.name]
    for phrase in case.phrases:
        assert phrase.lower() in text.lower(), (phrase, text[:3000])
    flags = "; ".join(batches[case.course]["students"][case.name]["sandbox_flags"] or [])
    for flag in case.flags:
        assert flag in flags, (flag, flags)
    assert "internal error" not in text and "Traceback" not in text


BUGS = [case for case in CASES if case.program]


@pytest.mark.parametrize("case", BUGS, ids=[case.id for case in BUGS])
def test_a_single_bug_costs_points_only_in_its_stage(batches, case):
    student = batches[case.course]["students"][case.name]
    lost = sorted(int(stage) for stage, (got, most) in student["stages"].items() if got < most - 1e-9)
    assert lost == case.stages_lost, student["problems"]


STAGED = [case for case in CASES if case.stages_zero is not None]


@pytest.mark.parametrize("case", STAGED, ids=[case.id for case in STAGED])
def test_a_stage_not_written_gives_nothing(batches, case):
    """A program handed in after stage N: every stage it does not lose gets all its points, every
    stage not written exactly 0 (no check counts what a program without the stage's code does
    anyway, nor excuses a failure there as stemming from an earlier stage's bug)."""
    student = batches[case.course]["students"][case.name]
    for stage, (got, most) in student["stages"].items():
        if int(stage) in case.stages_zero:
            assert got == 0, (stage, student["problems"])
        elif int(stage) not in case.stages_lost:
            assert got == pytest.approx(most, abs=1e-9), (stage, student["problems"])
    assert set(case.stages_zero) <= set(case.stages_lost)


def test_a_program_handed_in_after_a_stage_is_the_whole_one_cut_back():
    """One file (stages/upto_stage4.py) makes every staged program: after stage N the regions of
    later stages are the starter's, byte for byte, the rest is the whole file's but for the parts
    stage 4 adds to the functions two stages grade (stages.toml); each one compiles."""
    from autograder.authoring.build import outer_fences

    spec = load_assignment("yahtzee")
    whole = (REPO / "tests" / "submissions" / "yahtzee" / "stages" / "upto_stage4.py").read_text(encoding="utf-8")
    starter = spec.starter.read_text(encoding="utf-8")
    assert {c.handed_in_after for c in STAGED} == {1, 2, 3, 4}
    assert handed_in_after("yahtzee", 4) == whole

    def regions(text: str) -> list[tuple[int, str]]:
        lines = text.splitlines(keepends=True)
        return [(f.number, "".join(lines[f.begin:f.end + 1])) for f in outer_fences(text)]
    for stage in (1, 2, 3):
        text = handed_in_after("yahtzee", stage)
        compile(text, f"upto_stage{stage}.py", "exec")
        for (number, got), (_, given), (_, full) in zip(regions(text), regions(starter), regions(whole)):
            if spec.problem(number).stage > stage:
                assert got == given, number
            elif number not in (12, 14, 15):           # stage 4 extends play_round, final_score, format_scorecard
                assert got == full, number
        assert "Joker! Yahtzee bonus" not in text and "Joker! Yahtzee bonus" in whole   # no Joker rule yet


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_bounded_time(batches, case):
    assert batches[case.course]["students"][case.name]["wall_time"] < WALL_BOUND


@pytest.mark.parametrize("course", COURSES)
def test_the_batch_finishes_cleanly(batches, course):
    """Every submission graded, no grader failure, nothing outlived the batch, nothing written
    outside the sandboxes (the submissions' folders, the batch's folder, the kit's courses)."""
    found = batches[course]
    report = found["report"]
    count = sum(1 for case in CASES if case.course == course)
    assert report["code"] == 0, report["stderr"][-3000:]
    assert f"{count} submissions, {count} graded" in report["stdout"], report["stdout"]
    assert " 0 grader failures" in report["stdout"], report["stdout"]
    assert report["left"] == [], report["left"]
    assert found["after"] == found["before"]
    assert found["cwd"] == []
    assert batches["kit"]["after"] == batches["kit"]["before"]


def test_placeholders_are_shown_in_words():
    """A value the sandbox could not send as it was (too large, too deep, self-containing, an
    object) is shown to the student in words, never as the transport's own dict."""
    from autograder.engine.feedback import show

    assert show({"__type__": "int", "too_large": True}) == "<an int too large to show>"
    assert show({"__type__": "int"}) == "<an int too large to show>"
    assert show([1, {"__type__": "str", "length": 20_000_000, "start": "ab"}]) == \
        "[1, 'ab'...<a str of 20000000 characters>]"
    assert show({"Aces": {"__type__": "list", "cycle": True}}) == "{'Aces': <a list that contains itself>}"
    assert show({"__type__": "list", "truncated": True}) == "<a list nested too deeply to show>"
    assert show({"__type__": "nested too deeply"}) == "<a value nested too deeply to show>"
    assert show({"__type__": "dict", "keys": "not str/int"}) == "<a dict whose keys are not str or int>"
    assert show({"__type__": "Anything"}) == "<an object of type Anything>"
    assert show(([2, 2], {"Chance": 17})) == "([2, 2], {'Chance': 17})"
