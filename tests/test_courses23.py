"""Pass 23 (courses23): the four other courses walked as their users walk them.

A class of typical programs per course (correct, off by one, a crash mid-game, another prompt, a
missing function, a syntax error, a loop on bad input) found two places where one bug cost points
in two problems: Yatzy's dispatcher (P6) was tried on four of its fifteen categories, so a lost
category was charged in P17's own-functions game; CS21's bonus games (P14, P15) ran the student's
other bonus function too.  The corpus tests/corpus/courses23/ (predictions committed before
grading) is graded in one grade-all per course, each program at its exact score and losing points
only where its bug lives.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.corpus import (
    assert_as_predicted,
    assert_well_formed,
    chained_text,
    grade_corpus,
    program_id,
)

from autograder import toml as tomllib

CORPUS = Path(__file__).resolve().parent / "corpus" / "courses23"
PROGRAMS = tomllib.loads((CORPUS / "expected.toml").read_text(encoding="utf-8"))["program"]


@pytest.fixture(scope="module")
def rows(tmp_path_factory) -> dict:
    return grade_corpus(tmp_path_factory, CORPUS, PROGRAMS)


def test_the_corpus_is_well_formed():
    assert_well_formed(CORPUS, PROGRAMS, at_least=6)


@pytest.mark.parametrize("program", PROGRAMS, ids=program_id)
def test_corpus_program(program, rows):
    assert_as_predicted(rows[program_id(program)], program)


@pytest.mark.parametrize("course", ["yatzy", "cs21", "pytzee", "swe3006"])
def test_release_notes_name_each_public_case_no_check_was_made_of(course):
    """`release` notes each public scenario case that no check.py check could be made of: by its name
    (`why`, `name`, or SWE3006's `id`), so that the instructor can tell them apart (SWE3006's said
    "games.toml [[game]]" twice, and 28 such lines in all, none naming its case)."""
    from autograder.assignment import load_assignment
    from autograder.grading.public import public_checks

    _, notes = public_checks(load_assignment(course))
    assert len(set(notes)) == len(notes)
    assert not [note for note in notes if note.endswith("]]")], notes


def test_check_py_says_the_setup_a_failed_check_ran_and_the_prompt_it_wants(tmp_path):
    """A CS21 student whose chooseSlot asks 'Which slot? ' runs the bundle's check.py: the failure's
    Ran: line says what `s` was (it showed `chooseSlot(s)` with no `s` anywhere) and the hint names
    the handout's prompt (it spoke only of the slots)."""
    import subprocess
    import sys

    from autograder.authoring.release import build_release

    out, _ = build_release(tmp_path / "bundle", stage=3, names=["cs21"])
    program = next(p for p in PROGRAMS if p["name"] == "cs21/slot_prompt_reworded")
    student = tmp_path / "cs21.py"
    student.write_text(chained_text(CORPUS, PROGRAMS, program), encoding="utf-8")
    result = subprocess.run([sys.executable, str(out / "cs21" / "check.py"), str(student)],
                            capture_output=True, text=True, timeout=300)
    assert "Problem 12 chooseSlot: ask until an open slot is named: failed" in result.stdout, result.stdout
    assert ("      Ran: s = newScores(); s['Chance'] = 17; run_scripted(lambda: chooseSlot(s), "
            "answers=['Full House', 'Chance', 'sm strt'])\n") in result.stdout, result.stdout
    assert "      Hint: The prompt is exactly 'Choose a slot: '. 'Full House' is no slot" in result.stdout, result.stdout
