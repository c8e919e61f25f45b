"""Pass 19 (chargeonce19): a whole-game divergence is charged once across the games of its problem.

A finished game whose only differences from the reference's are lines of ONE kind, all differing the
same way (engine/divergence.sole_difference), carries that difference (Fail(sole=)); the problem's
first failed check with it stays charged and its later ones pass with a note
(engine/charge.excuse_same_difference).  The corpus tests/corpus/chargeonce19/ (predictions committed
before grading) is graded in one grade-all per course, each program at its exact score; the rule's
pure parts are tested on lines: two kinds, two ways, a missing line, a stub.
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
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autograder import toml as tomllib
from autograder.engine.charge import excuse_same_difference
from autograder.engine.divergence import sole_difference
from autograder.engine.grammar import Line
from autograder.engine.results import TestResult

CORPUS = Path(__file__).resolve().parent / "corpus" / "chargeonce19"
PROGRAMS = tomllib.loads((CORPUS / "expected.toml").read_text(encoding="utf-8"))["program"]


@pytest.fixture(scope="module")
def rows(tmp_path_factory) -> dict:
    return grade_corpus(tmp_path_factory, CORPUS, PROGRAMS)


def test_the_corpus_is_well_formed():
    assert_well_formed(CORPUS, PROGRAMS, at_least=9)


@pytest.mark.parametrize("program", PROGRAMS, ids=program_id)
def test_corpus_program(program, rows):
    row = rows[program_id(program)]
    summary = assert_as_predicted(row, program, names=False)
    excused = [t for t in row.tests if t["output"].startswith("Not charged: this run's only difference")]
    if program["score"] >= 96:          # one divergence charged once: the other games say where it was charged
        assert excused and all(t["status"] == "passed" for t in excused), summary
    else:                               # two bugs, nothing written, a stub: nothing excused
        assert not excused, summary


# -- the rule's parts, on lines ----------------------------------------------------------------------

def _lines(*specs) -> list[Line]:
    return [Line(kind, tuple(fields)) for kind, *fields in specs]


GAME = _lines(("order", ("Ann", "Bo")), ("round", 1, "Ones"), ("turn", "Ann"), ("scored", 3, "Ones"),
              ("turn", "Bo"), ("scored", 2, "Ones"), ("round", 2, "Twos"), ("turn", "Ann"), ("scored", 4, "Twos"))


def _with(lines: list[Line], index: int, line: Line | None) -> list[Line]:
    out = list(lines)
    if line is None:
        del out[index]
    else:
        out[index] = line
    return out


def test_sole_difference_names_one_kind_one_way():
    assert sole_difference(GAME, GAME) is None
    reordered = _with(GAME, 0, Line("order", (("Bo", "Ann"),)))
    assert sole_difference(reordered, GAME) == "order: field 1 reordered"
    assert sole_difference(_with(GAME, 0, None), GAME) == "order: missing"
    assert sole_difference(GAME, _with(GAME, 0, None)) == "order: extra"
    shifted = [Line("round", (line.fields[0] - 1, line.fields[1])) if line.kind == "round" else line for line in GAME]
    assert sole_difference(shifted, GAME) == "round: field 1 off by -1"


def test_sole_difference_is_none_for_a_second_bug_or_a_second_way():
    two_kinds = _with(_with(GAME, 0, Line("order", (("Bo", "Ann"),))), 3, Line("scored", (5, "Ones")))
    assert sole_difference(two_kinds, GAME) is None
    # the same kind, two ways: one round's number, another round's category
    two_ways = _with(_with(GAME, 1, Line("round", (0, "Ones"))), 6, Line("round", (2, "Threes")))
    assert sole_difference(two_ways, GAME) is None
    # a line of another kind in place of the order line: two kinds differ
    assert sole_difference(_with(GAME, 0, Line("turn", ("Ann",))), GAME) is None
    # silence, or a run whose expected lines are all of one kind: nothing else matched, no sole difference
    prompts = _lines(("prompt", "Keep?"), ("prompt", "Keep?"))
    assert sole_difference([], prompts) is None and sole_difference(prompts[:1], prompts) is None
    assert sole_difference([], GAME) is None
    # a game that stops early differs in every kind after it
    assert sole_difference(GAME[:4], GAME) is None
    # a player's name that sorts against a number does not make the grader raise
    assert sole_difference(_with(GAME, 0, Line("order", ((1, "Bo"),))), GAME) == \
        "order: field 1 (1, 'Bo') for ('Ann', 'Bo')"
    # a number a grammar keeps as text is a number; a program's long or non-ASCII digits are text
    as_text = [Line("round", (str(line.fields[0]), line.fields[1])) if line.kind == "round" else line for line in GAME]
    shifted_text = [Line("round", (str(int(line.fields[0]) - 1), line.fields[1])) if line.kind == "round" else line
                    for line in as_text]
    assert sole_difference(shifted_text, as_text) == "round: field 1 off by -1"
    long_digits = _with(as_text, 1, Line("round", ("9" * 5000, "Ones")))
    assert sole_difference(long_digits, as_text) == "round: field 1 '" + "9" * 5000 + "' for '1'"
    assert sole_difference(_with(as_text, 1, Line("round", ("²", "Ones"))), as_text) == "round: field 1 '²' for '1'"
    # one field, two ways: points off by 1 in one round, by 2 in another (two bugs, not one)
    assert sole_difference(_with(_with(GAME, 3, Line("scored", (4, "Ones"))), 8, Line("scored", (6, "Twos"))),
                           GAME) is None
    assert sole_difference(_with(_with(GAME, 3, Line("scored", (4, "Ones"))), 8, Line("scored", (5, "Twos"))),
                           GAME) == "scored: field 1 off by +1"


def _row(name: str, problem: int = 17, score: float = 0.0) -> TestResult:
    return TestResult(name, problem, 4, score, 2.0, "failed" if score < 2 else "passed", f"{name} differs.",
                      "visible", "a hint", 0.0, name)


class _Assignment:
    problems = [type("P", (), {"number": 17, "functions": ("play_game",), "stage": 4})()]


WRITTEN = "def play_game():\n    players = join()\n    return players\n"
STUB = "def play_game():\n    raise NotImplementedError\n"


def test_the_same_sole_difference_is_charged_once_per_problem():
    rows = [_row("P17 a"), _row("P17 b"), _row("P17 c"), _row("P17 d"), _row("P16 e", problem=16)]
    soles = {id(rows[0]): "order: missing", id(rows[1]): "order: missing", id(rows[2]): "round: field 1 off by -1",
             id(rows[3]): "order: missing", id(rows[4]): "order: missing"}
    assert excuse_same_difference(rows, soles, _Assignment, WRITTEN) == 2
    assert [r.status for r in rows] == ["failed", "passed", "failed", "passed", "failed"]
    assert rows[1].score == 2.0 and rows[1].hint == "" and '"a"' in rows[1].output
    assert rows[3].output.startswith("Not charged: this run's only difference (P17 d differs)")


def test_a_stub_or_a_check_without_a_sole_difference_is_never_excused():
    rows = [_row("P17 a"), _row("P17 b")]
    soles = {id(rows[0]): "order: missing", id(rows[1]): "order: missing"}
    assert excuse_same_difference(rows, soles, _Assignment, STUB) == 0
    assert excuse_same_difference(rows, soles, _Assignment, None) == 0
    assert excuse_same_difference(rows, {id(rows[0]): "order: missing"}, _Assignment, WRITTEN) == 0
    assert [r.status for r in rows] == ["failed", "failed"]


_KINDS = ("order", "round", "turn", "dice", "scored")
_line = st.builds(lambda kind, a, b: Line(kind, (a, b)), st.sampled_from(_KINDS), st.integers(0, 3), st.integers(0, 3))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(want=st.lists(_line, min_size=2, max_size=30), data=st.data())
def test_a_change_in_two_kinds_of_line_is_never_a_sole_difference(want, data):
    """Whatever the game: change (or drop) one line of one kind and one of another kind, and there
    is no sole difference (a second bug in another kind of line is never excused with the first)."""
    kinds = sorted({line.kind for line in want})
    if len(kinds) < 2:
        return
    first, second = data.draw(st.sampled_from(kinds)), None
    second = data.draw(st.sampled_from([k for k in kinds if k != first]))
    got = list(want)
    for kind in (first, second):
        index = data.draw(st.sampled_from([i for i, line in enumerate(got) if line is not None and line.kind == kind]))
        if data.draw(st.booleans()):
            got[index] = None                                   # dropped
        else:
            a, b = got[index].fields
            got[index] = Line(kind, (a + 4, b))                 # a value no drawn line has
    got = [line for line in got if line is not None]
    assert sole_difference(got, want) is None


@settings(max_examples=200, deadline=None)
@given(want=st.lists(_line, min_size=2, max_size=30), data=st.data())
def test_one_kind_changed_one_way_is_a_sole_difference(want, data):
    """The converse: every line of one kind with the same field shifted, the other kinds untouched
    (and present), is that kind's sole difference."""
    kinds = sorted({line.kind for line in want})
    if len(kinds) < 2:
        return
    kind = data.draw(st.sampled_from(kinds))
    got = [Line(line.kind, (line.fields[0] + 4, line.fields[1])) if line.kind == kind else line for line in want]
    assert sole_difference(got, want) == f"{kind}: field 1 off by +4"
