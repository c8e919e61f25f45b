"""Notebooks graded by the hidden autograder, and what its loader keeps of a notebook
(engine/nbcode.py, engine/submission.py): split from tests/test_notebooks.py (pass 24)."""

from __future__ import annotations

import copy
import json
import random
import subprocess
import sys

import pytest
from helpers.notebooks import ASSIGNMENT, source_nb, write_nb

from autograder import notebooks as nbgen
from autograder.assignment import REPO_ROOT
from autograder.engine.submission import SubmissionError, load_submission, notebook_source
from autograder.grading.grade import grade

STAGES = [s.number for s in ASSIGNMENT.stages]


# ---------------------------------------------------------------------------
# Grading notebooks with the hidden autograder
# ---------------------------------------------------------------------------

GRADED_STAGES = [s for s in STAGES if ASSIGNMENT.suite_files(s)]


@pytest.mark.parametrize("stage", GRADED_STAGES)
def test_solution_notebook_and_solution_py_get_the_same_score(stage):
    as_py = grade(ASSIGNMENT.solution, ASSIGNMENT, stage=stage)
    as_nb = grade(nbgen.notebook_path(ASSIGNMENT, stage), ASSIGNMENT, stage=stage)
    assert as_py.max_score == ASSIGNMENT.stage_points(stage)
    assert as_nb.score == as_py.score == as_py.max_score
    assert [(t.name, t.status) for t in as_nb.tests] == [(t.name, t.status) for t in as_py.tests]
    assert not as_nb.error and as_nb.notes == []


def test_release_notebook_scores_zero_without_errors(tmp_path):
    for stage in GRADED_STAGES:
        path = write_nb(tmp_path / f"release{stage}.ipynb", nbgen.release_notebook(source_nb(stage)))
        report = grade(path, ASSIGNMENT, stage=stage)
        assert report.score == 0 and report.max_score == ASSIGNMENT.stage_points(stage)
        assert not report.error and report.tests
        assert {t.status for t in report.tests} <= {"failed", "skipped"}


def _broken_up(stage: int, seed: int = 5) -> dict:
    """The solution notebook as a student might leave it: markdown and test cells deleted, the code
    cells shuffled, an answer cell duplicated with a stub copy after it, a given cell duplicated."""
    nb = copy.deepcopy(source_nb(stage))
    code = [c for c in nb["cells"] if c["cell_type"] == "code" and not c["metadata"].get("nbgrader", {}).get("grade")]
    answers = [c for c in code if c["metadata"].get("nbgrader", {}).get("solution")]
    stub = copy.deepcopy(answers[0])
    stub["source"] = nbgen.stub_code(nbgen.cell_source(stub))
    code += [stub, copy.deepcopy(code[1])]
    random.Random(seed).shuffle(code)
    code.remove(stub)
    code.append(stub)                                 # the stub comes last: the written version must win
    for cell in code:
        cell["metadata"] = {}                          # metadata lost (e.g. copied into a fresh notebook)
    nb["cells"] = code
    return nb


@pytest.mark.parametrize("stage", GRADED_STAGES)
def test_shuffled_duplicated_and_deleted_cells_still_grade(tmp_path, stage):
    path = write_nb(tmp_path / "messy.ipynb", _broken_up(stage))
    report = grade(path, ASSIGNMENT, stage=stage)
    assert report.score == ASSIGNMENT.stage_points(stage), [t for t in report.tests if t.status != "passed"]
    assert any("not written yet" in note for note in report.notes)


def test_a_deleted_answer_cell_costs_only_its_problem(tmp_path):
    nb = copy.deepcopy(source_nb(1))
    nb["cells"] = [c for c in nb["cells"] if not nbgen.cell_source(c).startswith("def score_full_house")]
    report = grade(write_nb(tmp_path / "deleted.ipynb", nb), ASSIGNMENT, stage=1)
    lost = {n for n, (got, top) in report.problem_scores().items() if got < top}
    assert lost == {3, 6}              # score() dispatches to the missing function too
    assert not [t for t in report.tests if t.status == "error"]


def test_grade_cli_on_a_notebook():
    result = subprocess.run([sys.executable, "-m", "autograder", "grade",
                             str(nbgen.notebook_path(ASSIGNMENT, 1)), "--stage", "1"],
                            capture_output=True, text=True, cwd=REPO_ROOT, timeout=300)
    assert result.returncode == 0, result.stderr
    assert f"Score: {nbgen._points(ASSIGNMENT.stage_points(1))} / {nbgen._points(ASSIGNMENT.stage_points(1))}" \
        in result.stdout


# ---------------------------------------------------------------------------
# notebook_source: what the hidden grader keeps of a notebook
# ---------------------------------------------------------------------------

def nb_json(*cells, **extra) -> str:
    out = []
    for cell in cells:
        if isinstance(cell, str):
            cell = {"cell_type": "code", "metadata": {}, "source": cell, "outputs": []}
        out.append(cell)
    return json.dumps({"cells": out, "metadata": {}, "nbformat": 4, "nbformat_minor": 5, **extra})


def test_empty_and_corrupt_notebooks_get_clear_messages(tmp_path):
    with pytest.raises(SubmissionError, match="empty"):
        notebook_source("")
    with pytest.raises(SubmissionError, match=r"not valid \.ipynb JSON \(line 1, column \d+"):
        notebook_source('{"cells": [')
    with pytest.raises(SubmissionError, match="no code cells"):
        notebook_source(nb_json({"cell_type": "markdown", "metadata": {}, "source": "# hi"}))
    with pytest.raises(SubmissionError, match="defines no functions"):
        notebook_source(nb_json("x = 1", "print(x)"))
    with pytest.raises(SubmissionError, match="not a Jupyter notebook"):
        notebook_source("[1, 2]")
    corrupt = tmp_path / "yahtzee.ipynb"
    corrupt.write_text('{"cells": [{"cell_type": "code", "source": "def f(', encoding="utf-8")
    report = grade(corrupt, ASSIGNMENT, stage=1)
    assert "not valid .ipynb JSON" in report.error and report.score == 0


def test_a_notebook_run_as_a_program_plays_the_entry_it_defines():
    """Run as a program (`python FILE`, a suite's script check), a notebook without a main guard of
    its own plays the assignment's entry, a function or Class.method, as a .py file's guard does;
    imported (every call the grader makes), it runs nothing."""
    cells = ("class Game:\n    def play(self):\n        print('played', input())",
             "def play_game():\n    print('game', input())")
    for entry, ran in (("Game.play", "played x"), ("play_game", "game x")):
        source, _ = notebook_source(nb_json(*cells), entry)
        assert source.count("__main__") == 1
        script = subprocess.run([sys.executable, "-c", source], input="x\n", capture_output=True, text=True,
                                timeout=60)
        assert script.stdout.strip() == ran, script.stdout + script.stderr
        namespace = {"__name__": "submission"}
        exec(compile(source, "<submission>", "exec"), namespace)    # imported: nothing runs, nothing asked
    for entry in ("Missing.play", "missing", "Game.play().x", None):
        assert "__main__" not in notebook_source(nb_json(*cells), entry)[0], entry


def test_a_notebook_with_its_own_main_guard_runs_it_as_a_program():
    """Its own `if __name__ == "__main__":` block that plays the entry is what the notebook does as
    a program, as in a .py (pytzee's script run reads the rounds and the seed there: the grader's
    guard, a bare play_game(), lost that check for the course's own reference handed in as a
    notebook); the last one counts; one that does not play the entry is a check cell (the kit's
    notebooks have them), not kept; imported, nothing runs; `if __name__ != ...` and a guard with
    an else are not kept."""
    cells = ("class Game:\n    def play(self):\n        print('played', input())",
             "def play_game(rounds):\n    print('game', rounds, input())",
             "if __name__ == '__main__':\n    play_game(7)",
             "if __name__ == '__main__':\n    n = int(input())\n    Game().play()\n    play_game(n)",
             "if __name__ == '__main__':\n    print('a check cell', Game())")
    source, _ = notebook_source(nb_json(*cells), "play_game")
    script = subprocess.run([sys.executable, "-c", source], input="3\nx\ny\n", capture_output=True, text=True,
                            timeout=60)
    assert script.stdout.split() == ["played", "x", "game", "3", "y"], script.stdout + script.stderr
    namespace = {"__name__": "submission"}
    exec(compile(source, "<submission>", "exec"), namespace)
    for odd in ("if __name__ != '__main__':\n    play_game(1)",
                "if __name__ == '__main__':\n    play_game(1)\nelse:\n    play_game(2)"):
        source, _ = notebook_source(nb_json(cells[0], cells[1], odd), "play_game")
        assert "play_game(1)" not in source and "play_game(2)" not in source, source


def test_notebook_source_keeps_definitions_and_skips_what_would_run():
    source, notes = notebook_source(nb_json(
        "def f(x=LIMIT):\n    return x + helper()",
        "%matplotlib inline\nimport math\nLIMIT = len(range(3))",
        "def helper():\n    return 1",
        "f()\nplay_game()",
        "PLAY = False\nif PLAY:\n    play_game()",
        "if __name__ == '__main__':\n    main()",
        {"cell_type": "code", "metadata": {"nbgrader": {"grade": True, "solution": False, "grade_id": "t",
                                                          "points": 1, "locked": True}},
         "source": "assert f() == 4", "outputs": []},
        "%%time\nf()",
    ), entry="play_game")                 # the assignment's entry point asks for input (it is not defined here)
    namespace: dict = {}
    exec(source, namespace)
    assert namespace["f"]() == 4 and namespace["math"].pi and namespace["LIMIT"] == 3
    assert "assert f()" not in source and "play_game()" not in source
    assert len(notes) == 2
    assert "cell 4" in notes[0] and "would ask for input" in notes[0] and "1 more" in notes[0]
    assert "cell 8" in notes[1] and "%%time" in notes[1]


def test_a_call_of_a_function_that_asks_for_input_is_named_so():
    """Whether skipped code "would ask for input" comes from the notebook itself: its functions that
    call input(), directly or through each other; the loader knows no assignment's function names."""
    _, notes = notebook_source(nb_json("def ask():\n    return input('? ')", "def turn():\n    return ask()",
                                       "turn()", "print(1)"))
    assert "cell 3" in notes[0] and "would ask for input" in notes[0]
    assert "cell 4" in notes[1] and "only keeps definitions" in notes[1]


def test_what_a_function_calls_is_found_decorated_or_not():
    """A function's calls come from its node (one walk with the stub check), a decorated one's from
    its code; either way the statements after `;` on its one line are its own."""
    _, notes = notebook_source(nb_json("def ask():\n    return input('? ')",
                                       "@staticmethod\ndef turn(): return 1; ask()",
                                       "def plain(): return 1; ask()",
                                       "def fine():\n    return 1",
                                       "turn()", "plain()", "fine()"))
    assert "cell 5" in notes[-3] and "would ask for input" in notes[-3]
    assert "cell 6" in notes[-2] and "would ask for input" in notes[-2]
    assert "cell 7" in notes[-1] and "only keeps definitions" in notes[-1]


def test_last_written_definition_wins_over_a_later_stub():
    source, notes = notebook_source(nb_json(
        "def f():\n    return 1",
        "def f():\n    return 2",
        "def f():\n    # YOUR CODE HERE\n    raise NotImplementedError()",
    ))
    namespace: dict = {}
    exec(source, namespace)
    assert namespace["f"]() == 2
    assert any("cell 2" in n and "cell 3" in n and "not written yet" in n for n in notes)


def test_a_syntax_error_loses_only_its_block():
    source, notes = notebook_source(nb_json("def good():\n    return 1\n\ndef bad(:\n    pass\n\nX = 2"))
    namespace: dict = {}
    exec(source, namespace)
    assert namespace["good"]() == 1 and namespace["X"] == 2 and "bad" not in namespace
    assert notes == ["cell 1 has a syntax error (line 4: invalid syntax); that part of the cell was skipped"]


def test_nbformat3_notebooks_and_the_stage_of_a_kit_notebook(tmp_path):
    v3 = json.dumps({"nbformat": 3, "worksheets": [{"cells": [
        {"cell_type": "code", "input": ["def f():\n", "    return 3\n"], "outputs": []}]}]})
    source, _ = notebook_source(v3)
    assert "def f():" in source
    submission = load_submission(nbgen.notebook_path(ASSIGNMENT, 2), ASSIGNMENT.student_file)
    assert submission.kind == "ipynb" and submission.stage == 2


def test_a_cells_statements_are_cut_as_ast_cuts_them():
    """notebook_source splits a cell into lines once (_segments), not once per statement as
    ast.get_source_segment does: every node's text is the stdlib's, whatever ends its lines."""
    import ast

    from autograder.engine.nbcode import _segments

    sources = [path.read_text(encoding="utf-8") for path in sorted((REPO_ROOT / "solution").rglob("*.py"))]
    sources += ["x = 1\r\ny = (2,\r3)\n\n", "def f():\r\n    return 'é\u2028'  # \x0c\n\nf()", "a = (1,\x0c\n2)\r",
                "s = '''\u2603\r\nq\u0085x\x1c'''\nt = 1", "def g(): pass", ""]
    nodes = 0
    for source in sources:
        segment = _segments(source)
        for node in ast.walk(ast.parse(source)):
            assert segment(node) == ast.get_source_segment(source, node)
            nodes += 1
    assert nodes > 1000


def test_a_notebook_is_parsed_once_for_the_same_text_and_afresh_when_it_changes(tmp_path, monkeypatch):
    """`grade` loads its submission four times (kind, stage, course, the grade): a notebook of many
    cells near the size cap cost ~2.9 s of CPU for that before its parse was kept for its text."""
    from autograder.engine import submission as loader

    parsed = []
    real = loader.notebook_source
    monkeypatch.setattr(loader, "notebook_source", lambda text, entry=None: parsed.append(1) or real(text, entry))
    path = tmp_path / "yahtzee.ipynb"
    path.write_text(nb_json("def ones(dice):\n    return 1", metadata={"autograder": {"stage": 1}}))
    first, again = (load_submission(path, "yahtzee.py") for _ in range(2))
    assert len(parsed) == 1
    assert (again.source, again.notes, again.stage) == (first.source, first.notes, 1)
    again.notes.append("a caller's own note")               # each load gets its own list
    assert "a caller's own note" not in load_submission(path, "yahtzee.py").notes
    path.write_text(nb_json("def ones(dice):\n    return 2", metadata={"autograder": {"stage": 2}}))
    changed = load_submission(path, "yahtzee.py")
    assert len(parsed) == 2 and "return 2" in changed.source and changed.stage == 2
    path.write_text(nb_json({"cell_type": "markdown", "metadata": {}, "source": "# hi"}))
    for _ in range(2):                                      # a refusal is raised every time, the same
        with pytest.raises(SubmissionError, match="no code cells"):
            load_submission(path, "yahtzee.py")
    assert len(parsed) == 3
