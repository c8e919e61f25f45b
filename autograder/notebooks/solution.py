"""Reading the reference into functions and fenced regions, and a function as it stands at stage N."""

from __future__ import annotations

import ast
import re
import textwrap
from dataclasses import dataclass, field

from autograder.assignment import Assignment, Problem
from autograder.authoring.build import Fence, scan_fences, validate

from .common import BEGIN_SOLUTION, CODE_STUB, END_SOLUTION, NotebookError


@dataclass
class Function:
    name: str
    start: int                          # 0-based first line (decorators included)
    end: int                            # 0-based last line
    fences: list[Fence]
    stage: int = 0                      # 0: toolkit given before stage 1
    owner: str | None = None            # the class whose method it is (None: a module-level function)


@dataclass
class ClassInfo:
    """A class of the reference whose methods are cut into a notebook's class cells."""

    name: str
    bases: str                          # "(Base)" as written, or ""
    docstring: str                      # its docstring as a source line block, indented ("" if none)


@dataclass
class Solution:
    text: str
    lines: list[str]
    setup: str                          # imports and constants, comment banners removed
    functions: list[Function]
    table: dict[int, Problem]
    classes: dict[str, ClassInfo] = field(default_factory=dict)

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
    classes: dict[str, ClassInfo] = {}
    # a class's methods count as functions (their regions), each knowing its class: the stage
    # notebooks cut a class into a given part and this stage's methods (build.class_cells)
    nodes = [(n, node.name if isinstance(node, ast.ClassDef) else None) for node in tree.body
             for n in (node.body if isinstance(node, ast.ClassDef) else [node])]
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            if node.decorator_list or node.keywords:
                raise NotebookError(f"line {node.lineno}: class {node.name}: the notebooks cut plain classes "
                                    "(no decorators, no metaclass)")
            bases = ", ".join(ast.get_source_segment(text, base) or "" for base in node.bases)
            docstring = ""
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                docstring = "".join(lines[first.lineno - 1:first.end_lineno])
            classes[node.name] = ClassInfo(node.name, f"({bases})" if bases else "", docstring)
    for node, owner in nodes:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            start = min([node.lineno] + [d.lineno for d in node.decorator_list]) - 1
            end = (node.end_lineno or node.lineno) - 1
            inside = [f for f in fences if start <= f.begin <= end]
            end = max([end] + [f.end for f in inside])       # a closing fence comment follows the code
            functions.append(Function(node.name, start, end, inside, owner=owner))
        elif owner is not None and not isinstance(node, ast.Expr):
            raise NotebookError(f"line {node.lineno}: class {owner} holds a statement that is not a method "
                                f"({type(node).__name__}); the notebooks cut a class into its methods")
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and owner is not None:
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
    setup = ""              # a reference with no imports or constants (a small course) has none
    if setup_nodes:
        first, last = setup_nodes[0].lineno - 1, (setup_nodes[-1].end_lineno or setup_nodes[-1].lineno) - 1
        setup_lines = [line for line in lines[first:last + 1] if not _BANNER.match(line)]
        setup = _tidy("".join(setup_lines))
    stage = 0
    for function in functions:
        outer = [f for f in function.fences if f.depth == 0]
        if outer:
            stage = min(table[f.number].stage for f in outer)
        function.stage = stage
    return Solution(text, lines, setup, functions, table, classes)


def _is_main_guard(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "__name__")


def _tidy(code: str) -> str:
    """Strip blank lines at both ends and squeeze runs of blank lines to one."""
    code = re.sub(r"\n\s*\n(\s*\n)+", "\n\n", code)
    return code.strip("\n") + "\n"



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
