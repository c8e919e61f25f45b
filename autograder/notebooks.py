"""Generate the nbgrader source notebooks, one per stage, from the reference and the problem table.

The reference solution (``autograder/assignments/<name>/reference.py``) stays the single source of truth: every code
cell of a notebook is cut out of it, every title and point value comes from
``assignment.toml``, and every expected value in a public check is computed by running the
reference at generation time.  Only the teaching text, a few extra public checks and the
"what goes here before stage N" variants live in the assignment's ``notebooks.toml``.

What a stage-N notebook holds (nbgrader course layout, ``notebooks/source/stageN/``):

* a title and the stage's points table (markdown);
* the given code as locked, read-only cells: the imports and constants, the toolkit
  functions, and **the reference code of every earlier stage** (each stage notebook is
  self-contained; stage N is released after the stage N-1 deadline, so one bug costs
  points once and a student never builds on a broken earlier stage);
* per problem: the lesson (markdown), one answer cell per function with the problem's
  region between ``### BEGIN SOLUTION`` / ``### END SOLUTION`` (nbgrader stubs it), and one
  autograded, locked test cell worth the problem's points (grade_id ``p03_full_house``);
* a last cell to play live, guarded by ``PLAY = False`` so that it never runs under autograde.

Fences of a later stage nested in an earlier one (PROBLEM 19 inside PROBLEM 12) are replaced by
the variant the content file gives for them, so the stage-2 ``play_round`` is complete without
the Joker rule and no line of the stage-4 region appears before stage 4.

    python -m autograder notebooks            # write notebooks/source/ and notebooks/samples/
    python -m autograder notebooks --check    # exit 1 if a generated file is out of date

The same module provides the nbgrader-equivalent stubbing (``release_notebook``), the public
checks as plain code (used by ``check.py`` in the student bundle) and the leak check.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import copy
import doctest
import hashlib
import io
import json
import re
import sys
import textwrap
import tokenize
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from autograder.assignment import REPO_ROOT, Assignment, Problem, load_assignment
from autograder.authoring.build import Fence, relative, report, scan_fences, validate

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

COURSE_DIR = REPO_ROOT / "notebooks"
SOURCE_DIR = COURSE_DIR / "source"
SAMPLES_DIR = COURSE_DIR / "samples" / "submitted"
STUDENT_DIR = COURSE_DIR / "student"         # the self-learners' track: solution-free, ready to open
GENERATE_COMMAND = "python -m autograder notebooks"

BEGIN_SOLUTION = "### BEGIN SOLUTION"
END_SOLUTION = "### END SOLUTION"
CODE_STUB = "# YOUR CODE HERE\nraise NotImplementedError()"     # nbgrader's ClearSolutions default
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


SELFCHECK = (Path(__file__).resolve().parent / "engine" / "selfcheck.py").read_text(encoding="utf-8")
SELFCHECK_TEXT = ("## How the checks run\n\nThis given cell runs the public checks below: each check cell "
                  "reports every problem as passed, failed or not started, with what was expected and a hint, "
                  "and never stops *Run All*. `python -m autograder grade FILE --public` and the bundle's "
                  "`check.py` run these same checks.")
SUMMARY_TEXT = "## Your progress\n\nEvery problem whose checks ran above, in one list."


class NotebookError(ValueError):
    """The solution, the table and the content file do not fit together."""


# ---------------------------------------------------------------------------
# The checking tools every interactive check uses (notebook test cells, check.py)
# ---------------------------------------------------------------------------

TOOLS = '''\
import builtins
import contextlib
import io
import random
import re
from unittest import mock


class ScriptEnded(BaseException):
    """The code asked for more answers or dice than the check scripted."""


def run_scripted(action, answers=(), dice=(), seed=None, strict=True):
    """Run ACTION() with input() answered from ANSWERS and every die taken from DICE.

    Returns (value, printed): what ACTION returned and all it printed, each prompt
    followed by its answer as on a terminal.  Fails when the code asks for more answers,
    or rolls more dice, than the check scripted; with STRICT also when it asks for fewer.
    With a SEED the dice are random, after random.seed(SEED).
    """
    answers = list(answers)
    dice = None if dice is None or seed is not None else list(dice)
    printed = io.StringIO()

    def fake_input(prompt=""):
        if not answers:
            raise ScriptEnded("it asked for input more often than this check expected")
        answer = answers.pop(0)
        print(f"{prompt}{answer}")
        return answer

    def fake_randint(low, high):
        if not dice:
            raise ScriptEnded("it rolled more dice than this check expected")
        return dice.pop(0)

    if dice is None:
        random.seed(seed)
    try:
        with contextlib.ExitStack() as stack:
            stack.enter_context(mock.patch.object(builtins, "input", fake_input))
            if dice is not None:
                stack.enter_context(mock.patch.object(random, "randint", fake_randint))
            stack.enter_context(contextlib.redirect_stdout(printed))
            stack.enter_context(contextlib.redirect_stderr(printed))
            value = action()
    except ScriptEnded as err:
        raise AssertionError(f"{err}.  It printed:\\n{printed.getvalue()}") from None
    if strict and answers:
        raise AssertionError(f"it never asked for the answers {answers}.  It printed:\\n{printed.getvalue()}")
    if strict and dice:
        raise AssertionError(f"it did not roll the dice {dice}.  It printed:\\n{printed.getvalue()}")
    return value, printed.getvalue()


def lines_starting(text, *prefixes):
    """The lines of TEXT that start with one of PREFIXES, stripped."""
    return [line.strip() for line in text.splitlines() if line.strip().startswith(prefixes)]


def final_number(text):
    """The last number on the last line of TEXT that mentions a score (None if there is none)."""
    for line in reversed(text.splitlines()):
        if "score" in line.lower() and re.search(r"-?\\d+", line):
            return int(re.findall(r"-?\\d+", line)[-1])
    return None
'''


# ---------------------------------------------------------------------------
# Reading the solution
# ---------------------------------------------------------------------------

@dataclass
class Function:
    name: str
    start: int                          # 0-based first line (decorators included)
    end: int                            # 0-based last line
    fences: list[Fence]
    stage: int = 0                      # 0: toolkit given before stage 1


@dataclass
class Solution:
    text: str
    lines: list[str]
    setup: str                          # imports and constants, comment banners removed
    functions: list[Function]
    table: dict[int, Problem]

    def function(self, name: str) -> Function:
        for function in self.functions:
            if function.name == name:
                return function
        raise KeyError(name)

    def regions(self, number: int) -> list[tuple[Fence, str]]:
        """(fence, own code) of every region of problem NUMBER; nested regions left out."""
        out = []
        for function in self.functions:
            for fence in function.fences:
                if fence.number == number:
                    inner = [f for f in function.fences if fence.begin < f.begin < fence.end]
                    kept = []
                    index = fence.begin + 1
                    while index < fence.end:
                        nested = next((f for f in inner if f.begin == index), None)
                        if nested is not None:
                            index = nested.end + 1
                            continue
                        kept.append(self.lines[index])
                        index += 1
                    out.append((fence, "".join(kept)))
        return out


_BANNER = re.compile(r"^\s*#\s*[-=]{5,}\s*$")


def read_solution(text: str, assignment: Assignment) -> Solution:
    errors = validate(text, assignment)
    if errors:
        raise NotebookError("\n".join(errors))
    tree = ast.parse(text)
    lines = text.splitlines(keepends=True)
    fences = scan_fences(text)
    table = {p.number: p for p in assignment.problems}
    setup_nodes = []
    functions: list[Function] = []
    # a class's methods count as functions (their regions; a course of methods: swe3006)
    nodes = [n for node in tree.body for n in (node.body if isinstance(node, ast.ClassDef) else [node])]
    for node in nodes:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            start = min([node.lineno] + [d.lineno for d in node.decorator_list]) - 1
            end = (node.end_lineno or node.lineno) - 1
            inside = [f for f in fences if start <= f.begin <= end]
            end = max([end] + [f.end for f in inside])       # a closing fence comment follows the code
            functions.append(Function(node.name, start, end, inside))
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and node not in tree.body:
            continue                                            # a class docstring
        elif isinstance(node, (ast.Import, ast.ImportFrom, ast.Assign, ast.AnnAssign)):
            if functions:
                raise NotebookError(f"line {node.lineno}: imports and constants must come before the first "
                                    "function for the notebooks to cut the file into cells")
            setup_nodes.append(node)
        elif isinstance(node, ast.If) and _is_main_guard(node):
            continue
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and node is tree.body[0]:
            continue                                            # the module docstring
        else:
            raise NotebookError(f"line {node.lineno}: top-level code the notebooks cannot place "
                                f"({type(node).__name__})")
    if not setup_nodes:
        raise NotebookError("the solution has no imports or constants before its first function")
    first, last = setup_nodes[0].lineno - 1, (setup_nodes[-1].end_lineno or setup_nodes[-1].lineno) - 1
    setup_lines = [line for line in lines[first:last + 1] if not _BANNER.match(line)]
    setup = _tidy("".join(setup_lines))
    stage = 0
    for function in functions:
        outer = [f for f in function.fences if f.depth == 0]
        if outer:
            stage = min(table[f.number].stage for f in outer)
        function.stage = stage
    return Solution(text, lines, setup, functions, table)


def _is_main_guard(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "__name__")


def _tidy(code: str) -> str:
    """Strip blank lines at both ends and squeeze runs of blank lines to one."""
    code = re.sub(r"\n\s*\n(\s*\n)+", "\n\n", code)
    return code.strip("\n") + "\n"


# ---------------------------------------------------------------------------
# A function as it stands at stage N
# ---------------------------------------------------------------------------

@dataclass
class Piece:
    """A function as a stage-N notebook shows it."""

    function: Function
    code: str                           # with ### BEGIN/END SOLUTION around this stage's regions
    answers: list[int]                  # problems whose regions are answers here (empty: given code)


def stage_piece(solution: Solution, function: Function, stage: int, variants: dict[int, str]) -> Piece:
    lines = solution.lines
    table = solution.table
    action: dict[int, str] = {}           # line index -> "drop" | "begin" | "end"
    replace: dict[int, tuple[int, str]] = {}   # begin index -> (end index, replacement text)
    answers: list[int] = []
    for fence in function.fences:
        fence_stage = table[fence.number].stage
        enclosing = [f for f in function.fences if f.begin < fence.begin and f.end > fence.end]
        if any(table[f.number].stage > stage for f in enclosing):
            continue                                            # inside a region replaced as a whole
        if fence_stage < stage:
            action[fence.begin] = action[fence.end] = "drop"
        elif fence_stage == stage:
            if any(table[f.number].stage == stage for f in enclosing):
                action[fence.begin] = action[fence.end] = "drop"
                answers.append(fence.number)                    # nested: answered in the outer cell
            else:
                action[fence.begin], action[fence.end] = "begin", "end"
                answers.append(fence.number)
        else:
            if fence.number not in variants:
                outer = enclosing[-1].number if enclosing else None
                raise NotebookError(
                    f"PROBLEM {fence.number} (stage {fence_stage}) sits inside "
                    f"{'PROBLEM ' + str(outer) if outer else function.name}, which a stage-{stage} notebook "
                    f"shows: the content file needs [variants] \"{fence.number}\" = the code that stands "
                    f"there before stage {fence_stage} (may be empty)")
            replace[fence.begin] = (fence.end, variants[fence.number])
    out: list[str] = []
    index = function.start
    while index <= function.end:
        line = lines[index]
        indent = line[: len(line) - len(line.lstrip(" \t"))]
        if index in replace:
            end, text = replace[index]
            out.extend(indent + row if row.strip() else row
                       for row in textwrap.dedent(text).splitlines(keepends=True))
            if out and not out[-1].endswith("\n"):
                out[-1] += "\n"
            index = end + 1
            continue
        kind = action.get(index)
        if kind == "begin":
            out.append(f"{indent}{BEGIN_SOLUTION}\n")
        elif kind == "end":
            out.append(f"{indent}{END_SOLUTION}\n")
        elif kind != "drop":
            out.append(line)
        index += 1
    return Piece(function, "".join(out).rstrip("\n") + "\n", sorted(set(answers), key=answers.index))


def strip_solution_markers(code: str) -> str:
    """CODE with the ### BEGIN/END SOLUTION lines removed (the solution as a student would write it)."""
    return "".join(line for line in code.splitlines(keepends=True)
                   if line.strip() not in (BEGIN_SOLUTION, END_SOLUTION))


def stub_code(code: str) -> str:
    """CODE with every solution region replaced by nbgrader's stub (ClearSolutions, exactly)."""
    new_lines = []
    in_solution = False
    for line in code.split("\n"):
        if "BEGIN SOLUTION" in line:
            if in_solution:
                raise NotebookError("nested BEGIN SOLUTION")
            in_solution = True
            indent = re.match(r"\s*", line).group(0)
            new_lines.extend(indent + stub for stub in CODE_STUB.split("\n"))
        elif "END SOLUTION" in line:
            in_solution = False
        elif not in_solution:
            new_lines.append(line)
    if in_solution:
        raise NotebookError("BEGIN SOLUTION without END SOLUTION")
    return "\n".join(new_lines)


def replace_regions(code: str, replacement: str | None) -> str:
    """CODE with each solution region replaced by REPLACEMENT (None: keep the solution), no markers."""
    if replacement is None:
        return strip_solution_markers(code)
    out = []
    in_solution = False
    for line in code.splitlines(keepends=True):
        if line.strip() == BEGIN_SOLUTION:
            in_solution = True
            indent = line[: len(line) - len(line.lstrip())]
            out.extend(indent + row if row.strip() else row
                       for row in textwrap.dedent(replacement).strip("\n").splitlines(keepends=True))
            if not out[-1].endswith("\n"):
                out[-1] += "\n"
        elif line.strip() == END_SOLUTION:
            in_solution = False
        elif not in_solution:
            out.append(line)
    return "".join(out)


# ---------------------------------------------------------------------------
# Content
# ---------------------------------------------------------------------------

def load_content(assignment: Assignment) -> dict:
    path = assignment.notebook_content
    if not path.is_file():
        raise NotebookError(f"{relative(path)} does not exist: the notebooks need their teaching text")
    return tomllib.loads(path.read_text(encoding="utf-8"))


def has_notebooks(assignment: Assignment) -> bool:
    return assignment.notebook_content.is_file()


def slug(title: str, words: int = 5) -> str:
    head = re.split(r"[:;]", title)[0]
    parts = re.findall(r"[a-z0-9]+", head.lower())
    return "_".join(parts[:words]) or "problem"


def test_id(problem: Problem) -> str:
    return f"p{problem.number:02d}_{slug(problem.title)}"


def answer_id(number: int, function: str) -> str:
    return f"p{number:02d}_answer_{function}"


def _points(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


# ---------------------------------------------------------------------------
# Public checks: doctest examples, public scenarios, and the content file's checks
# ---------------------------------------------------------------------------

@dataclass
class Check:
    """One public check as code: SETUP statements, then either an expression compared with the
    value the reference gives, an expected exception, or a scripted interactive call."""

    problem: int
    setup: list[str] = field(default_factory=list)
    expr: str = ""                      # expression checks
    raises: str = ""                    # exception name, for "must raise" checks
    call: str = ""                      # interactive: the call, run with scripted answers and dice
    answers: list[str] = field(default_factory=list)
    dice: list[int] | None = field(default_factory=list)   # None: real dice (after random.seed(seed))
    seed: int | None = None
    strict: bool = True                 # every scripted answer and die must be used
    lines: list[str] = field(default_factory=list)     # compare the printed lines with these prefixes
    after: list[str] = field(default_factory=list)     # expressions compared after the call
    value: bool = True                  # compare the call's return value
    final: bool = False                 # compare the final score printed (the last number on a score line)
    origin: str = ""
    in_notebook: bool = True            # False: a whole game filed under a later problem: not a public check of it
    hint: str = ""                      # shown with a failure (the scenario's hint)
    hint_when: object = None            # show HINT only when the student's value equals this


def _hints(case: dict) -> dict:
    return {"hint": str(case.get("hint", "")), "hint_when": case.get("hint_when")}


def _exception_name(exc_msg: str) -> str:
    return exc_msg.split(":", 1)[0].strip().rsplit(".", 1)[-1]


def _function_nodes(text: str) -> dict[str, ast.FunctionDef]:
    """Top-level functions by name, and the methods of top-level classes (a course whose
    problems are methods: swe3006) where no top-level function has the name."""
    body = ast.parse(text).body
    found = {node.name: node for node in body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    for cls in (node for node in body if isinstance(node, ast.ClassDef)):
        for node in cls.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.setdefault(node.name, node)
    return found


def doctest_checks(solution_text: str, problem: Problem) -> list[Check]:
    """The docstring examples of PROBLEM's functions as checks (statements stay statements)."""
    parser = doctest.DocTestParser()
    checks = []
    docs = {name: ast.get_docstring(node, clean=True) or "" for name, node in _function_nodes(solution_text).items()}
    for name in problem.functions:
        setup: list[str] = []
        for example in parser.get_examples(docs.get(name, "")):
            source, comment = _split_comment(example.source.strip())
            origin = f"from the docstring of {name}" + (f": {comment}" if comment else "")
            if example.exc_msg:
                checks.append(Check(problem.number, list(setup), expr=source,
                                    raises=_exception_name(example.exc_msg), origin=origin))
                setup = []
                continue
            try:
                node = ast.parse(source, mode="eval")
            except SyntaxError:
                setup.append(source)
                continue
            if not example.want.strip() and not (isinstance(node.body, ast.Call)
                                                 and isinstance(node.body.func, ast.Name)
                                                 and node.body.func.id in problem.functions):
                setup.append(source)
                continue
            checks.append(Check(problem.number, list(setup), expr=source, origin=origin))
            setup = []
    return checks


def _split_comment(source: str) -> tuple[str, str]:
    """(SOURCE without a trailing comment on its last line, the comment's text)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return source, ""
    comments = [t for t in tokens if t.type == tokenize.COMMENT]
    if not comments or comments[-1].start[0] != source.count("\n") + 1:
        return source, ""
    last = comments[-1]
    lines = source.split("\n")
    lines[-1] = lines[-1][: last.start[1]].rstrip()
    return "\n".join(lines), last.string.lstrip("#").strip()


def _call_text(call: list) -> str:
    func, *args = call
    return f"{func}({', '.join(repr(a) for a in args)})"


# -- scenario files: every public case becomes a check ---------------------------------------
#
# The scenario files belong to the hidden suites and come in a few shapes; each public case is
# turned into a call of the student's code with the same inputs:
#   call = [function, args...]                      (scoring.toml; [[invalid]] must raise)
#   [[function]] with fields named like its parameters (round.toml, scorecard.toml): a
#       `scorecard` parameter is built from `filled` (+ `bonus`), `rolls` are the dice,
#       `stdin` the answers, `invalid = true` means ValueError
#   [[game]] / [[seeded]]: the entry function (play_game) with `rounds` (or one round per roll
#       in `dice`), answers from `script` or `commands`, dice from `dice` or random.seed(seed)
# A public case of another shape is reported by `scenario_report`, never silently dropped.

NOT_ARGUMENTS = {"why", "public", "hint", "hint_when", "invalid", "raises", "rolls", "stdin", "filled",
                 "bonus", "script", "seed", "rounds", "covers", "stage", "name", "problem", "points",
                 "mode", "same_as", "check", "commands"}


def _flat(value) -> list:
    if isinstance(value, list):
        out = []
        for item in value:
            out.extend(_flat(item))
        return out
    return [value]


def _owner(assignment: Assignment, function: str, stage: int | None = None) -> Problem | None:
    """The problem FUNCTION belongs to; of several (play_round: 12 and 19), the one of STAGE, else the first."""
    owners = [p for p in assignment.problems if function in p.functions]
    if stage is not None and any(p.stage == stage for p in owners):
        owners = [p for p in owners if p.stage == stage]
    return min(owners, key=lambda p: (p.stage, p.number)) if owners else None


def _file_stage(assignment: Assignment, keys: Iterable[str]) -> int | None:
    """The stage of a scenario file: the latest stage among the functions only one problem owns."""
    stages = []
    for key in keys:
        owners = [p for p in assignment.problems if key in p.functions]
        if len(owners) == 1:
            stages.append(owners[0].stage)
    return max(stages) if stages else None


def scenario_check(assignment: Assignment, signatures: dict[str, list[tuple[str, bool]]], key: str,
                   case: dict, protocol: list[str], origin: str = "", stage: int | None = None) -> Check | None:
    """The check for one scenario CASE found under KEY (in a file of STAGE), or None when its shape is unknown."""
    stage = case.get("stage", stage)
    if isinstance(case.get("call"), list) and case["call"]:
        owner = case.get("problem") or getattr(_owner(assignment, case["call"][0], stage), "number", None)
        if owner is None:
            return None
        raises = case.get("raises") or ("ValueError" if key == "invalid" or case.get("invalid") else "")
        return Check(int(owner), expr=_call_text(case["call"]), raises=raises, origin=origin, **_hints(case))
    if key in signatures:
        owner = case.get("problem") or getattr(_owner(assignment, key, stage), "number", None)
        if owner is None:
            return None
        setup, args = [], []
        for param, has_default in signatures[key]:
            if param in case:
                args.append(repr(case[param]))
            elif param == "scorecard" and ("filled" in case or "bonus" in case):
                setup = ["card = {category: None for category in CATEGORIES}",
                         f"card[YAHTZEE_BONUS_KEY] = {int(case.get('bonus', 0))!r}"]
                if case.get("filled"):
                    setup.append(f"card.update({dict(case['filled'])!r})")
                args.append("card")
            elif param == "allowed" and setup:
                args.append("[category for category in CATEGORIES if card[category] is None]")
            elif has_default:
                break
            else:
                return None
        call = f"{key}({', '.join(args)})"
        if case.get("invalid") or case.get("raises"):
            return Check(int(owner), setup, expr=call, raises=case.get("raises") or "ValueError", origin=origin,
                         **_hints(case))
        if "stdin" in case or "rolls" in case:
            return Check(int(owner), setup, call=call, answers=[str(a) for a in case.get("stdin", [])],
                         dice=[int(d) for d in _flat(case.get("rolls", []))],
                         lines=list(protocol), after=["card"] if setup else [], origin=origin, **_hints(case))
        return Check(int(owner), setup, expr=call, origin=origin, **_hints(case))
    answers = case.get("script", case.get("commands"))
    if isinstance(answers, list) and ("dice" in case or "seed" in case):
        owner = case.get("problem")
        in_notebook = True
        if owner is None:
            entry = [p for p in assignment.problems if assignment.entry in p.functions
                     and (stage is None or p.stage == stage)]
            if entry:
                owner = entry[0].number
            elif stage is not None and assignment.stage_problems(stage):
                # a whole game of a later stage: filed under that stage's last problem, in check.py
                # only (in a notebook it would cost that problem's points for another one's bug)
                owner, in_notebook = assignment.stage_problems(stage)[-1].number, False
            else:
                return None
        dice = [int(d) for d in _flat(case["dice"])] if "dice" in case else None
        rounds = case.get("rounds") or (len(case["dice"]) if "dice" in case else None)
        if rounds is None or (dice is None and case.get("seed") is None):
            return None
        return Check(int(owner), call=f"{assignment.entry}({int(rounds)})", answers=[str(a) for a in _flat(answers)],
                     dice=dice, seed=None if dice is not None else int(case["seed"]), strict=False,
                     lines=list(protocol), final=not protocol, origin=origin, in_notebook=in_notebook,
                     **_hints(case))
    return None


def _scenario_cases(assignment: Assignment):
    """(file name, file stage, key, case) for every case of every scenario file."""
    for path in sorted(assignment.scenarios_dir.glob("*.toml")):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        stage = _file_stage(assignment, data)
        for key, cases in data.items():
            if isinstance(cases, list):
                for case in cases:
                    if isinstance(case, dict):
                        yield path.name, stage, key, case


def signatures_of(solution_text: str) -> dict[str, list[tuple[str, bool]]]:
    out = {}
    for name, node in _function_nodes(solution_text).items():
        params = node.args.posonlyargs + node.args.args
        first_default = len(params) - len(node.args.defaults)
        out[name] = [(a.arg, i >= first_default) for i, a in enumerate(params)]
    return out


def scenario_checks(assignment: Assignment, solution_text: str, protocol: list[str],
                    problem: Problem | None = None) -> tuple[list[Check], list[str]]:
    """(checks for the PUBLIC scenario cases [of PROBLEM], descriptions of public cases of unknown shape)."""
    signatures = signatures_of(solution_text)
    checks, unknown = [], []
    for filename, stage, key, case in _scenario_cases(assignment):
        if not case.get("public") or case.get("any_legal"):
            continue          # any_legal: any legal answer passes, not the reference's (stage 5's content checks)
        origin = f"public scenario {case.get('why') or case.get('name') or key!r} ({filename})"
        check = scenario_check(assignment, signatures, key, case, protocol, origin, stage)
        if check is None:
            unknown.append(f"{filename} [[{key}]] {case.get('why') or case.get('name') or ''}".strip())
        elif problem is None or check.problem == problem.number:
            checks.append(check)
    return checks, unknown


def content_checks(content: dict, problem: Problem) -> list[Check]:
    spec = content.get("problems", {}).get(str(problem.number), {})
    checks = []
    for item in list(spec.get("checks", [])) + list(spec.get("check", [])):
        if isinstance(item, str):
            checks.append(Check(problem.number, expr=item, origin="content"))
            continue
        item = dict(item)
        checks.append(Check(
            problem.number, setup=list(item.get("setup", [])), expr=item.get("expr", ""),
            raises=item.get("raises", ""), call=item.get("call", ""),
            answers=[str(a) for a in item.get("answers", [])], dice=[int(d) for d in item.get("dice", [])],
            lines=list(item.get("lines", [])), after=list(item.get("after", [])),
            value=bool(item.get("value", True)), origin="content", **_hints(item)))
    return checks


def _before_later_stages(assignment: Assignment, content: dict, problem: Problem, check: Check) -> None:
    """Compare a function that a later stage extends the way the content file says (e.g. without
    the bonus lines of format_scorecard in stage 3), so the check holds at both stages."""
    for function, template in content.get("before_later_stages", {}).items():
        later = [p.stage for p in assignment.problems if function in p.functions]
        if check.expr.startswith(f"{function}(") and later and problem.stage < max(later):
            check.expr = template.format(call=check.expr)


def problem_checks(assignment: Assignment, solution_text: str, content: dict, problem: Problem,
                   notebook: bool = True) -> list[Check]:
    """Every public check of PROBLEM: docstring examples, public scenarios, the content file's
    (with NOTEBOOK, only those that belong in the problem's notebook cell)."""
    spec = content.get("problems", {}).get(str(problem.number), {})
    checks = doctest_checks(solution_text, problem) if spec.get("doctests", True) else []
    seen = {(tuple(c.setup), c.expr, c.raises, c.call, tuple(c.answers)) for c in checks}
    found, _ = scenario_checks(assignment, solution_text, content.get("protocol_lines", []), problem)
    for check in found:
        if notebook and not check.in_notebook:
            continue
        _before_later_stages(assignment, content, problem, check)
        key = (tuple(check.setup), check.expr, check.raises, check.call, tuple(check.answers))
        if key not in seen:
            checks.append(check)
            seen.add(key)
    checks.extend(content_checks(content, problem))
    return checks


# -- evaluating checks against a namespace --------------------------------------------------

def _literal(value, where: str) -> str:
    text = repr(value)
    try:
        if ast.literal_eval(text) != value:
            raise ValueError
    except (ValueError, SyntaxError):
        raise NotebookError(f"{where}: the reference returned {text}, which is not a Python literal") from None
    return text


def _run(code: str, namespace: dict, where: str) -> None:
    try:
        exec(compile(code, f"<{where}>", "exec"), namespace)
    except Exception as err:
        raise NotebookError(f"{where}: the reference failed: {type(err).__name__}: {err}\n{code}") from None


def _eval(expr: str, namespace: dict, where: str):
    try:
        return eval(compile(expr, f"<{where}>", "eval"), namespace)
    except Exception as err:
        raise NotebookError(f"{where}: the reference failed on {expr}: {type(err).__name__}: {err}") from None


def _hint_text(got_name: str, check: Check | None, where: str) -> str:
    """' + <the hint>' for an assertion message ('' without a hint; conditional with hint_when)."""
    if check is None or not check.hint:
        return ""
    text = repr("\nHint: " + check.hint)
    if check.hint_when is None:
        return f" + {text}"
    return f" + ({text} if {got_name} == {_literal(check.hint_when, where)} else '')"


def _assert_value(got_name: str, expected, ran: str, where: str, check: Check | None = None) -> list[str]:
    """An assert whose message reads like the grader's feedback: Ran / Expected / Got / Hint."""
    literal = _literal(expected, where)
    message = repr(f"Ran: {ran}\nExpected: {literal}\nGot: ") + f" + repr({got_name})" + _hint_text(got_name, check, where)
    if expected is None or isinstance(expected, bool):
        return [f"assert {got_name} is {literal}, {message}"]
    type_name = type(expected).__name__
    return [f"assert {got_name} == {literal} and type({got_name}) is {type_name}, {message}"]


def check_label(check: Check) -> str:
    """What a check block is called where the student reads it (its origin, or its call)."""
    if check.origin.startswith(("public scenario", "from the")):
        return check.origin
    text = check.call or check.expr
    return text if len(text) <= 90 else text[:87] + "..."


def checks_code(problem: Problem, blocks: list[tuple[str, str]]) -> str:
    """A problem's public checks as one code text, run the same way in a notebook cell, in
    check.py and in the sandbox (engine/selfcheck.py): one `with checks(...)` block per check."""
    lines = [f"checks = PublicChecks({problem.number}, {problem.title!r})"]
    for what, code in blocks:
        body = code.split("\n")
        if body and body[0].startswith("# ") and body[0][2:] == what:
            body = body[1:]                      # the block's label already says where it comes from
        lines.append(f"with checks({what!r}):")
        lines.append(textwrap.indent("\n".join(body), "    "))
    lines.append("checks.done()")
    return "\n".join(lines)


def render_check(check: Check, namespace: dict, where: str) -> str:
    """Python code for CHECK with its expected values computed in NAMESPACE (which it updates)."""
    out = [f"# {check.origin}"] if check.origin.startswith(("public scenario", "from the")) else []
    out += list(check.setup)
    if check.setup:
        _run("\n".join(check.setup), namespace, where)
    if check.raises:
        try:
            eval(compile(check.expr, f"<{where}>", "eval"), namespace)
        except Exception as err:
            if type(err).__name__ != check.raises:
                raise NotebookError(f"{where}: {check.expr} raised {type(err).__name__}, "
                                    f"not {check.raises}") from None
        else:
            raise NotebookError(f"{where}: {check.expr} did not raise {check.raises} in the reference")
        message = (repr(f"Ran: {check.expr}\nExpected: {check.raises} raised\nGot: ") + " + repr(got) + "
                   + repr(f" (no {check.raises})") + _hint_text("got", check, where))
        out += ["try:", f"    got = {check.expr}", f"except {check.raises}:", "    pass", "else:",
                f"    raise AssertionError({message})"]
        return "\n".join(out)
    if check.call:
        options = [f"answers={check.answers!r}"]
        options.append(f"dice={check.dice!r}" if check.dice is not None else f"seed={check.seed!r}")
        if not check.strict:
            options.append("strict=False")
        run = f"value, printed = run_scripted(lambda: {check.call}, {', '.join(options)})"
        if len(run) > 100:
            run = "value, printed = run_scripted(\n    lambda: " + check.call + ",\n    " + ",\n    ".join(options) + ")"
        before = {}
        for expr in check.after:
            before[expr] = copy.deepcopy(_eval(expr, namespace, where))
        _run(run, namespace, where)
        out.append(run)
        rolled = f"dice {check.dice}" if check.dice is not None else f"random.seed({check.seed})"
        ran = f"{check.call} (answers {check.answers}, {rolled})"
        if len(ran) > 160:
            ran = f"{check.call} (with the answers and dice above)"
        if check.value:
            out += _assert_value("value", namespace["value"], ran, where, check)
        prefixes = tuple(check.lines)
        got = _eval(f"lines_starting(printed, *{prefixes!r})", namespace, where) if prefixes else []
        if prefixes and (got or check.origin == "content"):
            out.append(f"shown = lines_starting(printed, *{prefixes!r})")
            namespace["shown"] = got
            label = " / ".join(repr(p) for p in prefixes)
            message = repr(f"Ran: {ran}\nExpected these {label} lines: ")
            out.append(f"assert shown == {_literal(got, where)}, {message} + repr({_literal(got, where)}) + "
                       f"'\\nGot (all it printed):\\n' + printed{_hint_text('shown', check, where)}")
        if check.final:
            got = _eval("final_number(printed)", namespace, where)
            out.append("got = final_number(printed)")
            namespace["got"] = got
            out += _assert_value("got", got, f"the final score {check.call} printed", where, check)
        for expr in check.after:
            value = _eval(expr, namespace, where)
            if check.origin != "content" and value == before[expr]:
                continue                         # unchanged by the call: comparing it tells nothing
            out.append(f"got = {expr}")
            namespace["got"] = value
            out += _assert_value("got", value, f"after {check.call}, {expr}", where, check)
        return "\n".join(out)
    value = _eval(check.expr, namespace, where)
    out.append(f"got = {check.expr}")
    namespace["got"] = value
    out += _assert_value("got", value, check.expr, where, check)
    return "\n".join(out)


# ---------------------------------------------------------------------------
# Markdown: {{ expr }} placeholders and transcripts
# ---------------------------------------------------------------------------

_PLACEHOLDER = re.compile(r"\{\{\s*(?P<body>.+?)\s*\}\}")


def fill_markdown(text: str, namespace: dict, content: dict, where: str) -> str:
    def substitute(match: re.Match) -> str:
        body = match["body"]
        if body.startswith("transcript "):
            name = body.split(None, 1)[1]
            spec = content.get("transcripts", {}).get(name)
            if spec is None:
                raise NotebookError(f"{where}: no [transcripts.{name}] in the content file")
            local = dict(namespace)
            if spec.get("setup"):
                _run("\n".join(spec["setup"]), local, where)
            run = (f"value, printed = run_scripted(lambda: {spec['call']}, answers={spec.get('answers', [])!r}, "
                   f"dice={spec.get('dice', [])!r})")
            _run(run, local, where)
            return "```text\n" + local["printed"].strip("\n") + "\n```"
        if body.startswith("code "):                   # {{ code NAME }}: a function's source, as given
            return "```python\n" + namespace["__sources__"][body.split(None, 1)[1]].rstrip("\n") + "\n```"
        return repr(_eval(body, namespace, where))
    return _PLACEHOLDER.sub(substitute, text)


# ---------------------------------------------------------------------------
# Cells
# ---------------------------------------------------------------------------

def _source_lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def _cell_id(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9-]", "-", name)[:64]


def markdown_cell(text: str, name: str) -> dict:
    return {"cell_type": "markdown", "id": _cell_id(name), "metadata": {},
            "source": _source_lines(text.strip("\n"))}


def code_cell(code: str, name: str, *, grade: bool = False, solution: bool = False, locked: bool = False,
              points: float | None = None) -> dict:
    metadata: dict = {}
    if grade or solution or locked:
        nbgrader = {"grade": grade, "grade_id": name, "locked": locked, "schema_version": 3,
                    "solution": solution, "task": False}
        if grade:
            nbgrader["points"] = points
        metadata["nbgrader"] = nbgrader
    return {"cell_type": "code", "execution_count": None, "id": _cell_id(name), "metadata": metadata,
            "outputs": [], "source": _source_lines(code.rstrip("\n"))}


def cell_source(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def new_notebook(cells: list[dict], assignment: Assignment, stage: int) -> dict:
    return {
        "cells": cells,
        "metadata": {
            "autograder": {"assignment": assignment.name, "stage": stage,
                           "generated_by": GENERATE_COMMAND,
                           "from": [relative(assignment.reference), relative(assignment.table),
                                    relative(assignment.notebook_content)]},
            "kernelspec": dict(KERNELSPEC),
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def dumps(nb: dict) -> str:
    """The notebook as nbformat writes it (indent 1, sorted keys, a final newline)."""
    return json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


# ---------------------------------------------------------------------------
# A stage notebook
# ---------------------------------------------------------------------------

@dataclass
class StageBuild:
    stage: int
    notebook: dict
    namespace: dict                     # the reference as it stands at this stage, checks run
    checks: dict[int, str]              # problem -> check code of its test cell (without the tools)
    pieces: list[Piece]
    script_checks: dict[int, str] = field(default_factory=dict)   # what check.py and grade --public run (= checks)


def notebook_name(assignment: Assignment, stage: int) -> str:
    return f"{assignment.name}_stage{stage}.ipynb"


def notebook_path(assignment: Assignment, stage: int, root: Path = SOURCE_DIR) -> Path:
    return root / f"stage{stage}" / notebook_name(assignment, stage)


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
    pieces = [stage_piece(solution, f, stage, variants) for f in solution.functions if f.stage <= stage]
    namespace: dict = {"__name__": f"{assignment.name}_stage{stage}"}
    _run(solution.setup, namespace, where)
    for piece in pieces:
        _run(strip_solution_markers(piece.code), namespace, f"{where}: {piece.function.name}")
    _run(TOOLS, namespace, f"{where}: tools")
    _run(SELFCHECK, namespace, f"{where}: the public-check runtime")     # as the given cell defines it
    namespace["SETTINGS"]["print"] = False
    namespace["__sources__"] = {p.function.name: strip_solution_markers(p.code) for p in pieces}

    cells: list[dict] = []
    title = stage_info[stage].title if stage in stage_info else f"Stage {stage}"
    head = [f"# {assignment.title}, stage {stage}: {title}", ""]
    head.append(fill_markdown(content.get("intro", ""), namespace, content, where).strip())
    head += ["", fill_markdown(spec.get("intro", ""), namespace, content, where).strip(), "",
             "### Points in this notebook", "", _points_table(assignment, stage)]
    cells.append(markdown_cell("\n".join(head), f"s{stage}-intro"))

    cells.append(markdown_cell(fill_markdown(content.get("setup_text", "## The rules as constants"),
                                             namespace, content, where), f"s{stage}-setup-md"))
    cells.append(code_cell(solution.setup, "given_setup", locked=True))
    cells.append(markdown_cell(SELFCHECK_TEXT, f"s{stage}-selfcheck-md"))
    cells.append(code_cell(SELFCHECK, "given_selfcheck", locked=True))
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

    checks: dict[int, str] = {}
    script_checks: dict[int, str] = {}
    this_stage = [p for p in pieces if p.function.stage == stage or p.answers]
    placed: set[str] = set()
    for problem in assignment.stage_problems(stage):
        pspec = content.get("problems", {}).get(str(problem.number), {})
        answer_pieces = [p for p in this_stage if p.answers and p.answers[0] == problem.number]
        # a problem living only inside other problems' regions of this stage (stage 5's "playing
        # well", nested in choose_keep and choose_category) gets its lesson and checks, no cell
        nested = any(problem.number in p.answers for p in this_stage)
        if not answer_pieces and not nested:
            raise NotebookError(f"{where}: problem {problem.number} has no answer region in this stage")
        first = min((p.function.start for p in answer_pieces), default=10 ** 9)
        given_here = [p for p in this_stage if not p.answers and p.function.name not in placed
                      and p.function.stage == stage and p.function.start < first]
        lesson = [f"## Problem {problem.number}: {problem.title} ({_points(problem.points)} points)", "",
                  fill_markdown(pspec.get("lesson", ""), namespace, content,
                                f"{where}: problem {problem.number}").strip()]
        cells.append(markdown_cell("\n".join(lesson), f"s{stage}-p{problem.number:02d}-md"))
        for piece in given_here:
            placed.add(piece.function.name)
            cells.append(code_cell(piece.code, f"given_{piece.function.name}", locked=True))
        for piece in answer_pieces:
            cells.append(code_cell(piece.code, answer_id(problem.number, piece.function.name), solution=True))
        blocks: list[tuple[str, str]] = []
        final = reference_namespace(solution)
        found = problem_checks(assignment, solution.text, content, problem)
        if not found:
            raise NotebookError(f"problem {problem.number} has no public checks: give it doctests, public "
                                f"scenarios or [problems.{problem.number}] checks in the content file")
        for index, check in enumerate(found, 1):
            label = f"{where}: problem {problem.number} check {index} ({check.origin})"
            code = render_check(check, namespace, label)
            if render_check(check, final, label) != code:
                raise NotebookError(f"{label}: the reference gives other values at stage {stage} than in the "
                                    f"end; pick a check that does not depend on later stages:\n{code}")
            blocks.append((check_label(check), code))
        code = checks_code(problem, blocks)
        checks[problem.number] = code
        script_checks[problem.number] = code    # check.py and `grade --public` run exactly these
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
        exec(compile(SELFCHECK, "<selfcheck>", "exec"), runtime)
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
                and p.function.stage == stage]
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
    return StageBuild(stage, notebook, namespace, checks, pieces, script_checks)


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


def build_all(assignment: Assignment | None = None) -> list[StageBuild]:
    assignment = assignment or load_assignment("yahtzee")
    solution = read_solution(assignment.reference.read_text(encoding="utf-8"), assignment)
    content = load_content(assignment)
    return [build_stage(assignment, solution, content, s.number) for s in assignment.stages]


# ---------------------------------------------------------------------------
# Release (nbgrader generate_assignment, reproduced) and sample submissions
# ---------------------------------------------------------------------------

def _is(cell: dict, key: str) -> bool:
    return bool(cell.get("metadata", {}).get("nbgrader", {}).get(key, False))


def is_locked(cell: dict) -> bool:
    if "nbgrader" not in cell.get("metadata", {}) or _is(cell, "solution"):
        return False
    return _is(cell, "grade") or _is(cell, "locked")


def checksum(cell: dict) -> str:
    """nbgrader.utils.compute_checksum, reproduced."""
    md5 = hashlib.md5()
    md5.update(cell_source(cell).encode("utf-8"))
    md5.update(cell["cell_type"].encode("utf-8"))
    md5.update(str(_is(cell, "grade")).encode("utf-8"))
    md5.update(str(_is(cell, "solution")).encode("utf-8"))
    md5.update(str(is_locked(cell)).encode("utf-8"))
    md5.update(cell["metadata"]["nbgrader"]["grade_id"].encode("utf-8"))
    if _is(cell, "grade"):
        md5.update(str(float(cell["metadata"]["nbgrader"]["points"])).encode("utf-8"))
    return md5.hexdigest()


def release_notebook(source_nb: dict, answers: dict[str, str | None] | None = None) -> dict:
    """What ``nbgrader generate_assignment`` makes of SOURCE_NB: solutions stubbed, cells locked,
    outputs cleared, checksums computed.  With ANSWERS ({function: code or None}), fill each
    answer cell instead: None keeps the reference solution; absent functions stay stubs
    (used for sample submissions, which carry the release metadata like a real one)."""
    nb = copy.deepcopy(source_nb)
    for cell in nb["cells"]:
        meta = cell.setdefault("metadata", {})
        if cell["cell_type"] == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
        text = cell_source(cell)
        if _is(cell, "solution"):
            name = _defined_function(text)
            if answers is not None and name in answers:
                text = replace_regions(text, answers[name]).rstrip("\n")
            else:
                text = stub_code(text) if BEGIN_SOLUTION in text else CODE_STUB
            cell["source"] = _source_lines(text)
        if _is(cell, "solution"):
            meta["deletable"] = False
        elif _is(cell, "grade") or is_locked(cell):
            meta["deletable"] = False
            meta["editable"] = False
        if "nbgrader" in meta and (_is(cell, "grade") or _is(cell, "solution") or is_locked(cell)):
            cell_for_sum = dict(cell, source=cell_source(cell))
            if answers is not None and _is(cell, "solution"):
                stubbed = copy.deepcopy(cell)        # a submission keeps the checksum of the released stub
                stubbed["source"] = stub_code(cell_source(_find_source_cell(source_nb, meta)))
                cell_for_sum = stubbed
            meta["nbgrader"]["checksum"] = checksum(cell_for_sum)
            meta["nbgrader"]["cell_type"] = cell["cell_type"]
    nb["metadata"].pop("celltoolbar", None)
    return nb


def _find_source_cell(nb: dict, meta: dict) -> dict:
    grade_id = meta["nbgrader"]["grade_id"]
    for cell in nb["cells"]:
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == grade_id:
            return cell
    raise KeyError(grade_id)


def _defined_function(code: str) -> str | None:
    match = re.search(r"^\s*(?:async\s+)?def\s+(\w+)", code, re.MULTILINE)
    return match[1] if match else None


def sample_notebooks(build: StageBuild, content: dict) -> dict[str, dict]:
    """The sample submissions of BUILD's stage: {student: notebook}."""
    out = {}
    for student, spec in content.get("samples", {}).items():
        if int(spec.get("stage", 1)) != build.stage:
            continue
        if spec.get("blank"):
            out[student] = release_notebook(build.notebook)
            continue
        answers: dict[str, str | None] = {p.function.name: None for p in build.pieces if p.answers}
        for name, code in spec.get("answers", {}).items():
            if name not in answers:
                raise NotebookError(f"sample {student}: stage {build.stage} has no answer cell for {name}")
            answers[name] = code
        out[student] = release_notebook(build.notebook, answers)
    return out


def sample_path(student: str, assignment: Assignment, stage: int, root: Path = SAMPLES_DIR) -> Path:
    return root / student / f"stage{stage}" / notebook_name(assignment, stage)


def expected_sample_points(assignment: Assignment, content: dict, student: str) -> float:
    """The nbgrader score a sample must get: the stage's points minus its failing problems'."""
    spec = content["samples"][student]
    stage = int(spec.get("stage", 1))
    if spec.get("blank"):
        return 0.0
    failing = set(spec.get("fails", []))
    return float(sum(p.points for p in assignment.stage_problems(stage) if p.number not in failing))


# ---------------------------------------------------------------------------
# Leak check
# ---------------------------------------------------------------------------

MIN_LEAK_LINE = 8          # shorter solution lines ("else:", "return 0") prove nothing
MIN_LEAK_NAME = 12


# Lines too common to prove anything: `return total`, `else:`, `break` ...
_TRIVIAL = re.compile(r"(return( [A-Za-z_]\w*| -?\d+| \[\]| \{\}| \"\"| '')?|else:|try:|pass|break|continue"
                      r"|while True:)")


def _code_lines(text: str) -> set[str]:
    return {line.strip() for line in text.splitlines()
            if line.strip() and not line.strip().startswith("#") and not _TRIVIAL.fullmatch(line.strip())}


def secret_lines(assignment: Assignment, released_stage: int, content: dict | None = None) -> set[str]:
    """Lines of solution code a bundle up to RELEASED_STAGE must not contain: every line of a region
    of a problem in that stage or later, except lines that are public anyway (the starter, earlier
    stages' regions, the variants standing in for later regions before their stage)."""
    text = assignment.reference.read_text(encoding="utf-8")
    solution = read_solution(text, assignment)
    public = _code_lines(assignment.starter.read_text(encoding="utf-8")) if assignment.starter.is_file() else set()
    secret: set[str] = set()
    for problem in assignment.problems:
        for _, code in solution.regions(problem.number):
            lines = _code_lines(code)
            if problem.stage < released_stage:
                public |= lines
            else:
                secret |= lines
    if content is None and has_notebooks(assignment):
        content = load_content(assignment)
    for number, variant in (content or {}).get("variants", {}).items():
        # a variant is public once the region around it is given (its stage is released before)
        for function in solution.functions:
            for fence in function.fences:
                if fence.number != int(number):
                    continue
                around = [f for f in function.fences if f.begin < fence.begin and f.end > fence.end]
                if around and solution.table[around[0].number].stage < released_stage:
                    public |= _code_lines(variant)
    return {line for line in secret - public if len(line) >= MIN_LEAK_LINE}


def hidden_fingerprints(assignment: Assignment) -> set[str]:
    """Strings that only the hidden tests know: the names, hints, calls and scripts of every
    scenario not marked public, minus anything public anyway (public scenarios, the starter,
    the handout)."""
    public_text = _normalise("\n".join(path.read_text(encoding="utf-8")
                                       for path in (assignment.starter, assignment.handout) if path.is_file()))
    hidden, public = _fingerprints(assignment)
    return {p for p in hidden - public if _normalise(p) not in public_text}


def _fingerprints(assignment: Assignment) -> tuple[set[str], set[str]]:
    """(fingerprints of the hidden scenario cases, of the public ones)."""
    signatures = signatures_of(assignment.reference.read_text(encoding="utf-8"))
    hidden: set[str] = set()
    public: set[str] = set()
    for _, stage, key, case in _scenario_cases(assignment):
        prints = _case_fingerprints(assignment, signatures, key, case, stage)
        (public if case.get("public") else hidden).update(prints)
    return hidden, public


def _case_fingerprints(assignment: Assignment, signatures: dict, key: str, case: dict, stage: int | None) -> set[str]:
    prints = set()
    for field_name in ("why", "name", "title", "hint", "id"):
        value = case.get(field_name)
        if isinstance(value, str) and len(value) >= MIN_LEAK_NAME:
            prints.add(value)
    check = scenario_check(assignment, signatures, key, case, [], stage=stage)
    if check is not None:
        if check.expr and "(" in check.expr and not check.expr.endswith("()"):
            prints.add(check.expr)
        if check.call and check.setup:
            prints.add(check.setup[-1])                       # the scorecard it starts from
        if len(check.answers) >= 3:
            prints.add(repr(check.answers)[1:-1])
        if check.dice and len(check.dice) >= 8:
            prints.add(repr(check.dice)[1:-1])
    for field_name in ("stdin", "script", "commands"):
        value = case.get(field_name)
        if isinstance(value, list) and len(_flat(value)) >= 3:
            prints.add(repr([str(v) for v in _flat(value)])[1:-1])
    return prints


def _normalise(text: str) -> str:
    """Whitespace squeezed and double quotes made single, so repr() and hand-typed text compare."""
    return re.sub(r"\s+", " ", text).replace('"', "'")


def find_leaks(texts: dict[str, str], assignment: Assignment, released_stage: int,
               content: dict | None = None) -> list[str]:
    """Every secret line and hidden fingerprint found in TEXTS ({name: text}); empty when clean."""
    secrets = secret_lines(assignment, released_stage, content)
    prints = hidden_fingerprints(assignment)
    public = sorted(_fingerprints(assignment)[1], key=len, reverse=True)
    problems = []
    for name, text in sorted(texts.items()):
        lines = {line.strip() for line in text.splitlines()}
        for line in sorted(secrets & lines):
            problems.append(f"{name}: solution line {line!r}")
        flat = _normalise(text)
        for known in public:                 # "an empty scorecard totals 0" is public; do not
            flat = flat.replace(_normalise(known), " ")  # read "an empty scorecard" (hidden) in it
        for fingerprint in sorted(prints):
            if _normalise(fingerprint) in flat:
                problems.append(f"{name}: hidden test data {fingerprint!r}")
    return problems


def notebook_texts(nb: dict) -> str:
    """All the text of a notebook a student could read (sources and outputs)."""
    parts = []
    for cell in nb.get("cells", []):
        parts.append(cell_source(cell))
        for output in cell.get("outputs", []) or []:
            parts.append(json.dumps(output))
    return "\n".join(parts)


# ---------------------------------------------------------------------------
# Writing and checking
# ---------------------------------------------------------------------------

STUDENT_NOTE = ("> **Your notebook.** Write each answer where it says `# YOUR CODE HERE` (the stub names its "
                "problem), then *Run All*: every check cell reports its problem as passed, failed or not "
                "started, with what was expected and a hint, and never stops the run. Start with Problem {first}.")


def student_notebook(build: StageBuild, assignment: Assignment) -> dict:
    """The self-learner's version of a stage notebook: nbgrader's release (solutions stubbed), with
    each stub naming its problem like the starter's, and a note on how to work in it."""
    nb = release_notebook(build.notebook)
    titles = {p.number: p.title for p in assignment.problems}
    for cell in nb["cells"]:
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id", "")
        match = re.fullmatch(r"p(\d+)_answer_(\w+)", grade_id)
        if match and _is(cell, "solution"):
            number, function = int(match[1]), match[2]
            message = f"Problem {number}: {titles.get(number, '')} ({function})"
            cell["source"] = _source_lines(cell_source(cell).replace(
                "raise NotImplementedError()", f"raise NotImplementedError({message!r})"))
    first = min(p.number for p in assignment.stage_problems(build.stage))
    nb["cells"].insert(1, markdown_cell(STUDENT_NOTE.format(first=first), f"s{build.stage}-student-note"))
    nb["metadata"]["autograder"]["track"] = "student"
    return nb


def student_path(assignment: Assignment, stage: int, root: Path = STUDENT_DIR) -> Path:
    return root / notebook_name(assignment, stage)


def student_leaks(assignment: Assignment, files: list[tuple[Path, str]]) -> list[str]:
    """The release leak check on the student track: no solution line of the notebook's own stage or
    later, no hidden test data."""
    problems = []
    for path, text in files:
        nb = json.loads(text)
        stage = int(nb["metadata"]["autograder"]["stage"])
        problems += find_leaks({relative(path): notebook_texts(nb)}, assignment, stage)
    return problems


def planned_files(assignment: Assignment | None = None) -> list[tuple[Path, str]]:
    assignment = assignment or load_assignment("yahtzee")
    content = load_content(assignment)
    files = []
    for build in build_all(assignment):
        files.append((notebook_path(assignment, build.stage), dumps(build.notebook)))
        files.append((student_path(assignment, build.stage), dumps(student_notebook(build, assignment))))
        for student, nb in sample_notebooks(build, content).items():
            files.append((sample_path(student, assignment, build.stage), dumps(nb)))
    return files


def generate(check: bool = False, assignment: Assignment | None = None) -> tuple[list[str], list[Path]]:
    """Write (or, with CHECK, compare) the notebooks; return (problems, paths written)."""
    try:
        files = planned_files(assignment)
    except NotebookError as err:
        return [f"cannot generate the notebooks: {err}"], []
    leaks = student_leaks(assignment or load_assignment("yahtzee"),
                          [(p, t) for p, t in files if STUDENT_DIR in p.parents])
    if leaks:
        head = "LEAK: the student notebooks would show solutions or hidden data; nothing was written:"
        return [head, *leaks], []
    problems, written = [], []
    for path, text in files:
        current = path.read_text(encoding="utf-8") if path.is_file() else None
        if current == text:
            continue
        if check:
            state = "is missing" if current is None else "is out of date"
            problems.append(f"{relative(path)} {state}: run `{GENERATE_COMMAND}`")
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            written.append(path)
    if check:
        wanted = {path for path, _ in files}
        ours = f"{(assignment or load_assignment('yahtzee')).name}_stage"     # another course's are not stray
        for root in (SOURCE_DIR, SAMPLES_DIR, STUDENT_DIR):
            for path in sorted(root.rglob(f"{ours}*.ipynb")) if root.is_dir() else []:
                if path not in wanted and ".ipynb_checkpoints" not in path.parts:
                    problems.append(f"{relative(path)} is not generated any more: delete it")
    return problems, written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=GENERATE_COMMAND, description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a notebook is out of date")
    args = parser.parse_args(argv)
    problems, written = generate(check=args.check)
    for path in written:
        print(f"wrote {relative(path)}")
    return report(problems, written, args.check, "notebooks are up to date")


if __name__ == "__main__":
    sys.exit(main())
