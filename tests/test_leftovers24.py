"""Pass 24 (`leftovers24`): what pass 23 left (the courses' and instructors' edges).

Pytzee's given `score_slot` built its table of scorers up front: a program without `score_chance`
lost P2-P8 (41 of 90).  The corpus tests/corpus/leftovers24/ (predictions committed before the
change) is graded by a real `grade-all`, each program at its exact score and losing points only
where its bug lives.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.corpus import (
    assert_as_predicted,
    assert_well_formed,
    grade_corpus,
    program_id,
)

from autograder import toml as tomllib

CORPUS = Path(__file__).resolve().parent / "corpus" / "leftovers24"
PROGRAMS = tomllib.loads((CORPUS / "expected.toml").read_text(encoding="utf-8"))["program"]


@pytest.fixture(scope="module")
def rows(tmp_path_factory) -> dict:
    return grade_corpus(tmp_path_factory, CORPUS, PROGRAMS)


def test_the_corpus_is_well_formed():
    assert_well_formed(CORPUS, PROGRAMS, at_least=2)


@pytest.mark.parametrize("program", PROGRAMS, ids=program_id)
def test_corpus_program(program, rows):
    assert_as_predicted(rows[program_id(program)], program)


# -- SWE3006's and Yatzy's public whole games in check.py ----------------------------------------------

def _edited(path: Path, find: str, replace: str) -> str:
    text = path.read_text(encoding="utf-8")
    assert text.count(find) == 1, find
    return text.replace(find, replace)


SWE_LAST_ROUND = ("                if self.current_player == 1:\n                    self.current_player = 2",
                  "                if self.current_player == 1 and self.current_round < NUM_ROUNDS:\n"
                  "                    self.current_player = 2")


def test_check_py_plays_the_public_games_of_yatzy_and_swe3006(tmp_path):
    """Yatzy's and SWE3006's public [[game]] cases were not in check.py (release noted them as
    cases no check could be made of): a Yatzy game that never shuffles its players, or a SWE3006
    two-player game whose player 2 misses round 13, passed every problem there and lost points in
    the hidden grade.  The cases are now played as the course's suite plays them (its
    suites/games.py public_game: the same answers and seed), and the check says the seed and the
    first answers (it said "with the answers and dice above", and check.py shows no code)."""
    import subprocess
    import sys

    from autograder.assignment import load_assignment
    from autograder.authoring.release import build_release
    from autograder.grading.public import public_checks

    for course in ("yatzy", "swe3006"):
        _, notes = public_checks(load_assignment(course))
        assert not [note for note in notes if "games.toml [[game]]" in note], notes
    out, _ = build_release(tmp_path / "bundle", stage=4, names=["yatzy", "swe3006"])
    root = Path(__file__).resolve().parents[1] / "autograder" / "assignments"
    programs = {
        "yatzy": _edited(root / "yatzy" / "reference.py", "    random.shuffle(players)\n", "    pass\n"),
        "swe3006": _edited(root / "swe3006" / "reference.py", *SWE_LAST_ROUND),
    }
    said = {}
    for course, text in programs.items():
        student = tmp_path / course / f"{course}.py"
        student.parent.mkdir()
        student.write_text(text, encoding="utf-8")
        result = subprocess.run([sys.executable, str(out / course / "check.py"), str(student)],
                                capture_output=True, text=True, timeout=300)
        said[course] = result.stdout
    # (1/2 -> 1/3 checks pass, pass 25: the public game of chosen dice is a check too, its order shuffled by its seed)
    assert ("  Problem 17 The whole game: the shuffle, fifteen rounds, every player's turns, the results: failed "
            "(1/3 checks pass)\n") in said["yatzy"], said["yatzy"]
    assert ("    check: public scenario 'three players, seeded' (games.toml)\n"
            "      Ran: play_game() (random.seed(2026); 94 answers: ['Ann', 'Bo', 'Cy', 'start', '1 2', 'all', ...])\n"
            "      Expected these 'Order:' / 'Round' / 'Player:' / 'Dice:' / 'Scored' / 'Results:' lines: "
            "['Order: Cy, Bo, Ann', ") in said["yatzy"], said["yatzy"]
    assert [line for line in said["yatzy"].splitlines() if line.endswith(")") and ": failed (" in line] == [
        "  Problem 17 The whole game: the shuffle, fifteen rounds, every player's turns, the results: failed "
        "(1/3 checks pass)"]    # (1/2 before pass 25, as above)
    assert ("  Problem 12 Two players alternate: 26 turns, one sheet each: failed (1/2 checks pass)\n"
            ) in said["swe3006"], said["swe3006"]
    assert ("    check: public scenario 'two players alternate' (games.toml)\n"
            "      Ran: YahtzeeGame().play() (random.seed(201); 79 answers: ['2', '1', 'n', 'Aces', '1', 'n', ...])\n"
            ) in said["swe3006"], said["swe3006"]
    assert [line for line in said["swe3006"].splitlines() if ": failed (" in line] == [
        "  Problem 12 Two players alternate: 26 turns, one sheet each: failed (1/2 checks pass)"]
