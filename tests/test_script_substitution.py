"""A bug costs points once also where a check runs the WHOLE FILE as a script (pass 18).

A script request that substitutes (Program.script carries the check's substitution, and a
within-stage retry's `also`) runs the file's top-level statements in order as __main__, with the
reference's functions put in where its main part starts (harness targets.script_parts): the first
top-level `if __name__ == "__main__":`, else the first top-level statement that calls a function or
class the file defines.  Real sandboxes: a Program given a reference, as a student's is.  Then the
corpus tests/corpus/scriptonce/ (one-bug edits of the pytzee and swe3006 references whose bug
lives before a script check, files shaped around the guard), graded with exact scores.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from helpers.corpus import chained_text, grade_corpus, graded_exactly, program_id

from autograder import toml as tomllib  # the one TOML shim
from autograder.assignment import load_assignment
from autograder.engine.program import Program

REFERENCE = textwrap.dedent("""
    def score(dice):
        return sum(dice)

    def bonus(total):
        return 35 if total >= 63 else 0

    def play(dice):
        total = score(dice)
        return total + bonus(total)
""")
SUB = {"names": ["score", "bonus"], "keep": ["play"]}      # the stage of play graded: score, bonus the reference's


def _student(main: str, head: str = "") -> str:
    return head + textwrap.dedent("""
        def score(dice):
            return -1                     # the student's bug (another stage's problem)

        def bonus(total):
            return 0

        def play(dice):
            total = score(dice)
            return total + bonus(total)
    """) + textwrap.dedent(main)


def _run(source: str, sub: dict | None = SUB, stdin: list[str] | None = None):
    program = Program(source, "student.py", reference=REFERENCE)
    try:
        program.substitute = sub
        return program.script(stdin=stdin)
    finally:
        program.close()


GUARDED = """
    if __name__ == "__main__":
        print("total", play([6, 6, 6, 6, 6]))
"""


def test_a_guarded_script_runs_the_reference_functions_of_other_stages():
    assert _run(_student(GUARDED)).stdout == "total 30\n"
    assert _run(_student(GUARDED), sub=None).stdout == "total -1\n"      # no substitution: the file as it is


def test_without_a_guard_the_main_part_starts_at_the_first_call_of_the_files_functions():
    head = 'import random\nWELCOME = "Yahtzee"\nprint("welcome")\nrandom.seed(1)\n'   # no call of the file's
    source = _student('\nprint("total", play([6, 6, 6, 6, 6]))\n', head)
    assert _run(source).stdout == "welcome\ntotal 30\n"
    # an assignment that calls one of the file's functions starts it too
    assert _run(_student('\nresult = play([6, 6, 6, 6, 6])\nprint(result)\n')).stdout == "30\n"
    # a file that never calls its own functions at top level: nothing to put in, it runs as it is
    assert _run(_student('\nprint("nothing here")\n')).stdout == "nothing here\n"


def test_a_main_block_that_redefines_a_function_runs_its_own_definition():
    """The block's definition comes after the substitution, as it comes after the module's in
    `python FILE`: the game as a script runs it, so its bug is the script's (P14 in the corpus)."""
    main = """
        if __name__ == "__main__":
            def bonus(total):
                return 1000
            print("total", play([6, 6, 6, 6, 6]))
    """
    assert _run(_student(main)).stdout == "total 1030\n"


def test_code_after_the_guard_and_a_statement_before_it():
    main = """
        print("debug", score([1, 1]))          # before the guard: the student's own score
        if __name__ == "__main__":
            print("total", play([6, 6, 6, 6, 6]))
        print("after", score([1, 1]))           # after it: in the main part, substituted
    """
    assert _run(_student(main)).stdout == "debug -1\ntotal 30\nafter 2\n"


def test_line_numbers_future_imports_and_the_docstring_are_the_files():
    head = '"""The module\'s docstring."""\nfrom __future__ import annotations\n'
    main = """
        def later(x: undefined_name) -> None:   # an annotation never evaluated (the future flag)
            return None

        if __name__ == "__main__":
            print(__doc__, play([6, 6, 6, 6, 6]))
            raise ValueError("stop")
    """
    source = _student(main, head)
    outcome = _run(source)
    assert outcome.stdout == "The module's docstring. 30\n"
    assert outcome.status == "exception"
    line = source.splitlines().index('    raise ValueError("stop")') + 1
    assert outcome.error["line"] == line, outcome.error


def test_a_script_without_substitution_answers_exactly_as_before():
    """The whole code object runs (no split) when nothing substitutes: every field of the outcome
    but the timings equal a run with no reference at all."""
    source = _student(GUARDED)
    plain = Program(source, "student.py")
    try:
        before = plain.script()
    finally:
        plain.close()
    after = _run(source, sub=None)
    for field in ("status", "stdout", "value", "error", "events", "inputs_asked"):
        assert getattr(after, field) == getattr(before, field), field


def test_a_stub_is_still_charged_where_it_lives():
    """A substitution puts in the reference's functions of OTHER stages only: the stage's own stub
    (play, kept) runs as the student wrote it, so a script cannot buy its points."""
    stub = textwrap.dedent("""
        def score(dice):
            return sum(dice)

        def bonus(total):
            return 35 if total >= 63 else 0

        def play(dice):
            raise NotImplementedError("play")

        if __name__ == "__main__":
            print("total", play([6, 6, 6, 6, 6]))
    """)
    outcome = _run(stub)
    assert outcome.status == "exception" and outcome.error["type"] == "NotImplementedError"


# -- the corpus -------------------------------------------------------------------------------------
CORPUS = Path(__file__).resolve().parent / "corpus" / "scriptonce"
PROGRAMS = tomllib.loads((CORPUS / "expected.toml").read_text(encoding="utf-8"))["program"]


def _text(program: dict) -> str:
    return chained_text(CORPUS, PROGRAMS, program)


@pytest.fixture(scope="module")
def rows(tmp_path_factory) -> dict:
    return grade_corpus(tmp_path_factory, CORPUS, PROGRAMS)


@pytest.mark.parametrize("program", PROGRAMS, ids=program_id)
def test_script_corpus_program(program, rows):
    row = rows[program_id(program)]
    lost, summary = graded_exactly(row, program["name"], program["score"], program["problems"])
    problems = {p.number: p for p in load_assignment(program["assignment"]).problems}
    assert {problems[p].stage for p in lost} <= set(program.get("stages", [program.get("stage")])), summary
    if "phrase" in program:
        said = "\n".join(t["output"] for t in row.tests if t["problem"] in program["problems"]
                         and t["score"] < t["max_score"])
        assert program["phrase"].lower() in said.lower(), summary


def test_a_hostile_head_cannot_make_the_substitution_raise_in_the_grader():
    """Code before the guard that breaks builtins the substitution reads: the student's own run
    fails (or runs on), reported as its outcome; nothing reaches the grader but that outcome."""
    head = textwrap.dedent("""
        import builtins

        def _no(*args):
            raise RuntimeError("no callable for you")

        builtins.callable = _no
        builtins.exec = _no
    """)
    outcome = _run(_student(GUARDED, head))
    # substitute's callable() is the student's now: the run stops there, as the student's exception
    assert (outcome.status, outcome.stdout, outcome.error["type"]) == ("exception", "", "RuntimeError")
    assert outcome.error["message"] == "no callable for you"
