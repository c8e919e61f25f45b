"""The Yahtzee grader against known-wrong solutions (autograder/assignments/yahtzee/mutants.toml).

Each mutant is the reference with find/replace edits applied here, at test time, so the
mutants never drift from the reference.  For each one the grader must give the EXACT score
written in the toml, take points only from the problems it lists, and name the bug in its
feedback (the mutant's phrase).  Hidden checks must not leak their data.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

from autograder import toml as tomllib  # the one TOML shim
from autograder.assignment import load_assignment
from autograder.authoring.edits import apply_edits
from autograder.engine import reporters
from autograder.grading.grade import grade

ROOT = Path(__file__).resolve().parent.parent
SOLUTION = ROOT / "solution" / "yahtzee.py"
MUTANTS = tomllib.loads((load_assignment("yahtzee").mutants).read_text(encoding="utf-8"))["mutant"]


def mutate(source: str, mutant: dict) -> str:
    source = apply_edits(source, mutant["edits"], f"the reference (mutant {mutant['name']})")
    assert source != SOLUTION.read_text(encoding="utf-8")
    return source


@cache
def graded(name: str, folder: str):
    mutant = next(m for m in MUTANTS if m["name"] == name)
    path = Path(folder) / f"{name}.py"
    path.write_text(mutate(SOLUTION.read_text(encoding="utf-8"), mutant), encoding="utf-8")
    return grade(path, "yahtzee")


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> str:
    return str(tmp_path_factory.mktemp("yahtzee_mutants"))


def test_enough_mutants():
    assert len(MUTANTS) >= 20
    assert len({m["name"] for m in MUTANTS}) == len(MUTANTS)
    for mutant in MUTANTS:
        assert {"name", "why", "edits", "phrase", "problems", "score"} <= set(mutant), mutant["name"]


@pytest.mark.parametrize("mutant", MUTANTS, ids=[m["name"] for m in MUTANTS])
def test_mutant(mutant, folder):
    report = graded(mutant["name"], folder)
    lost = sorted(p for p, (got, top) in report.problem_scores().items() if got < top - 1e-6)
    text = reporters.to_text(report)
    summary = f"{mutant['name']}: score {report.score:g}, lost points in problems {lost}"
    assert not [t.name for t in report.tests if t.status == "error"], summary
    assert report.max_score == pytest.approx(100)
    assert lost == sorted(mutant["problems"]), summary
    assert report.score == pytest.approx(mutant["score"], abs=1e-3), summary
    assert mutant["phrase"].lower() in text.lower(), f"{summary}; the feedback never says {mutant['phrase']!r}"


@pytest.mark.parametrize("mutant", MUTANTS, ids=[m["name"] for m in MUTANTS])
def test_hidden_feedback_has_no_data(mutant, folder):
    """Hidden checks say what they cover, never the call, the dice or the expected value."""
    report = graded(mutant["name"], folder)
    for test in report.tests:
        if test.visibility != "hidden" or test.status == "passed":
            continue
        for leak in ("Ran:", "Expected:", "Got:", "Your program printed"):
            assert leak not in test.output, (test.name, test.output)
        assert not re.search(r"\[\d", test.output), (test.name, test.output)
        assert not re.search(r"\[\d", test.name), test.name


def test_a_passed_checks_note_is_in_every_report(folder):
    """A check excused by engine/charge.py passes with a note; the plain-text report (what `grade`
    prints, grade-all's .txt feedback), the Markdown one and the feedback page show it under
    that check, not only JSON and Gradescope (three-rerolls: P12's bug, not charged in stage 4)."""
    from autograder.grading.gradebook import Row
    from autograder.grading.report import render_feedback

    report = graded("three-rerolls", folder)
    excused = [t for t in report.tests if t.status == "passed" and t.output.startswith("Not charged: stems from P12 ")]
    assert excused and {t.stage for t in excused} == {4}
    text = reporters.to_text(report).splitlines()
    for test in excused:
        at = text.index(f"    PASS {test.name}")          # listed though it passed (no --verbose)
        assert text[at + 1] == "      " + test.output.splitlines()[0]
    noted = [t for t in report.tests if t.status == "passed" and t.output]   # also the plugin's own-functions notes
    assert sum(line.startswith("    PASS ") for line in text) == len(noted) > len(excused)  # a plain pass says nothing
    markdown = reporters.to_markdown(report)
    assert all(f"### {test.name}" in markdown and test.output.splitlines()[0] in markdown for test in excused)

    row = Row(assignment="yahtzee", submission_id="three-rerolls", content_hash="", stage="all", status="graded",
              score=report.score, max_score=report.max_score, tests=report.to_dict()["tests"],
              report=report.to_dict(), feedback="", error="", wall_time=0.0, cpu_time=0.0, grader_version="",
              graded_at="", source="", times_graded=1)
    page = render_feedback(row, report)
    passing = re.findall(r'<li class="status-passed">(.*?)</li>', page, re.S)
    assert len([item for item in passing if "<pre>Not charged: stems from P12 " in item]) == len(excused)
    assert len([item for item in passing if "<pre>" in item]) == len(noted)
