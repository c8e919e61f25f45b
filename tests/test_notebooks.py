"""The stage notebooks, notebook grading with the hidden autograder, and the release bundle.

The nbgrader round trip with real kernels is in tests/test_nbgrader.py; here everything runs
in-process (the notebooks' cells are executed with exec), so these tests are fast.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import os
import random
import re
import signal
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from autograder import notebooks as nbgen
from autograder.assignment import REPO_ROOT, load_assignment
from autograder.authoring import release
from autograder.engine.sandbox import Limits
from autograder.engine.submission import SubmissionError, load_submission, notebook_source
from autograder.grading.grade import grade

ASSIGNMENT = load_assignment("yahtzee")
STAGES = [s.number for s in ASSIGNMENT.stages]
CONTENT = nbgen.load_content(ASSIGNMENT)


@pytest.fixture(scope="module")
def builds():
    with contextlib.redirect_stdout(io.StringIO()):
        return {b.stage: b for b in nbgen.build_all(ASSIGNMENT)}


def source_nb(stage: int) -> dict:
    return json.loads(nbgen.notebook_path(ASSIGNMENT, stage).read_text(encoding="utf-8"))


def grade_cells(nb: dict) -> list[dict]:
    return [c for c in nb["cells"] if c.get("metadata", {}).get("nbgrader", {}).get("grade")]


class CellTimeout(BaseException):
    """The kernel interrupted at the cell timeout (nbgrader sends an interrupt, not an Exception)."""


def run_cells(nb: dict, timeout: int = 5) -> dict[str, bool]:
    """Run the code cells of NB in order in one namespace, like a kernel, each stopped after TIMEOUT
    seconds like nbgrader's Execute.timeout, with NBGRADER_EXECUTION set as nbgrader autograde sets it
    (a check cell raises only then); {grade_id: passed} of the test cells."""
    namespace: dict = {"__name__": "__main__"}
    results = {}
    saved = os.environ.get("NBGRADER_EXECUTION")
    os.environ["NBGRADER_EXECUTION"] = "autograde"

    def stop(signum, frame):
        raise CellTimeout()

    old = signal.signal(signal.SIGALRM, stop)
    try:
        for cell in nb["cells"]:
            if cell["cell_type"] != "code":
                continue
            meta = cell.get("metadata", {}).get("nbgrader", {})
            signal.alarm(timeout)
            try:
                with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                    exec(compile(nbgen.cell_source(cell), "<cell>", "exec"), namespace)
                ok = True
            except (Exception, CellTimeout):
                ok = False
            finally:
                signal.alarm(0)
            if meta.get("grade"):
                results[meta["grade_id"]] = ok
    finally:
        signal.signal(signal.SIGALRM, old)
        if saved is None:
            os.environ.pop("NBGRADER_EXECUTION", None)
        else:
            os.environ["NBGRADER_EXECUTION"] = saved
    return results


def write_nb(path: Path, nb: dict) -> Path:
    path.write_text(json.dumps(nb, indent=1), encoding="utf-8")
    return path


# ---------------------------------------------------------------------------
# The generated notebooks
# ---------------------------------------------------------------------------

def test_generated_notebooks_are_up_to_date():
    problems, written = nbgen.generate(check=True)
    assert written == []
    assert problems == [], "\n".join(problems)


def test_every_course_with_notebook_content_is_committed_side_by_side():
    """`notebooks` with no --assignment writes every course's: one nbgrader course folder, the main
    track's assignments stage1..N (the paths its docs name), every other course's <course>-stageN;
    the student track one flat folder.  Every path is distinct, and the --check above covers all."""
    specs = nbgen.courses()
    assert ASSIGNMENT.name in [spec.name for spec in specs] and len(specs) >= 3
    sources, students = set(), set()
    for spec in specs:
        for stage in spec.stages:
            source = nbgen.notebook_path(spec, stage.number)
            assert source.is_file() and nbgen.student_path(spec, stage.number).is_file(), source
            want = f"stage{stage.number}" if spec.name == ASSIGNMENT.name else f"{spec.name}-stage{stage.number}"
            assert source.parent.name == nbgen.assignment_id(spec, stage.number) == want
            sources.add(source.parent.name)
            students.add(nbgen.student_path(spec, stage.number).name)
    assert len(sources) == len(students) == sum(len(spec.stages) for spec in specs)


def test_check_names_every_drift_of_every_course(tmp_path):
    """`notebooks` writes every course's notebooks into a course folder (here a scratch one);
    `--check` then names each drift, whichever course it is in, and nothing else: a stale notebook,
    a missing one, one that is not generated any more."""
    course = tmp_path / "course"
    problems, planned = nbgen.generate(assignment=None, course=course)
    assert problems == [] and {path.parent.name for path in planned} >= {"stage1", "yatzy-stage2", "student"}
    stale = course / "student" / "swe3006_stage3.ipynb"
    stale.write_text(stale.read_text(encoding="utf-8").replace("YahtzeeGameBase", "Base"), encoding="utf-8")
    missing = course / "source" / "yatzy-stage2" / "yatzy_stage2.ipynb"
    missing.unlink()
    stray = course / "source" / "cs21-stage9" / "cs21_stage9.ipynb"
    stray.parent.mkdir()
    stray.write_text("{}", encoding="utf-8")
    problems, written = nbgen.generate(check=True, course=course)
    assert written == [] and sorted(problems) == sorted([
        f"{stale} is out of date: run `python -m autograder notebooks`",
        f"{missing} is missing: run `python -m autograder notebooks`",
        f"{stray} is not generated any more: delete it"])
    assert {path for path in planned if path.is_file()} == set(planned) - {missing}


def test_the_generator_takes_one_assignment_and_refuses_one_without_notebook_content(capsys):
    """`python -m autograder notebooks --assignment NAME` (default: every course with notebook content)."""
    assert nbgen.main(["--check", "--assignment", "pytzee"]) == 2
    assert "pytzee has no notebook content (autograder/assignments/pytzee/notebooks.toml)" in capsys.readouterr().err
    assert nbgen.main(["--check", "--assignment", "nope"]) == 2
    assert "unknown assignment 'nope'" in capsys.readouterr().err


@pytest.mark.parametrize("stage", STAGES)
def test_notebook_is_valid_nbformat_with_nbgrader_metadata(stage):
    import nbformat
    nb = nbformat.reads(nbgen.notebook_path(ASSIGNMENT, stage).read_text(encoding="utf-8"), as_version=4)
    nbformat.validate(nb)
    assert nb.metadata.kernelspec.name == "python3"
    assert nb.metadata.autograder == {**nb.metadata.autograder, "assignment": "yahtzee", "stage": stage}
    ids = [c.metadata.nbgrader.grade_id for c in nb.cells if "nbgrader" in c.metadata]
    assert len(ids) == len(set(ids)), "duplicate grade_id"


@pytest.mark.parametrize("stage", STAGES)
def test_points_and_grade_ids_come_from_the_table(stage):
    nb = source_nb(stage)
    tests = grade_cells(nb)
    problems = ASSIGNMENT.stage_problems(stage)
    assert len(tests) == len(problems)
    for cell, problem in zip(tests, problems):
        meta = cell["metadata"]["nbgrader"]
        assert meta["grade_id"].startswith(f"p{problem.number:02d}_")
        assert meta["points"] == problem.points
        assert meta["locked"] and not meta["solution"]
        assert f"Problem {problem.number} " in nbgen.cell_source(cell)
    assert sum(c["metadata"]["nbgrader"]["points"] for c in tests) == ASSIGNMENT.stage_points(stage)
    assert nbgen.test_id(ASSIGNMENT.problem(3)) == "p03_full_house"
    text = "".join(nbgen.cell_source(c) for c in nb["cells"] if c["cell_type"] == "markdown")
    for problem in problems:
        assert f"## Problem {problem.number}: {problem.title} ({nbgen._points(problem.points)} points)" in text


def _inside_same_stage_regions(number: int) -> bool:
    """PROBLEM NUMBER has no cell of its own: every region of it sits in a region of its own stage
    (stage 5's "playing well" inside choose_keep and choose_category)."""
    from autograder.authoring import build

    fences = build.scan_fences(ASSIGNMENT.solution.read_text(encoding="utf-8"))
    stage = ASSIGNMENT.problem(number).stage
    return all(any(g.begin < f.begin and g.end > f.end and ASSIGNMENT.problem(g.number).stage == stage
                   for g in fences) for f in fences if f.number == number)


@pytest.mark.parametrize("stage", STAGES)
def test_answer_cells_cover_the_stage_and_nothing_later(stage):
    nb = source_nb(stage)
    answers = {}
    for cell in nb["cells"]:
        meta = cell["metadata"].get("nbgrader", {})
        source = nbgen.cell_source(cell)
        if meta.get("solution"):
            number = int(meta["grade_id"][1:3])
            answers.setdefault(number, set()).add(re.search(r"def (\w+)", source)[1])
            assert nbgen.BEGIN_SOLUTION in source and nbgen.END_SOLUTION in source
        else:
            assert "BEGIN SOLUTION" not in source
            if cell["cell_type"] == "code" and meta:
                assert meta["locked"], f"given cell {meta['grade_id']} must be read-only"
    assert answers == {p.number: set(p.functions) for p in ASSIGNMENT.stage_problems(stage)
                       if not _inside_same_stage_regions(p.number)}
    defined = set()
    for cell in nb["cells"]:
        if cell["cell_type"] == "code" and not cell["metadata"].get("nbgrader", {}).get("grade"):
            defined |= set(re.findall(r"^def (\w+)", nbgen.cell_source(cell), re.MULTILINE))
    later = {f for p in ASSIGNMENT.problems if p.stage > stage for f in p.functions} - defined
    for problem in ASSIGNMENT.problems:
        if problem.stage > stage:
            assert not (set(problem.functions) & defined) or problem.functions[0] in defined
    assert all(f not in defined for f in later)


@pytest.mark.parametrize("stage", STAGES)
def test_play_cell_is_guarded(stage):
    cells = source_nb(stage)["cells"]
    index = next(i for i, c in enumerate(cells) if c["id"] == f"s{stage}-play")
    code = nbgen.cell_source(cells[index])
    assert cells[index]["cell_type"] == "code" and "PLAY = False" in code and "\nif PLAY:\n" in code
    assert "input(" not in code.split("if PLAY:")[0]
    for cell in cells[index + 1:]:                 # e.g. stage 4's review of the game by the coach
        assert cell["cell_type"] == "markdown" or nbgen.cell_source(cell).startswith("if PLAY:\n")


def test_nested_later_stage_regions_get_their_variant(builds):
    stage2 = {p.function.name: p for p in builds[2].pieces}
    stage3 = {p.function.name: p for p in builds[3].pieces}
    assert "is_joker" not in stage2["play_round"].code and "joker" not in stage3["play_round"].code
    assert "points = score(category, dice)" in stage3["play_round"].code
    assert "upper_bonus" not in stage3["final_score"].code
    stage4 = {p.function.name: p for p in builds[4].pieces}
    assert stage4["play_round"].answers == [19] and stage4["final_score"].answers == [20]


@pytest.mark.parametrize("stage", STAGES)
def test_public_checks_pass_on_the_source_and_fail_on_the_release(stage):
    nb = source_nb(stage)
    assert all(run_cells(nb).values())
    released = run_cells(nbgen.release_notebook(nb))
    assert released and not any(released.values())


def test_public_check_values_are_computed_from_the_reference(builds):
    """Expected values are literal in the cells, but generated: a changed reference changes them."""
    cell = next(c for c in builds[1].notebook["cells"]
                if c["metadata"].get("nbgrader", {}).get("grade_id") == "p03_full_house")
    assert ("    got = score_full_house([2, 3, 2, 3, 3])\n    assert got == 25 and type(got) is int"
            in nbgen.cell_source(cell))
    solution = nbgen.read_solution(ASSIGNMENT.solution.read_text(encoding="utf-8"), ASSIGNMENT)
    drifted = nbgen.Solution(solution.text.replace("FULL_HOUSE_POINTS = 25", "FULL_HOUSE_POINTS = 26"),
                             solution.lines, solution.setup.replace("= 25", "= 26"), solution.functions,
                             solution.table)
    with contextlib.redirect_stdout(io.StringIO()):
        build = nbgen.build_stage(ASSIGNMENT, drifted, CONTENT, 1)
    assert "assert got == 26" in build.checks[3]


def test_interactive_checks_patch_input_dice_and_capture_output(builds):
    code = builds[2].checks[12]
    assert "run_scripted(" in code
    cell = next(c for c in grade_cells(builds[2].notebook) if c["metadata"]["nbgrader"]["grade_id"].startswith("p12_"))
    source = nbgen.cell_source(cell)
    for needed in ("mock.patch.object(builtins, \"input\"", "mock.patch.object(random, \"randint\"",
                   "redirect_stdout", "redirect_stderr"):
        assert needed in source
    namespace = dict(builds[2].namespace)
    exec(nbgen.TOOLS, namespace)
    with pytest.raises(AssertionError, match="more often than this check expected"):
        namespace["run_scripted"](lambda: (input(), input()), answers=["1"])
    with pytest.raises(AssertionError, match="never asked for the answers"):
        namespace["run_scripted"](lambda: None, answers=["1"])
    value, printed = namespace["run_scripted"](lambda: namespace["roll_dice"](2), dice=[6, 1])
    assert value == [6, 1] and printed == ""
    # A generated check runs strict=False, compares, then script_used(): unread answers or dice still fail
    assert "strict=False" in code and code.count("script_used()") == code.count("run_scripted(")
    namespace["run_scripted"](lambda: print("hi"), answers=["1"], dice=[4], strict=False)
    with pytest.raises(AssertionError, match=r"^it never asked for the answers \['1'\]\.  It printed:\nhi\n$"):
        namespace["script_used"]()
    namespace["run_scripted"](lambda: None, dice=[4], strict=False)
    with pytest.raises(AssertionError, match=r"^it did not roll the dice \[4\]\.  It printed:\n$"):
        namespace["script_used"]()
    namespace["run_scripted"](lambda: input(), answers=["1"], strict=False)
    namespace["script_used"]()


def test_check_cells_never_write_stderr(builds):
    """Any stderr output zeroes an nbgrader test cell: the passing cells print to stdout only."""
    for build in builds.values():
        namespace = dict(build.namespace)
        for cell in grade_cells(build.notebook):
            err = io.StringIO()
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
                exec(nbgen.cell_source(cell), namespace)
            assert err.getvalue() == ""


def test_the_source_notebooks_do_not_pass_for_a_wrong_answer(builds):
    nb = copy.deepcopy(source_nb(1))
    for cell in nb["cells"]:
        if nbgen.cell_source(cell).startswith("def score_full_house"):
            cell["source"] = nbgen.replace_regions(nbgen.cell_source(cell), "return 25")
    results = run_cells(nb)
    assert [gid for gid, ok in results.items() if not ok] == ["p03_full_house"]


# ---------------------------------------------------------------------------
# Sample submissions (also used by the nbgrader round trip)
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("student", sorted(CONTENT["samples"]))
def test_sample_submissions_fail_exactly_their_problems(student):
    spec = CONTENT["samples"][student]
    stage = int(spec.get("stage", 1))
    nb = json.loads(nbgen.sample_path(student, ASSIGNMENT, stage).read_text(encoding="utf-8"))
    results = run_cells(nb, timeout=1)
    failing = {int(gid[1:3]) for gid, ok in results.items() if not ok}
    expected = {p.number for p in ASSIGNMENT.stage_problems(stage)} if spec.get("blank") else set(spec.get("fails", []))
    assert failing == expected
    points = sum(p.points for p in ASSIGNMENT.stage_problems(stage) if p.number not in failing)
    assert points == nbgen.expected_sample_points(ASSIGNMENT, CONTENT, student)


def test_hidden_grader_agrees_with_the_samples():
    """The hidden autograder takes points on the problems the public checks catch, and only there."""
    stage = 1
    full = {p.number: p.points for p in ASSIGNMENT.stage_problems(stage)}
    for student, spec in CONTENT["samples"].items():
        limits = Limits(wall_s=0.3) if student == "loop" else None     # each call of the endless loop is stopped
        report = grade(nbgen.sample_path(student, ASSIGNMENT, stage), ASSIGNMENT, stage=stage, limits=limits)
        assert not report.error and not [t for t in report.tests if t.status == "error"]
        scores = {n: got for n, (got, _) in report.problem_scores().items()}
        broken = set(full) if spec.get("blank") else set(spec.get("fails", [])) | set(spec.get("hidden_also", []))
        for number, points in full.items():
            if number in broken:
                assert scores[number] < points, (student, number)
            else:
                assert scores[number] == pytest.approx(points), (student, number)


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


# ---------------------------------------------------------------------------
# The leak check
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("stage", STAGES)
def test_release_notebooks_do_not_leak_and_sources_do(stage):
    nb = source_nb(stage)
    assert nbgen.find_leaks({"release": nbgen.notebook_texts(nbgen.release_notebook(nb))}, ASSIGNMENT, stage) == []
    leaks = nbgen.find_leaks({"source": nbgen.notebook_texts(nb)}, ASSIGNMENT, stage)
    assert leaks and all("solution line" in leak for leak in leaks)


def test_leak_check_finds_hidden_scenario_data():
    hidden = nbgen.hidden_fingerprints(ASSIGNMENT)
    assert "score_upper([6, 6, 6, 6, 6], 6)" in hidden         # a hidden scoring case
    assert "five of a kind in Ones" in hidden                  # a hidden check's name
    assert "score_full_house([2, 3, 2, 3, 3])" not in hidden   # public
    assert nbgen.find_leaks({"x": "print('five of a kind in Ones')"}, ASSIGNMENT, 1)
    assert nbgen.find_leaks({"x": 'got = score_upper([6, 6, 6, 6, 6], 6)'}, ASSIGNMENT, 1)
    assert nbgen.find_leaks({"x": "    return sum(dice)\n"}, ASSIGNMENT, 1)
    assert nbgen.find_leaks({"x": "    return sum(dice)\n"}, ASSIGNMENT, 2) == []   # stage 1 is given by then


# ---------------------------------------------------------------------------
# The release verb
# ---------------------------------------------------------------------------

def test_release_folder(tmp_path):
    out, notes = release.build_release(tmp_path / "bundle", stage=2, names=["yahtzee"])
    files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert files == ["README.md", "yahtzee/check.py", "yahtzee/handout-yahtzee.md",
                     "yahtzee/notebooks/yahtzee_stage1.ipynb", "yahtzee/notebooks/yahtzee_stage2.ipynb",
                     "yahtzee/yahtzee.py"]
    assert (out / "yahtzee/yahtzee.py").read_text() == ASSIGNMENT.starter.read_text()
    stage2 = json.loads((out / "yahtzee/notebooks/yahtzee_stage2.ipynb").read_text())
    assert stage2 == nbgen.release_notebook(source_nb(2))
    check = out / "yahtzee" / "check.py"
    run = subprocess.run([sys.executable, str(check), str(out / "yahtzee/yahtzee.py"), "--stage", "1"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 1 and run.stdout.count(": not started") == 6
    run = subprocess.run([sys.executable, str(check), str(ASSIGNMENT.solution)], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0 and "23 of 23 problems pass" in run.stdout      # 20 + the optional stage 5


def test_check_py_reports_a_wrong_function(tmp_path):
    out, _ = release.build_release(tmp_path / "bundle", names=["yahtzee"])
    wrong = tmp_path / "yahtzee.py"
    wrong.write_text(ASSIGNMENT.solution.read_text().replace(
        "if sorted(face_counts(dice).values()) == [2, 3]:", "if len(set(dice)) <= 2:"))
    run = subprocess.run([sys.executable, str(out / "yahtzee/check.py"), str(wrong), "--stage", "1"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 1
    assert "Problem 3 Full House: failed" in run.stdout
    assert "Ran: score_full_house([4, 4, 4, 4, 4])\n      Expected: 0\n      Got: 25" in run.stdout
    assert "with checks('from the docstring of score_full_house: five of a kind is not a full house'):" in \
        release.public_checks(ASSIGNMENT)[0][3]
    assert "Problem 1 Upper boxes: Ones to Sixes: passed" in run.stdout


def test_release_zip_and_cli(tmp_path):
    result = subprocess.run([sys.executable, "-m", "autograder", "release", str(tmp_path / "student"), "--zip"],
                            capture_output=True, text=True, cwd=REPO_ROOT, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "leak check passed" in result.stdout
    with zipfile.ZipFile(tmp_path / "student.zip") as archive:
        names = archive.namelist()
    assert "student/yahtzee/check.py" in names and "student/yahtzee/notebooks/yahtzee_stage1.ipynb" in names
    assert not any("stage2" in name for name in names)
    again = subprocess.run([sys.executable, "-m", "autograder", "release", str(tmp_path / "student"), "--zip"],
                           capture_output=True, text=True, cwd=REPO_ROOT, timeout=300)
    assert again.returncode == 1 and "already exists" in again.stderr


def test_release_fails_loudly_on_a_leak(tmp_path, monkeypatch):
    real = release.bundle_files

    def leaky(assignment, stage):
        files, notes = real(assignment, stage)
        files[f"{assignment.name}/notes.md"] = "Hint: five of a kind in Ones\n"
        return files, notes

    monkeypatch.setattr(release, "bundle_files", leaky)
    with pytest.raises(release.ReleaseError, match="(?s)LEAK.*five of a kind in Ones"):
        release.build_release(tmp_path / "bundle", names=["yahtzee"])
    assert not (tmp_path / "bundle").exists()


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
