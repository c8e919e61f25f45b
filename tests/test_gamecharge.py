"""Pass 20 (gamecharge): one divergence charged once across a problem's whole games, where the game
checks compare aspect by aspect (yahtzee's play_game games, pytzee's whole games).

A failed game whose every aspect the checks read but one is the reference's, that one differing one
way (the course's game_sole, through engine/divergence.sole_run_difference), carries that difference
and its run (Fail(sole=, run=)); a check skipped waiting on a failed check inherits both.  The
problem's first run with the difference stays charged, all its checks; every check of a later run
passes with a note (engine/charge.excuse_same_difference).  The corpus tests/corpus/gamecharge/
(predictions committed before grading) is graded in one grade-all per course, each program at its
exact score; the rule's pure parts are tested on lines: two kinds, a run that ran out of input, a crash.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.corpus import chained_text, failed_feedback, grade_corpus, graded_exactly, program_id
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autograder import toml as tomllib
from autograder.engine.charge import excuse_same_difference
from autograder.engine.divergence import sole_run_difference
from autograder.engine.grammar import Line
from autograder.engine.results import TestResult

CORPUS = Path(__file__).resolve().parent / "corpus" / "gamecharge"
PROGRAMS = tomllib.loads((CORPUS / "expected.toml").read_text(encoding="utf-8"))["program"]
COURSES = sorted({p["assignment"] for p in PROGRAMS})
NOTE = "Not charged: this run's only difference"


def _text(program: dict) -> str:
    return chained_text(CORPUS, PROGRAMS, program)


@pytest.fixture(scope="module")
def rows(tmp_path_factory) -> dict:
    return grade_corpus(tmp_path_factory, CORPUS, PROGRAMS)


def test_the_corpus_is_well_formed():
    assert len({program_id(p) for p in PROGRAMS}) == len(PROGRAMS) >= 10
    assert {"yahtzee", "pytzee"} <= set(COURSES)
    for program in PROGRAMS:
        assert {"name", "base", "edits", "why", "problems", "score", "assignment", "excused"} <= set(program), program
        assert _text(program) != _text({**program, "edits": []}), program["name"]    # every edit fits
    assert any(p["excused"] for p in PROGRAMS) and any(not p["excused"] for p in PROGRAMS)


@pytest.mark.parametrize("program", PROGRAMS, ids=program_id)
def test_corpus_program(program, rows):
    row = rows[program_id(program)]
    _, summary = graded_exactly(row, program["name"], program["score"], program["problems"])
    said = failed_feedback(row, program["problems"], names=False)
    assert program["phrase"].lower() in said.lower(), summary
    excused = [t for t in row.tests if t["output"].startswith(NOTE)]
    if program["excused"]:      # one divergence charged once: the later games say where it was charged
        assert excused and all(t["status"] == "passed" for t in excused), summary
        charged = {t["output"].split('is the one "', 1)[1].split('"', 1)[0] for t in excused}
        failed = {t["name"].split(" ", 1)[1] for t in row.tests if t["score"] < t["max_score"]}
        assert charged <= failed, summary       # the check named in the note is charged
    else:                       # two bugs, a crash, nothing played: nothing excused
        assert not excused, summary


# -- the rule's parts, on lines ----------------------------------------------------------------------

def _lines(*specs) -> list[Line]:
    return [Line(kind, tuple(fields)) for kind, *fields in specs]


# a game as yahtzee's game_sole reads it: the dice, each round (its number, points, category), the
# card's boxes, the final score, the last line, the returned value
GAME = _lines(("dice", ""), ("round", 1, 3, "Ones"), ("round", 2, 8, "Twos"), ("round", 3, 25, "Full House"),
              ("card", "Ones", 3), ("card", "Twos", 8), ("card", "Full House", 25), ("final", 36), ("end", True),
              ("returned", 0))
PLAYED = GAME[:4]       # what a run that ran out of input got to: the dice and the rounds


def test_a_finished_run_has_the_sole_difference_of_its_aspects():
    assert sole_run_difference(GAME, GAME, "ok") is None
    zero_based = [Line("round", (line.fields[0] - 1, *line.fields[1:])) if line.kind == "round" else line
                  for line in GAME]
    assert sole_run_difference(zero_based, GAME, "ok") == "round: field 1 off by -1"
    assert sole_run_difference([line for line in GAME if line.kind != "card"], GAME, "ok") == "card: missing"
    plus_one = [Line("final", (37,)) if line.kind == "final" else line for line in GAME]
    assert sole_run_difference(plus_one, GAME, "ok") == "final: field 1 off by +1"
    # a round missing, the card and the total as the rounds played give them: the round is the difference
    short = [line for line in GAME if line.fields[:1] != (3,) and line.fields[:1] != ("Full House",)]
    short = [Line("final", (11,)) if line.kind == "final" else line for line in short]
    want = [Line("final", (11,)) if line.kind == "final" else line for line in GAME if line.fields[:1] != ("Full House",)]
    assert sole_run_difference(short, want, "ok") == "round: missing"


def test_a_run_that_ran_out_of_input_is_only_ever_a_round_too_many():
    extra = [*PLAYED, Line("round", (4, None, None))]           # it asked on for another round
    assert sole_run_difference(extra, PLAYED, "input_exhausted", unit="round") == "round: extra"
    # the same run, without naming the unit: nothing
    assert sole_run_difference(extra, PLAYED, "input_exhausted") is None
    # stopped inside a round the reference finished: its points differ, not a round more
    inside = [*PLAYED[:3], Line("round", (3, None, None))]
    assert sole_run_difference(inside, PLAYED, "input_exhausted", unit="round") is None
    # a round more, and an earlier round's points: two ways
    both = [*PLAYED[:2], Line("round", (2, 9, "Twos")), PLAYED[3], Line("round", (4, None, None))]
    assert sole_run_difference(both, PLAYED, "input_exhausted", unit="round") is None
    # a crash, a timeout, a run that printed nothing: never
    for status in ("exception", "timeout", "exit", "dice_exhausted"):
        assert sole_run_difference(extra, PLAYED, status, unit="round") is None
        assert sole_run_difference([line for line in GAME if line.kind != "card"], GAME, status) is None
    assert sole_run_difference([], GAME, "ok") is None
    assert sole_run_difference(GAME[:1], GAME, "ok") is None     # the dice alone matched: a silent game


_KINDS = ("dice", "round", "card", "final", "end", "returned")
_line = st.builds(lambda kind, a, b: Line(kind, (a, b)), st.sampled_from(_KINDS), st.integers(0, 3), st.integers(0, 3))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(want=st.lists(_line, min_size=2, max_size=30), data=st.data(),
       status=st.sampled_from(["ok", "input_exhausted", "exception", "timeout"]))
def test_two_kinds_of_difference_are_never_a_sole_difference(want, data, status):
    """Whatever the game and however it ended: change (or drop, or add) one aspect of one kind and
    one of another kind, and there is no sole difference (a second bug is never excused with the first)."""
    kinds = sorted({line.kind for line in want})
    if len(kinds) < 2:
        return
    first = data.draw(st.sampled_from(kinds))
    second = data.draw(st.sampled_from([k for k in kinds if k != first]))
    got: list = list(want)
    for kind in (first, second):
        index = data.draw(st.sampled_from([i for i, line in enumerate(got) if line is not None and line.kind == kind]))
        how = data.draw(st.sampled_from(["drop", "change", "add"]))
        if how == "drop":
            got[index] = None
        elif how == "change":
            a, b = got[index].fields
            got[index] = Line(kind, (a + 4, b))                 # a value no drawn line has
        else:
            got.insert(index + 1, Line(kind, (9, 9)))
    got = [line for line in got if line is not None]
    assert sole_run_difference(got, want, status, unit="round") is None


@settings(max_examples=200, deadline=None)
@given(want=st.lists(_line, min_size=2, max_size=30), data=st.data())
def test_a_stopped_run_has_none_but_a_unit_more(want, data):
    """A run that ran out of input: whatever differs, its sole difference is "round: extra" or none."""
    got = list(want)
    index = data.draw(st.integers(0, len(got)))
    got.insert(index, Line(data.draw(st.sampled_from(_KINDS)), (9, 9)))
    found = sole_run_difference(got, want, "input_exhausted", unit="round")
    assert found in (None, "round: extra")
    assert sole_run_difference(got, want, "exception", unit="round") is None


# -- the charge: a run's checks together -----------------------------------------------------------

def _row(name: str, status: str = "failed", problem: int = 16) -> TestResult:
    return TestResult(name, problem, 3, 0.0, 0.875, status, f"{name} differs." if status == "failed" else
                      f"Skipped: can't check until \"{name}\" passes", "visible", "a hint", 0.0, name)


class _Assignment:
    problems = [type("P", (), {"number": 16, "functions": ("play_game",), "stage": 3})()]


WRITTEN = "def play_game():\n    total = play()\n    return total\n"
STUB = "def play_game():\n    raise NotImplementedError\n"


def test_the_charged_run_keeps_all_its_checks_charged():
    rows = [_row("P16 finishes: a"), _row("P16 finishes: b"), _row("P16 dice: a", "skipped"),
            _row("P16 dice: b", "skipped"), _row("P16 finishes: c"), _row("P16 own game")]
    soles = {id(r): "round: extra" for r in rows}
    runs = {id(rows[0]): "a", id(rows[1]): "b", id(rows[2]): "a", id(rows[3]): "b", id(rows[4]): "c",
            id(rows[5]): "a (your own functions)"}
    soles[id(rows[4])] = "final: field 1 off by +1"          # another difference: its own charge
    assert excuse_same_difference(rows, soles, _Assignment, WRITTEN, runs) == 3
    assert [r.status for r in rows] == ["failed", "passed", "skipped", "passed", "failed", "passed"]
    assert rows[3].output.startswith(f"{NOTE} (a check of this run it waits on failed) is the one \"finishes: a\"")
    assert rows[1].output.startswith(f"{NOTE} (P16 finishes: b differs) is the one \"finishes: a\"")
    # without runs, each check is its own run (the courses whose one check reads one game)
    again = [_row("P16 finishes: a"), _row("P16 dice: a", "skipped")]
    assert excuse_same_difference(again, {id(r): "round: extra" for r in again}, _Assignment, WRITTEN) == 1


def test_a_stub_gets_nothing_excused_whatever_its_runs():
    rows = [_row("P16 finishes: a"), _row("P16 finishes: b")]
    soles, runs = {id(r): "round: extra" for r in rows}, {id(rows[0]): "a", id(rows[1]): "b"}
    assert excuse_same_difference(rows, soles, _Assignment, STUB, runs) == 0
    assert [r.status for r in rows] == ["failed", "failed"]
