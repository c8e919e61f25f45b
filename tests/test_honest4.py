"""Honest students' programs that are not the grader authors' (tests/corpus/honest4/; Yahtzee, and pytzee/), graded in one
grade-all batch per course: each gets the exact score tests/corpus/honest4/expected.toml gives it, a correct one
loses nothing, and a one-bug one loses points only in the problems listed there (its own problem;
`kit_problems` where the kit disagrees by design: none since pass 17 charges a bug once within its
stage, engine/instage.py), and the feedback of its failed checks says what went wrong (`phrase`).

Also the notebook loader's rule for top-level state (`NAME = call(...)`), which one of them needs.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.corpus import failed_feedback, grade_class, graded_exactly

from autograder import toml as tomllib  # the one TOML shim
from autograder.assignment import load_assignment
from autograder.authoring.edits import apply_edits
from autograder.engine.submission import notebook_source

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus" / "honest4"
PROGRAMS = tomllib.loads((CORPUS / "expected.toml").read_text(encoding="utf-8"))["program"]
COURSES = sorted({p.get("assignment", "yahtzee") for p in PROGRAMS})
STAGE_OF = {course: {p.number: p.stage for p in load_assignment(course).problems} for course in COURSES}


def _id(program: dict) -> str:
    return _name(program).replace("/", "-")


def _name(program: dict) -> str:
    """A program's file name without its suffix: its `file`, or the `name` of one written as edits."""
    return program["file"].rsplit(".", 1)[0] if "file" in program else program["name"]


def _text(program: dict) -> bytes:
    """The program as the student hands it in: its file's bytes, or its `base` with its `edits`."""
    if "file" in program:
        return (CORPUS / program["file"]).read_bytes()
    base = (CORPUS / program["base"]).read_bytes().decode("utf-8")
    return apply_edits(base, program["edits"], program["base"]).encode("utf-8")


def _course(program: dict) -> str:
    return program.get("assignment", "yahtzee")


@pytest.fixture(scope="module")
def rows(tmp_path_factory) -> dict[str, object]:
    """submission id -> gradebook Row, the corpus of each course graded in one grade-all."""
    found = {}
    for course in COURSES:
        stem = Path(load_assignment(course).student_file).stem
        found.update(grade_class(tmp_path_factory.mktemp(f"honest4-{course}"), course, {
            _id(p): (stem + (Path(p["file"]).suffix if "file" in p else ".py"), _text(p))
            for p in PROGRAMS if _course(p) == course}))
    return found


def test_the_corpus_is_listed_whole():
    files = {str(p.relative_to(CORPUS)) for p in CORPUS.rglob("*") if p.suffix in (".py", ".ipynb")}
    assert files == {p["file"] for p in PROGRAMS if "file" in p}
    assert {p["base"] for p in PROGRAMS if "base" in p} <= files       # an edited program's base is graded too
    assert len({_id(p) for p in PROGRAMS}) == len(PROGRAMS) >= 20
    assert sum(not p["problems"] for p in PROGRAMS) >= 5
    for program in PROGRAMS:
        assert {"why", "problems", "score"} <= set(program), _name(program)
        assert ("file" in program) != ({"name", "base", "edits"} <= set(program)), _name(program)
        _text(program)                     # every edit fits its base (EditError otherwise)
        if program["problems"]:            # one bug: one problem of one stage, and a phrase to say
            assert len(program["problems"]) == 1 and "phrase" in program, _name(program)
            assert STAGE_OF[_course(program)][program["problems"][0]] == program["stage"], _name(program)


@pytest.mark.parametrize("program", PROGRAMS, ids=_id)
def test_honest_program(program, rows):
    row = rows[_id(program)]
    charged = program.get("kit_problems", program["problems"])
    lost, summary = graded_exactly(row, _id(program), program["score"], charged)
    if not program["problems"]:
        return
    assert {STAGE_OF[_course(program)][p] for p in lost} == {program["stage"]}, f"{summary}: charged outside its stage"
    said = failed_feedback(row, program["problems"][:1])
    assert program["phrase"].lower() in said.lower(), f"{summary}: the feedback never says {program['phrase']!r}"


# --- Notebooks: top-level state -------------------------------------------------------------------

def _notebook(*cells: str) -> str:
    import json
    return json.dumps({"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "source": c} for c in cells],
                       "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def test_notebook_keeps_objects_of_its_own_classes():
    """`PROMPTER = Prompter()` builds an object whose methods ask for input: constructing it asks
    nothing, so it is kept (after the classes it needs, guarded as a cell is); `x = play_game()`,
    `words = open(...).read()` and an object whose __init__ asks are skipped with a note."""
    text = _notebook(
        "PROMPTER = Prompter()\nCARD = new_card()\nGAME = Greeter()\nwords = open('words.txt').read()",
        "class Prompter:\n    def keep(self):\n        return input('Keep? ')",
        "class Greeter:\n    def __init__(self):\n        self.name = input('Name? ')",
        "def new_card():\n    return {'Ones': None}",
        "def play_game():\n    return Prompter().keep()",
        "result = play_game()")
    source, notes = notebook_source(text, entry="play_game")
    namespace: dict = {}
    exec(compile(source, "<notebook>", "exec"), namespace)     # a kept statement runs after its class
    assert isinstance(namespace["PROMPTER"], namespace["Prompter"]) and namespace["CARD"] == {"Ones": None}
    assert "GAME" not in namespace and "words" not in namespace and "result" not in namespace
    assert any("`GAME = Greeter()`" in n and "ask for input" in n for n in notes), notes
    assert any("`result = play_game()`" in n and "ask for input" in n for n in notes), notes
    assert any("`words = open(" in n and "ask for input" not in n for n in notes), notes
    assert not any("PROMPTER" in n or "CARD" in n for n in notes), notes


def test_notebook_state_that_fails_leaves_its_name_undefined():
    """As a failing cell does in Jupyter: the rest of the notebook still loads."""
    text = _notebook("def broken():\n    return 1 / 0\n", "VALUE = broken()\n", "def score():\n    return 3\n")
    source, _ = notebook_source(text)
    namespace: dict = {}
    exec(compile(source, "<notebook>", "exec"), namespace)
    assert namespace["score"]() == 3 and "VALUE" not in namespace
