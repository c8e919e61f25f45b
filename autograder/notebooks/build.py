"""A stage notebook from the reference, the table and the content; its samples and student version."""

from __future__ import annotations

import contextlib
import io
import re
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

from autograder.assignment import Assignment

from .cells import _is, cell_source, code_cell, markdown_cell, new_notebook, release_notebook
from .checks import problem_checks
from .classes import class_cells, class_names
from .common import (
    CLASS_ANSWER_TEXT,
    CLASS_GIVEN_TEXT,
    SAMPLES_DIR,
    SELFCHECK_TEXT,
    SOURCE_DIR,
    STUDENT_DIR,
    SUMMARY_TEXT,
    NotebookError,
    _points,
    answer_id,
    assignment_id,
    class_answer_id,
    load_content,
    test_id,
)
from .render import _run, check_label, checks_code, compiled, fill_markdown, render_check
from .runtime import SELFCHECK, TOOLS
from .solution import Piece, Solution, read_solution, stage_piece, strip_solution_markers


@dataclass
class StageBuild:
    stage: int
    notebook: dict
    namespace: dict                     # the reference as it stands at this stage, checks run
    checks: dict[int, str]              # problem -> check code of its test cell (without the tools)
    pieces: list[Piece]
    script_checks: dict[int, str] = field(default_factory=dict)   # what check.py and grade --public run (= checks)


# A check cell's check stops after CHECK_CPU seconds of the kernel's CPU time (SHORT_CHECK_CPU once
# selfcheck.SLOW_ALLOWED did), with a message: an endless loop no longer hangs Run All.  CPU time, so a
# busy machine (a JupyterHub, nbgrader autograde under load) never stops an honest check (the reference
# needs milliseconds); SIGPROF, so neither nbgrader's cell timeout (20 s of wall time, interrupting the
# kernel) nor a caller's SIGALRM is touched.  A cell of 21 checks that all loop: 2 x 1 + 19 x 0.25 s of CPU.
CHECK_CPU, SHORT_CHECK_CPU = 1, 0.25
NOTEBOOK_LIMITS = ("# A check stops after a few seconds of CPU time: an endless loop never hangs Run All.\n"
                   f'LIMITS = {{"timeout": {CHECK_CPU!r}, "short_timeout": {SHORT_CHECK_CPU!r}, "clock": "cpu", "cells": True}}\n')


def notebook_name(assignment: Assignment, stage: int) -> str:
    return f"{assignment.name}_stage{stage}.ipynb"


def notebook_path(assignment: Assignment, stage: int, root: Path = SOURCE_DIR) -> Path:
    return root / assignment_id(assignment, stage) / notebook_name(assignment, stage)


def _points_table(assignment: Assignment, stage: int) -> str:
    rows = ["| Problem | Title | Functions | Points |", "|--:|---|---|--:|"]
    for p in assignment.stage_problems(stage):
        functions = ", ".join(f"`{name}`" for name in p.functions)
        rows.append(f"| {p.number} | {p.title.replace('|', '/')} | {functions} | {_points(p.points)} |")
    rows.append(f"| | **Stage {stage} total** | | **{_points(assignment.stage_points(stage))}** |")
    return "\n".join(rows)


def reference_namespace(solution: Solution, name: str = "reference") -> dict:
    """The complete reference, run, with the checking tools."""
    namespace: dict = {"__name__": name}
    _run(solution.text, namespace, "the reference")
    _run(TOOLS, namespace, "tools")
    return namespace


def build_stage(assignment: Assignment, solution: Solution, content: dict, stage: int) -> StageBuild:
    stage_info = {s.number: s for s in assignment.stages}
    spec = content.get("stages", {}).get(str(stage), {})
    variants = {int(k): v for k, v in content.get("variants", {}).items()}
    where = f"stage {stage}"
    every_piece = [stage_piece(solution, f, stage, variants) for f in solution.functions if f.stage <= stage]
    pieces = [p for p in every_piece if p.function.owner is None]       # module-level functions
    classes = [class_cells(solution, name, [p for p in every_piece if p.function.owner == name])
               for name in class_names(every_piece)]
    namespace: dict = {"__name__": f"{assignment.name}_stage{stage}"}
    _run(solution.setup, namespace, where)
    for piece in pieces:
        _run(strip_solution_markers(piece.code), namespace, f"{where}: {piece.function.name}")
    for cut in classes:
        for code in cut.codes:
            _run(strip_solution_markers(code), namespace, f"{where}: class {cut.name}")
    _run(TOOLS, namespace, f"{where}: tools")
    given_selfcheck = (SELFCHECK.rstrip("\n") + "\n\n\n# The names the problems give: a did-you-mean never offers one for another.\n"
                       f'HANDOUT = {tuple(sorted(assignment.handout_names))!r}\n'
                       "# Problem -> the problems whose functions it calls: a bug there fails it here too.\n"
                       f"CALLS = {assignment.calls()!r}\n" + NOTEBOOK_LIMITS)
    _run(given_selfcheck, namespace, f"{where}: the public-check runtime")     # as the given cell defines it
    namespace["SETTINGS"]["print"] = False
    namespace["__sources__"] = {p.function.name: textwrap.dedent(strip_solution_markers(p.code)) for p in every_piece}

    cells: list[dict] = []
    title = stage_info[stage].title if stage in stage_info else f"Stage {stage}"
    head = [f"# {assignment.title}, stage {stage}: {title}", ""]
    head.append(fill_markdown(content.get("intro", ""), namespace, content, where).strip())
    head += ["", fill_markdown(spec.get("intro", ""), namespace, content, where).strip(), "",
             "### Points in this notebook", "", _points_table(assignment, stage)]
    cells.append(markdown_cell("\n".join(head), f"s{stage}-intro"))

    if solution.setup:               # (a reference with no imports or constants has none)
        cells.append(markdown_cell(fill_markdown(content.get("setup_text", "## The rules as constants"),
                                                 namespace, content, where), f"s{stage}-setup-md"))
        cells.append(code_cell(solution.setup, "given_setup", locked=True))
    cells.append(markdown_cell(SELFCHECK_TEXT, f"s{stage}-selfcheck-md"))
    cells.append(code_cell(given_selfcheck, "given_selfcheck", locked=True))
    toolkit = [p for p in pieces if p.function.stage == 0]
    if toolkit:
        cells.append(markdown_cell(fill_markdown(content.get("toolkit_text", "## Given functions"),
                                                 namespace, content, where), f"s{stage}-toolkit-md"))
        cells.append(code_cell("\n\n\n".join(p.code.rstrip("\n") for p in toolkit), "given_toolkit", locked=True))
    for earlier in range(1, stage):
        given = [p for p in pieces if p.function.stage == earlier and not p.answers]
        if not given:
            continue
        earlier_title = stage_info[earlier].title if earlier in stage_info else ""
        text = content.get("earlier_text", "## Stage {stage}: {title} (given)").format(
            stage=earlier, title=earlier_title)
        cells.append(markdown_cell(fill_markdown(text, namespace, content, where), f"s{stage}-earlier{earlier}-md"))
        cells.append(code_cell("\n\n\n".join(p.code.rstrip("\n") for p in given), f"given_stage{earlier}",
                               locked=True))

    for cut in classes:                  # a class's given methods, locked (classes.py)
        if cut.given is not None:
            default = CLASS_GIVEN_TEXT if cut.answer is not None else "## The class {name} (given)"
            text = content.get("class_given_text", default).format(name=cut.name, base=cut.base)
            cells.append(markdown_cell(fill_markdown(text, namespace, content, where), f"s{stage}-given-{cut.name}-md"))
            cells.append(code_cell(cut.given, f"given_{cut.base}", locked=True))

    checks: dict[int, str] = {}
    script_checks: dict[int, str] = {}
    this_stage = [p for p in every_piece if p.function.stage == stage or p.answers]
    method_answers = {n for p in this_stage if p.function.owner is not None for n in p.answers}

    def lesson_cell(problem) -> dict:
        pspec = content.get("problems", {}).get(str(problem.number), {})
        lesson = [f"## Problem {problem.number}: {problem.title} ({_points(problem.points)} points)", "",
                  fill_markdown(pspec.get("lesson", ""), namespace, content,
                                f"{where}: problem {problem.number}").strip()]
        return markdown_cell("\n".join(lesson), f"s{stage}-p{problem.number:02d}-md")

    # A class's methods are answered in one cell: every lesson first, then the class, then the checks.
    writing = [cut for cut in classes if cut.answer is not None]
    if writing:
        cells += [lesson_cell(p) for p in assignment.stage_problems(stage) if p.number in method_answers]
        for cut in writing:
            text = content.get("class_answer_text", CLASS_ANSWER_TEXT).format(name=cut.name, base=cut.base)
            cells.append(markdown_cell(fill_markdown(text, namespace, content, where), f"s{stage}-answer-{cut.name}-md"))
            cells.append(code_cell(cut.answer, class_answer_id(cut.name), solution=True))
    placed: set[str] = set()
    for problem in assignment.stage_problems(stage):
        answer_pieces = [p for p in this_stage if p.answers and p.answers[0] == problem.number
                         and p.function.owner is None]
        # a problem living only inside other problems' regions of this stage (stage 5's "playing
        # well", nested in choose_keep and choose_category) gets its lesson and checks, no cell
        nested = any(problem.number in p.answers for p in this_stage)
        if not answer_pieces and not nested:
            raise NotebookError(f"{where}: problem {problem.number} has no answer region in this stage")
        first = min((p.function.start for p in answer_pieces), default=10 ** 9)
        given_here = [p for p in this_stage if not p.answers and p.function.name not in placed
                      and p.function.owner is None and p.function.stage == stage and p.function.start < first]
        if problem.number in method_answers:
            cells.append(markdown_cell(f"### Problem {problem.number}: the public checks",
                                       f"s{stage}-p{problem.number:02d}-checks-md"))
        else:
            cells.append(lesson_cell(problem))
        for piece in given_here:
            placed.add(piece.function.name)
            cells.append(code_cell(piece.code, f"given_{piece.function.name}", locked=True))
        for piece in answer_pieces:
            cells.append(code_cell(piece.code, answer_id(problem.number, piece.function.name), solution=True))
        blocks: list[tuple[str, str]] = []
        # (and the content's checks of check.py only: a file run as a script; a public whole game of a
        # later stage kept out of the notebook stays out of check.py too, whose note names it)
        scripted: list[tuple[str, str]] = []
        final = reference_namespace(solution)
        # (a check run as a script runs the reference's file: the same at every stage for what it compares)
        namespace["__file__"] = final["__file__"] = str(assignment.reference)
        found = [c for c in problem_checks(assignment, solution.text, content, problem, notebook=False)
                 if c.in_notebook or c.origin == "content"]
        if not [c for c in found if c.in_notebook]:
            raise NotebookError(f"problem {problem.number} has no public checks: give it doctests, public "
                                f"scenarios or [problems.{problem.number}] checks in the content file")
        for index, check in enumerate(found, 1):
            label = f"{where}: problem {problem.number} check {index} ({check.origin})"
            code = render_check(check, namespace, label)
            if render_check(check, final, label) != code:
                raise NotebookError(f"{label}: the reference gives other values at stage {stage} than in the "
                                    f"end; pick a check that does not depend on later stages:\n{code}")
            scripted.append((check_label(check), code))
            if check.in_notebook:
                blocks.append((check_label(check), code))
        code = checks_code(problem, blocks)
        checks[problem.number] = code
        script_checks[problem.number] = checks_code(problem, scripted)   # check.py and `grade --public` run these
        uses_tools = any(name + "(" in code for name in ("run_scripted", "lines_starting", "final_number"))
        header = [f"# Public checks for Problem {problem.number} ({_points(problem.points)} points). "
                  "Run your answer cell first, then this cell.",
                  "# They are examples: the grader runs more checks of its own on your functions.",
                  "# Each `with checks(...)` block is one check; a failing one is reported and the rest still run."]
        body = "\n".join(header) + "\n"
        if uses_tools:
            body += "\n" + TOOLS + "\n\n"
        body += code + "\n"
        cells.append(code_cell(body, test_id(problem), grade=True, locked=True, points=problem.points))
        runtime = {"__name__": "selfcheck"}
        exec(compiled(SELFCHECK, "selfcheck"), runtime)
        runtime["SETTINGS"]["print"] = False
        try:                                             # the source notebook must pass its own checks
            with contextlib.redirect_stdout(io.StringIO()):
                exec(compile(body, f"<{where}: test cell {problem.number}>", "exec"),
                     {**namespace, "PublicChecks": runtime["PublicChecks"]})
            failing = [r for r in runtime["RESULTS"].get(problem.number, []) if r[1] != "passed"]
            if failing:
                raise AssertionError(f"{failing[0][0]}: {failing[0][2]}")
        except BaseException as err:                     # noqa: BLE001 - reported, never hidden
            raise NotebookError(f"{where}: the public checks of problem {problem.number} fail on the "
                                f"reference: {type(err).__name__}: {err}") from None
    leftover = [p for p in this_stage if not p.answers and p.function.name not in placed
                and p.function.owner is None and p.function.stage == stage]
    if leftover:
        cells.append(code_cell("\n\n\n".join(p.code.rstrip("\n") for p in leftover), f"given_stage{stage}_rest",
                               locked=True))
    cells.append(markdown_cell(SUMMARY_TEXT, f"s{stage}-summary-md"))
    cells.append(code_cell("if __name__ == \"__main__\":       # in the notebook (never when graded)\n"
                           "    print(public_summary())", f"s{stage}-summary"))
    play = spec.get("play")
    if play:
        cells.append(markdown_cell(fill_markdown(spec.get("play_text", "## Play"), namespace, content, where),
                                   f"s{stage}-play-md"))
        cells.append(code_cell("PLAY = False   # set to True, then run this cell to play\n\nif PLAY:\n"
                               + textwrap.indent(textwrap.dedent(play).strip("\n"), "    ") + "\n",
                               f"s{stage}-play"))
        review = spec.get("review")          # a cell after the game, e.g. the coach's review of it
        if review:
            cells.append(markdown_cell(fill_markdown(spec.get("review_text", "## Review"), namespace, content,
                                                     where), f"s{stage}-review-md"))
            cells.append(code_cell("if PLAY:\n" + textwrap.indent(textwrap.dedent(review).strip("\n"), "    ")
                                   + "\n", f"s{stage}-review"))
    notebook = new_notebook(cells, assignment, stage)
    _check_ids(notebook, where)
    return StageBuild(stage, notebook, namespace, checks, every_piece, script_checks)


def _check_ids(notebook: dict, where: str) -> None:
    seen: set[str] = set()
    for cell in notebook["cells"]:
        for key in (cell["id"], cell["metadata"].get("nbgrader", {}).get("grade_id")):
            if key is None:
                continue
            if key in seen and key != cell["id"]:
                raise NotebookError(f"{where}: duplicate id {key}")
        seen.add(cell["id"])
        text = cell_source(cell)
        if cell["cell_type"] == "markdown" and ("BEGIN SOLUTION" in text or "END SOLUTION" in text):
            raise NotebookError(f"{where}: markdown must not say BEGIN/END SOLUTION (nbgrader would stub it)")


def build_all(assignment: Assignment) -> list[StageBuild]:
    """Every stage's build, made once per process and version of what they are made from (a
    release asks three times per course: its notebooks, its check.py, its notebooks' --check;
    ~0.5-1 s each).  The builds are shared: their readers copy what they change (release_notebook)."""
    key = (assignment, assignment.made_from_key())
    if key not in _BUILT:
        solution = read_solution(assignment.reference.read_text(encoding="utf-8"), assignment)
        content = load_content(assignment)
        if len(_BUILT) >= 8:
            _BUILT.clear()
        _BUILT[key] = [build_stage(assignment, solution, content, s.number) for s in assignment.stages]
    return list(_BUILT[key])


_BUILT: dict[tuple, list[StageBuild]] = {}


def sample_notebooks(build: StageBuild, content: dict) -> dict[str, dict]:
    """The sample submissions of BUILD's stage: {student: notebook}."""
    out = {}
    for student, spec in content.get("samples", {}).items():
        if int(spec.get("stage", 1)) != build.stage:
            continue
        if spec.get("blank"):
            out[student] = release_notebook(build.notebook)
            continue
        answers: dict[str, str | None] = {p.function.name: None for p in build.pieces
                                          if p.answers and p.function.owner is None}
        for name, code in spec.get("answers", {}).items():
            if any(p.function.name == name and p.function.owner for p in build.pieces):
                raise NotebookError(f"sample {student}: {name} is a method; a sample answers functions "
                                    "(a class's answer cell holds several methods)")
            if name not in answers:
                raise NotebookError(f"sample {student}: stage {build.stage} has no answer cell for {name}")
            answers[name] = code
        out[student] = release_notebook(build.notebook, answers)
    return out


def sample_path(student: str, assignment: Assignment, stage: int, root: Path = SAMPLES_DIR) -> Path:
    return root / student / assignment_id(assignment, stage) / notebook_name(assignment, stage)


def expected_sample_points(assignment: Assignment, content: dict, student: str) -> float:
    """The nbgrader score a sample must get: the stage's points minus its failing problems'."""
    spec = content["samples"][student]
    stage = int(spec.get("stage", 1))
    if spec.get("blank"):
        return 0.0
    failing = set(spec.get("fails", []))
    return float(sum(p.points for p in assignment.stage_problems(stage) if p.number not in failing))



STUDENT_NOTE = ("> **Your notebook.** Write each answer where it says `# YOUR CODE HERE` (the stub names its "
                "problem), then *Run All*: every check cell reports its problem as passed, failed or not "
                "started, with what was expected and a hint, and never stops the run. Start with Problem {first}.")


def student_notebook(build: StageBuild, assignment: Assignment) -> dict:
    """The self-learner's version of a stage notebook: nbgrader's release (solutions stubbed), with
    each stub naming its problem like the starter's, and a note on how to work in it."""
    nb = release_notebook(build.notebook)
    titles = {p.number: p.title for p in assignment.problems}
    owner = {p.function.name: p.answers[0] for p in build.pieces if p.answers}
    for cell in nb["cells"]:
        if not _is(cell, "solution"):
            continue
        lines, function = [], None
        for line in cell_source(cell).splitlines(keepends=True):
            match = re.match(r"\s*(?:async\s+)?def\s+(\w+)", line)
            function = match[1] if match else function
            if line.strip() == "raise NotImplementedError()" and function in owner:
                number = owner[function]
                message = f"Problem {number}: {titles.get(number, '')} ({function})"
                line = line.replace("raise NotImplementedError()", f"raise NotImplementedError({message!r})")
            lines.append(line)
        cell["source"] = lines
    first = min(p.number for p in assignment.stage_problems(build.stage))
    nb["cells"].insert(1, markdown_cell(STUDENT_NOTE.format(first=first), f"s{build.stage}-student-note"))
    nb["metadata"]["autograder"]["track"] = "student"
    return nb


def student_path(assignment: Assignment, stage: int, root: Path = STUDENT_DIR) -> Path:
    return root / notebook_name(assignment, stage)
