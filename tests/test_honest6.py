"""Struggling students' programs (tests/corpus/honest6/, pass 24): a beginner's correct program from the
starter, its legal variants, and the mistakes a struggling student makes, eight programs with two bugs
in two stages.  Graded in one grade-all batch: each gets the exact score expected.toml gives it, loses
points only in the problems listed (the bugs' own, a fair instructor's), its other appearances of a bug
say "Not charged" where listed, each charged problem's feedback says what to fix (`phrase`), and the
bundle's self-check (check.py, the student's own functions throughout) fails exactly the problems
recorded, every one it fails that the grade does not charge saying why ("fix that first") unless the
corpus records it as a known gap (`selfcheck_gap`).  Stage 5 (optional, graded on its own): two
strategies, their exact points.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.corpus import failed_feedback, grade_class, graded_exactly

from autograder import toml as tomllib  # the one TOML shim
from autograder.assignment import load_assignment
from autograder.authoring.edits import apply_edits

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus" / "honest6"
PROGRAMS = tomllib.loads((CORPUS / "expected.toml").read_text(encoding="utf-8"))["program"]
STAGE_OF = {p.number: p.stage for p in load_assignment("yahtzee").problems}


def _id(program: dict) -> str:
    return program["file"].rsplit(".", 1)[0] if "file" in program else program["name"]


def _suffix(program: dict) -> str:
    return Path(program["file"]).suffix if "file" in program else ".py"


def _text(program: dict) -> str:
    if "file" in program:
        return (CORPUS / program["file"]).read_text(encoding="utf-8")
    return apply_edits((CORPUS / program["base"]).read_text(encoding="utf-8"), program["edits"], program["base"])


@pytest.fixture(scope="module")
def rows(tmp_path_factory) -> dict[str, object]:
    return grade_class(tmp_path_factory.mktemp("honest6"), "yahtzee",
                       {_id(p): ("yahtzee" + _suffix(p), _text(p)) for p in PROGRAMS})


@pytest.fixture(scope="module")
def selfcheck(tmp_path_factory) -> dict[str, dict]:
    """Each .py program's check.py --json (the bundle of stage 4, as a student gets it)."""
    from autograder.authoring.release import build_release

    out, _ = build_release(tmp_path_factory.mktemp("bundle") / "release", stage=4)
    home = tmp_path_factory.mktemp("honest6-selfcheck")
    found = {}
    for program in PROGRAMS:
        if _suffix(program) != ".py":
            continue
        path = home / _id(program) / "yahtzee.py"
        path.parent.mkdir()
        path.write_text(_text(program), encoding="utf-8")
        run = [sys.executable, str(out / "yahtzee" / "check.py"), str(path)]
        found[_id(program)] = {
            "json": json.loads(subprocess.run(run + ["--json"], capture_output=True, text=True, timeout=600).stdout),
            "text": subprocess.run(run, capture_output=True, text=True, timeout=600).stdout}
    return found


def test_the_corpus_is_listed_whole():
    files = {p.name for p in CORPUS.iterdir() if p.suffix in (".py", ".ipynb")}
    assert files == {p["file"] for p in PROGRAMS if "file" in p} | {p["base"] for p in PROGRAMS if "base" in p}
    assert len({_id(p) for p in PROGRAMS}) == len(PROGRAMS) >= 16
    assert sum(len(p.get("stages", ())) == 2 for p in PROGRAMS) >= 4          # two bugs in two stages
    assert sum(_suffix(p) == ".ipynb" for p in PROGRAMS) >= 3
    assert not [_id(p) for p in PROGRAMS if p.get("selfcheck_gap")]     # pass 25: none left (global card, newline)
    for program in PROGRAMS:
        assert {"why", "problems", "predicted_score", "score", "not_charged"} <= set(program), _id(program)
        stages = program.get("stages") or ([program["stage"]] if "stage" in program else [])
        predicted = program.get("predicted_problems", program["problems"])     # (a fair instructor's)
        assert sorted({STAGE_OF[n] for n in predicted}) == sorted(stages), _id(program)
        assert set(program["problems"]) <= set(predicted), _id(program)       # the kit never charges more
        assert set(program.get("phrase", {})) == {str(n) for n in program["problems"]}, _id(program)


@pytest.mark.parametrize("program", PROGRAMS, ids=_id)
def test_struggling_program(program, rows):
    row = rows[_id(program)]
    _, summary = graded_exactly(row, _id(program), program["score"], program["problems"])
    for number, words in program.get("phrase", {}).items():
        said = failed_feedback(row, [int(number)])
        assert words.lower() in said.lower(), f"{summary}: P{number}'s feedback never says {words!r}"
        assert "Traceback" not in said and "autograder/" not in said, f"{summary}: grader internals shown"
    excused = sorted({t["problem"] for t in row.tests if t["output"].startswith("Not charged")})
    assert excused == sorted(program["not_charged"]), f"{summary}: not charged in {excused}"


@pytest.mark.parametrize("program", [p for p in PROGRAMS if _suffix(p) == ".py"], ids=_id)
def test_selfcheck_agrees_or_says_why(program, rows, selfcheck):
    """check.py's failing problems: exactly those recorded; one the grade does not charge carries the
    note naming the failing problem it calls, unless it is a recorded gap of the kit (`selfcheck_gap`)."""
    found = selfcheck[_id(program)]
    failed = sorted(int(n) for n, status in found["json"]["problems"].items() if status == "failed")
    assert failed == sorted(program["selfcheck_failed"]), f"{_id(program)}: check.py failed {failed}"
    gaps = set(program.get("selfcheck_gap", ()))
    lines = found["text"].splitlines()
    for number in sorted(set(failed) - set(program["problems"]) - gaps):
        line = next(i for i, text in enumerate(lines) if text.strip().startswith(f"Problem {number} "))
        assert "which fail" in lines[line + 1] and "fix th" in lines[line + 1], \
            f"{_id(program)}: check.py fails P{number} silently:\n{lines[line]}\n{lines[line + 1]}"


STAGE5 = [p for p in PROGRAMS if "stage5" in p]


def test_stage5_strategies(tmp_path):
    """The optional stage: a beginner's strategy (keeps the most common face, a straight's run) and a
    legal but poor one (never re-rolls): their exact points of 20."""
    programs = STAGE5
    rows = grade_class(tmp_path, "yahtzee", {_id(p): ("yahtzee.py", _text(p)) for p in programs}, stage=5)
    for program in programs:
        assert rows[_id(program)].score == pytest.approx(program["stage5"]["score"], abs=1e-3), _id(program)
