"""Pass 24 (`leftovers24`): what pass 23 left (the courses' and instructors' edges).

Pytzee's given `score_slot` built its table of scorers up front: a program without `score_chance`
lost P2-P8 (41 of 90).  The corpus tests/corpus/leftovers24/ (predictions committed before the
change) is graded by a real `grade-all`, each program at its exact score and losing points only
where its bug lives.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.corpus import chained_text, failed_feedback, grade_corpus, graded_exactly, program_id

from autograder import toml as tomllib

CORPUS = Path(__file__).resolve().parent / "corpus" / "leftovers24"
PROGRAMS = tomllib.loads((CORPUS / "expected.toml").read_text(encoding="utf-8"))["program"]


@pytest.fixture(scope="module")
def rows(tmp_path_factory) -> dict:
    return grade_corpus(tmp_path_factory, CORPUS, PROGRAMS)


def test_the_corpus_is_well_formed():
    assert len({program_id(p) for p in PROGRAMS}) == len(PROGRAMS) >= 2
    for program in PROGRAMS:
        assert {"name", "base", "edits", "why", "problems", "score", "assignment"} <= set(program), program
        base = chained_text(CORPUS, PROGRAMS, {**program, "edits": []})
        assert chained_text(CORPUS, PROGRAMS, program) != base, program["name"]     # every edit fits


@pytest.mark.parametrize("program", PROGRAMS, ids=program_id)
def test_corpus_program(program, rows):
    row = rows[program_id(program)]
    _, summary = graded_exactly(row, program["name"], program["score"], program["problems"])
    said = failed_feedback(row, program["problems"])
    assert program["phrase"].lower() in said.lower(), summary
