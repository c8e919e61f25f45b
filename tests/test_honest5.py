"""Honest students' programs that are not the grader authors' (tests/corpus/honest5/: yatzy, cs21,
swe3006, and Yahtzee as students hand it in, stage by stage), graded in one grade-all batch per course:
each gets the exact score tests/corpus/honest5/expected.toml gives it, a correct one loses nothing, a
one-bug one loses points only in its own problem (`kit_problems` where the kit disagrees by design), and
a stage-by-stage hand-in loses exactly its stubs' problems, whole, with feedback that says the function
is not written yet (not a crash trace).
"""

from __future__ import annotations

import ast
import re
import textwrap
from pathlib import Path

import pytest
from helpers.corpus import failed_feedback, grade_class, lost_by_problem

from autograder import toml as tomllib  # the one TOML shim
from autograder.assignment import load_assignment
from autograder.authoring.edits import apply_edits

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus" / "honest5"
PROGRAMS = tomllib.loads((CORPUS / "expected.toml").read_text(encoding="utf-8"))["program"]
COURSES = sorted({p.get("assignment", "yahtzee") for p in PROGRAMS})
PROBLEMS = {course: {p.number: p for p in load_assignment(course).problems} for course in COURSES}


def _name(program: dict) -> str:
    """A program's file name without its suffix: its `file`, or the `name` of one written as edits."""
    return program["file"].rsplit(".", 1)[0] if "file" in program else program["name"]


def _id(program: dict) -> str:
    return _name(program).replace("/", "-")


def _course(program: dict) -> str:
    return program.get("assignment", "yahtzee")


def _text(program: dict) -> bytes:
    """The program as the student hands it in: its file's bytes, its `base` with its `edits`, or the
    released stage `notebook` answered with the code of the corpus program `answers`."""
    if "file" in program:
        return (CORPUS / program["file"]).read_bytes()
    if "notebook" in program:
        return _answered_notebook(program).encode("utf-8")
    named = program["base"]            # a file (here, or the course's reference), or a program of the corpus
    base = (CORPUS / named).read_bytes() if named.endswith((".py", ".ipynb")) else _text(_program_named(named))
    return apply_edits(base.decode("utf-8"), program["edits"], named).encode("utf-8")


def _program_named(name: str) -> dict:
    return next(p for p in PROGRAMS if _name(p) == name)


_STUB = re.compile(r"^([ \t]*)# YOUR CODE HERE\n[ \t]*raise NotImplementedError\(.*\)\n?", re.M)
_REGION = re.compile(r"^[ \t]*# BEGIN PROBLEM (\d+)\n(.*?)^[ \t]*# END PROBLEM \1\b", re.M | re.S)


def _regions(source: str) -> dict[str, list[str]]:
    """function name -> the bodies of its BEGIN/END PROBLEM regions, in order (indentation removed)."""
    found: dict[str, list[str]] = {}
    for match in _REGION.finditer(source):
        name = re.findall(r"^[ \t]*def (\w+)\(", source[:match.start()], re.M)[-1]
        found.setdefault(name, []).append(textwrap.dedent(match.group(2)))
    return found


def _answered_notebook(program: dict) -> str:
    """The released notebook PROGRAM["notebook"] as a student fills it in: each stub of an answer
    cell replaced by the code of the same function's region in the corpus program PROGRAM["answers"]
    (the k-th stub of a function by its k-th region; `skip`: functions left as stubs), then the
    student's own cells `extra_cells` appended."""
    import json
    bodies = _regions(_text(_program_named(program["answers"])).decode("utf-8"))
    notebook = json.loads((ROOT / program["notebook"]).read_text(encoding="utf-8"))
    for cell in notebook["cells"]:
        if not cell.get("metadata", {}).get("nbgrader", {}).get("solution"):
            continue
        source, seen = "".join(cell["source"]), {}

        def fill(stub: re.Match, source=source, seen=seen) -> str:
            name = re.findall(r"^[ \t]*def (\w+)\(", source[:stub.start()], re.M)[-1]
            index = seen[name] = seen.get(name, -1) + 1
            if name in program.get("skip", ()):
                return stub.group(0)
            return textwrap.indent(bodies[name][index], stub.group(1))
        cell["source"] = _STUB.sub(fill, source)
    for extra in program.get("extra_cells", ()):
        notebook["cells"].append({"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                                  "source": extra})
    return json.dumps(notebook, indent=1)


@pytest.fixture(scope="module")
def rows(tmp_path_factory) -> dict[str, object]:
    """submission id -> gradebook Row, the corpus of each course graded in one grade-all."""
    found = {}
    for course, stage in sorted({(_course(p), _graded_stage(p)) for p in PROGRAMS}):
        stem = Path(load_assignment(course).student_file).stem
        found.update(grade_class(tmp_path_factory.mktemp(f"honest5-{course}-{stage}"), course, {
            _id(p): (stem + (".ipynb" if "notebook" in p else Path(p["file"]).suffix if "file" in p else ".py"),
                     _text(p))
            for p in PROGRAMS if _course(p) == course and _graded_stage(p) == stage}, stage=stage))
    return found


def _graded_stage(program: dict) -> str:
    """The stage grade-all grades the program at: a stage notebook's own stage, else all."""
    return str(program.get("graded_stage", "all"))


def _said(row, problem: int) -> str:
    """The feedback of PROBLEM's failed checks: names, output and hints."""
    return failed_feedback(row, (problem,))


def test_the_corpus_is_listed_whole():
    files = {str(p.relative_to(CORPUS)) for p in CORPUS.rglob("*") if p.suffix in (".py", ".ipynb")}
    assert files == {p["file"] for p in PROGRAMS if "file" in p}
    bases = {p["base"] for p in PROGRAMS if "base" in p}
    base_files = {b for b in bases if b.endswith((".py", ".ipynb"))}
    assert {b for b in base_files if not b.startswith("../")} <= files  # an edited program's base is graded too
    assert all((CORPUS / b).is_file() for b in base_files)              # (or is another corpus's program, or a reference)
    assert bases - base_files <= {_name(p) for p in PROGRAMS}          # (or a program of this corpus, by its name)
    assert len({_id(p) for p in PROGRAMS}) == len(PROGRAMS) >= 25
    assert {"yatzy", "cs21", "swe3006", "yahtzee"} <= set(COURSES)
    for program in PROGRAMS:
        assert {"why", "problems", "score"} <= set(program), _name(program)
        kinds = ["file" in program, {"name", "base", "edits"} <= set(program),
                 {"name", "notebook", "answers", "graded_stage"} <= set(program)]
        assert kinds.count(True) == 1, _name(program)
        _text(program)                     # every edit fits its base (EditError otherwise)
        if program["problems"]:            # one bug: one problem of one stage, and a phrase to say
            assert len(program["problems"]) == 1 and "phrase" in program, _name(program)
            assert PROBLEMS[_course(program)][program["problems"][0]].stage == program["stage"], _name(program)
        if "stubs" in program:             # a stage-by-stage hand-in: whole stages left as stubs
            assert not program["problems"] and "stub_phrase" in program, _name(program)


@pytest.mark.parametrize("program", PROGRAMS, ids=_id)
def test_honest_program(program, rows):
    row = rows[_id(program)]
    lost = lost_by_problem(row)
    summary = f"{_id(program)}: score {row.score:g}, lost {lost}"
    assert not row.error, summary
    assert not [t["name"] for t in row.tests if t["status"] == "error"], summary
    assert row.score == pytest.approx(program["score"], abs=1e-3), summary
    problems = PROBLEMS[_course(program)]
    if "stubs" in program:
        # every stub's problem loses all its points, and the rest nothing (`kit_problems`: by the kit's design)
        assert sorted(lost) == sorted(program.get("kit_problems", program["stubs"])), summary
        assert {n: lost[n] for n in program["stubs"]} == {
            n: pytest.approx(problems[n].points, abs=1e-3) for n in program["stubs"]}, summary
        for number in program.get("stub_phrase_in", program["stubs"]):
            for test in row.tests:      # each failed check of a stub says so, with no hint on how to fix it
                if test["problem"] == number and test["status"] == "failed":
                    said = f"{test['name']}: {test['output']}"
                    assert program["stub_phrase"] in test["output"] and "Traceback" not in said, f"{summary}: {said}"
                    assert not test.get("hint"), f"{summary}: {said} (hint {test['hint']!r})"
        return
    charged = program.get("kit_problems", program["problems"])
    assert sorted(lost) == sorted(charged), summary
    if not program["problems"]:
        return
    assert {problems[p].stage for p in lost} == {program["stage"]}, f"{summary}: charged outside its stage"
    said = _said(row, program["problems"][0])
    assert program["phrase"].lower() in said.lower(), f"{summary}: the feedback never says {program['phrase']!r}"


def test_yatzy_pure_dice_catch_a_sort_in_place():
    """The Pure check's dice of each problem are sorted neither way (a function that sorts or reverses
    its argument in place changes them) and score in the problem's category (a real answer)."""
    # (read, not imported: importing a suite module outside grading warns)
    source = (ROOT / "autograder" / "assignments" / "yatzy" / "suites" / "test_stage1_categories.py").read_text()
    PURE_DICE = next(ast.literal_eval(node.value) for node in ast.parse(source).body
                     if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "PURE_DICE")
    assert set(PURE_DICE) == {p.number for p in load_assignment("yatzy").stage_problems(1)}
    for problem, dice in PURE_DICE.items():
        assert dice not in (sorted(dice), sorted(dice, reverse=True)), problem
