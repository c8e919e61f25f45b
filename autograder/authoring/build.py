"""Generate the student files from the reference, and check that they have not drifted.

The reference solution of an assignment (``autograder/assignments/<name>/reference.py``) is
the single source of truth.  Student code goes between fence comments::

    # BEGIN PROBLEM 7
    return "Dice: " + " ".join(str(die) for die in dice)
    # END PROBLEM 7

``generate_starter`` keeps everything outside the fences byte for byte and turns every
OUTERMOST fenced region into a stub at the fence's indentation: the two fence lines
stay, and between them go a ``*** YOUR CODE HERE ***`` comment and
``raise NotImplementedError("Problem N: <title> (<function>)")``.  Fences nested inside
an outer region (e.g. PROBLEM 19 inside PROBLEM 12) disappear with it; the stub says
that they belong to the region too.

``build`` does this for every assignment under ``autograder/assignments/`` that has a
reference.py: it writes the generated student-facing views at the repository's top level
(``solution/<name>.py``, a copy of the reference; ``starter/<name>.py``), the sample class of
an assignment whose samples.toml names a ``view`` folder, and regenerates the points table of
its handout (between ``<!-- BEGIN POINTS TABLE -->`` and ``<!-- END POINTS TABLE -->``).  With
``check=True`` it writes nothing and reports each file that is out of date.

    python -m autograder build            # write solution/, starter/, samples and the handout tables
    python -m autograder build --check    # exit 1 if anything is out of date or invalid
"""

from __future__ import annotations

import argparse
import ast
import functools
import io
import json
import re
import sys
import textwrap
import tokenize
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from autograder.assignment import (
    REPO_ROOT,
    Assignment,
    Problem,
    available,
    extra_folders,
    load_assignment,
    needs_repository,
)
from autograder.authoring import promises

BUILD_COMMAND = "python -m autograder build"
TABLE_BEGIN = "<!-- BEGIN POINTS TABLE -->"
TABLE_END = "<!-- END POINTS TABLE -->"

# A fence comment, e.g. "# BEGIN PROBLEM 12".  Anything that starts like a fence but is
# not exactly one (no number, "PROBLEMS", ...) is reported rather than silently ignored.
_FENCE_LIKE = re.compile(r"#\s*(?P<kind>BEGIN|END)\s+PROBLEM", re.IGNORECASE)
_FENCE = re.compile(r"#\s?(?P<kind>BEGIN|END) PROBLEM (?P<number>\d+)\s*")


class FenceError(ValueError):
    """The fences of a solution file are malformed, unbalanced or unknown to the table."""

    def __init__(self, problems: list[str]):
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


@dataclass(frozen=True)
class Fence:
    """One fenced region: 0-based line indexes of its BEGIN and END lines."""

    number: int
    begin: int
    end: int
    indent: str
    depth: int                  # 0 for an outermost region
    function: str | None        # the innermost function the region sits in
    inner: tuple[int, ...] = () # numbers of the fences nested in it (outer regions only)


# ---------------------------------------------------------------------------
# Reading fences
# ---------------------------------------------------------------------------

def _comment_lines(text: str) -> list[tuple[int, str]]:
    """(0-based line, comment text) for every comment that is alone on its line."""
    return list(_comment_lines_of(text))


@functools.lru_cache(maxsize=32)     # (a release scans the same few sources ~60 times)
def _comment_lines_of(text: str) -> tuple[tuple[int, str], ...]:
    lines = text.splitlines(keepends=True)
    found = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT:
                row, col = tok.start
                if lines[row - 1][:col].strip() == "":
                    found.append((row - 1, tok.string))
    except (tokenize.TokenError, SyntaxError) as err:
        raise FenceError([f"cannot read the file as Python: {err}"]) from None
    return tuple(found)


def _functions_by_line(text: str) -> list[tuple[int, int, str]]:
    """(first line, last line, name) of every function, 0-based, innermost last."""
    return list(_functions_by_line_of(text))


@functools.lru_cache(maxsize=32)
def _functions_by_line_of(text: str) -> tuple[tuple[int, int, str], ...]:
    try:
        tree = ast.parse(text)
    except SyntaxError as err:
        raise FenceError([f"the file is not valid Python: line {err.lineno}: {err.msg}"]) from None
    spans = [
        (node.lineno - 1, (node.end_lineno or node.lineno) - 1, node.name)
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    ]
    return tuple(sorted(spans, key=lambda span: (span[0], -span[1])))


def scan_fences(text: str) -> list[Fence]:
    """Return every fenced region of TEXT (outer and nested) in the order of their BEGIN lines.

    Raises FenceError listing every malformed, unmatched or crossed fence.
    """
    functions = _functions_by_line(text)
    errors: list[str] = []
    stack: list[tuple[int, int, str]] = []          # (number, begin line, indent)
    fences: list[Fence] = []
    lines = text.splitlines(keepends=True)
    for index, comment in _comment_lines(text):
        if not _FENCE_LIKE.match(comment):
            continue
        match = _FENCE.fullmatch(comment)
        where = f"line {index + 1}"
        if not match:
            errors.append(f"{where}: malformed fence {comment.strip()!r}; write "
                          f"'# BEGIN PROBLEM <number>' or '# END PROBLEM <number>'")
            continue
        number = int(match["number"])
        indent = lines[index][: len(lines[index]) - len(lines[index].lstrip(" \t"))]
        if match["kind"] == "BEGIN":
            stack.append((number, index, indent))
            continue
        if not stack:
            errors.append(f"{where}: '# END PROBLEM {number}' has no matching '# BEGIN PROBLEM {number}'")
            continue
        open_number, begin, open_indent = stack[-1]
        if open_number != number:
            errors.append(f"{where}: '# END PROBLEM {number}' closes '# BEGIN PROBLEM {open_number}' "
                          f"opened at line {begin + 1}; fences must nest properly")
            if any(n == number for n, _, _ in stack):      # close up to the matching BEGIN
                while stack[-1][0] != number:
                    stack.pop()
                stack.pop()
            continue
        stack.pop()
        enclosing = [name for first, last, name in functions if first <= begin <= last]
        fences.append(Fence(number, begin, index, open_indent, len(stack),
                            enclosing[-1] if enclosing else None))
    for number, begin, _ in stack:
        errors.append(f"line {begin + 1}: '# BEGIN PROBLEM {number}' is never closed "
                      f"(no '# END PROBLEM {number}' after it)")
    if errors:
        raise FenceError(errors)
    fences.sort(key=lambda fence: fence.begin)
    result = []
    for fence in fences:
        if fence.depth == 0:
            inner = sorted({f.number for f in fences
                            if f.depth > 0 and fence.begin < f.begin < fence.end} - {fence.number})
            fence = Fence(fence.number, fence.begin, fence.end, fence.indent, 0, fence.function,
                          tuple(inner))
        result.append(fence)
    return result


def outer_fences(text: str) -> list[Fence]:
    """The outermost fenced regions of TEXT, in order (see scan_fences)."""
    return [fence for fence in scan_fences(text) if fence.depth == 0]


def _table(assignment: Assignment | Mapping[int, str] | Iterable[Problem] | None) -> dict[int, Problem]:
    if assignment is None:
        assignment = load_assignment()
    if isinstance(assignment, Assignment):
        return {p.number: p for p in assignment.problems}
    if isinstance(assignment, Mapping):
        return {int(n): Problem(int(n), 0, str(title), 0) for n, title in assignment.items()}
    return {p.number: p for p in assignment}


def validate(solution_text: str, assignment: Assignment | Mapping[int, str] | Iterable[Problem] | None = None,
             ) -> list[str]:
    """Return the problems of SOLUTION_TEXT against the table (empty when all is well).

    Fences must be balanced and properly nested; every fence number must be in the table,
    every table problem must have at least one fence; when the table names a problem's
    functions, each fence must sit in one of them and each of them must hold a fence.
    """
    try:
        fences = scan_fences(solution_text)
    except FenceError as err:
        return err.problems
    table = _table(assignment)
    errors = []
    for fence in fences:
        where = f"line {fence.begin + 1}"
        problem = table.get(fence.number)
        if problem is None:
            errors.append(f"{where}: PROBLEM {fence.number} is not in the problem table")
        elif problem.functions and fence.function not in problem.functions:
            errors.append(f"{where}: PROBLEM {fence.number} is fenced in "
                          f"{fence.function or 'module-level code'}, but the table lists it for "
                          f"{', '.join(problem.functions)}")
    fenced = {fence.number for fence in fences}
    for number, problem in sorted(table.items()):
        if number not in fenced:
            errors.append(f"problem {number} ({problem.title}) has no '# BEGIN PROBLEM {number}' fence")
            continue
        holders = {fence.function for fence in fences if fence.number == number}
        for function in problem.functions:
            if function not in holders:
                errors.append(f"problem {number} lists {function}, which holds no PROBLEM {number} fence")
    return errors


# ---------------------------------------------------------------------------
# The starter
# ---------------------------------------------------------------------------

def _python_string(text: str) -> str:
    """A double-quoted Python literal for TEXT (JSON string syntax is valid Python here)."""
    return json.dumps(text, ensure_ascii=False)


# A region may start with a clause that continues the statement above it (an elif branch,
# say); its stub then keeps a clause header so that the starter still compiles.
_CLAUSE_HEADERS = {"elif": "elif True:", "else": "else:", "except": "except Exception:", "finally": "finally:"}
_CLAUSE = re.compile(r"(elif|else|except|finally)\b")


def _region_clause(lines: list[str], fence: Fence) -> tuple[str, str] | None:
    """(stub header, body indent) when the region's first statement is an elif/else/except/finally
    clause, else None."""
    body = [line for line in lines[fence.begin + 1:fence.end]
            if line.strip() and not line.lstrip().startswith("#")]
    if not body:
        return None
    match = _CLAUSE.match(body[0].lstrip())
    if not match:
        return None
    first_indent = body[0][: len(body[0]) - len(body[0].lstrip(" \t"))]
    deeper = [line[: len(line) - len(line.lstrip(" \t"))] for line in body[1:]]
    inner = next((ind for ind in deeper if len(ind) > len(first_indent)), first_indent + "    ")
    return _CLAUSE_HEADERS[match[1]], inner


def _stub(fence: Fence, table: Mapping[int, Problem], newline: str,
          clause: tuple[str, str] | None = None) -> list[str]:
    problem = table[fence.number]
    function = fence.function or ", ".join(problem.functions) or "module level"
    message = f"Problem {fence.number}: {problem.title} ({function})"
    note = f" (this region is an {clause[0].split()[0].rstrip(':')} clause: replace it)" if clause else ""
    lines = [f"{fence.indent}# *** YOUR CODE HERE ***{note}{newline}"]
    for number in fence.inner:
        stage = table[number].stage if number in table else 0
        later = f", in stage {stage}" if stage and stage != problem.stage else ""
        lines.append(f"{fence.indent}# (Problem {number} also goes in this region{later}: "
                     f"see the handout.){newline}")
    raise_indent = fence.indent
    if clause:
        lines.append(f"{fence.indent}{clause[0]}{newline}")
        raise_indent = clause[1]
    lines.append(f"{raise_indent}raise NotImplementedError({_python_string(message)}){newline}")
    return lines


def _starter_note(handout: str) -> list[str]:
    """The paragraph that opens the starter's module docstring, wrapped to 79 columns."""
    nbsp = "\u00a0"                   # keeps "# BEGIN PROBLEM N" on one line while wrapping
    note = (f"Starter file: write your code in each region that starts with a "
            f"``#{nbsp}BEGIN{nbsp}PROBLEM{nbsp}N`` comment and ends with ``#{nbsp}END{nbsp}PROBLEM{nbsp}N``.  "
            f"Until you do, the region raises NotImplementedError naming its problem.  "
            f"Leave the given code outside the regions as it is.  "
            f"{handout} says what each problem must do.")
    return [line.replace(nbsp, " ") for line in textwrap.wrap(note, width=79, break_on_hyphens=False)]


def _adjust_docstring(text: str, handout: str) -> str:
    """Replace the paragraphs of the module docstring that speak of the reference solution
    with a note for students; TEXT is returned unchanged if it has no triple-quoted docstring."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return text
    if not (tree.body and isinstance(tree.body[0], ast.Expr)
            and isinstance(tree.body[0].value, ast.Constant) and isinstance(tree.body[0].value.value, str)):
        return text
    node = tree.body[0].value
    lines = text.splitlines(keepends=True)
    first, last = node.lineno - 1, (node.end_lineno or node.lineno) - 1
    raw = "".join(lines[first:last + 1])
    start = node.col_offset
    match = re.match(r'[rRuU]?("""|\'\'\')', raw[start:])
    end = len(raw.rstrip("\r\n"))
    if not match or not raw[:end].endswith(match[1]):
        return text
    opening = start + len(match[0])
    inner = raw[opening:end - 3]
    newline = "\r\n" if "\r\n" in raw else "\n"
    paragraphs = inner.replace("\r\n", "\n").split("\n\n")
    trailing = inner.replace("\r\n", "\n")[len(inner.replace("\r\n", "\n").rstrip()):]
    kept = [paragraphs[0].rstrip()] + ["\n".join(_starter_note(handout))]
    kept += [p.strip("\n").rstrip() for p in paragraphs[1:]
             if p.strip() and not re.search(r"\breference\b", p, re.IGNORECASE)]
    new_inner = "\n\n".join(kept) + (trailing if trailing else "")
    new_raw = raw[:opening] + new_inner.replace("\n", newline) + raw[end - 3:]
    return "".join(lines[:first]) + new_raw + "".join(lines[last + 1:])


def relative(path: Path) -> str:
    """PATH as the repo shows it (for messages)."""
    try:
        return path.resolve().relative_to(REPO_ROOT).as_posix()
    except ValueError:
        return str(path)


def generate_starter(solution_text: str,
                     assignment: Assignment | Mapping[int, str] | Iterable[Problem] | None = None) -> str:
    """Return the starter file for SOLUTION_TEXT: every outermost fenced region stubbed.

    assignment -- the problem table giving each problem's title: an Assignment (default:
                  the kit's default), a mapping {number: title}, or an iterable of Problems.
    Raises FenceError when validate() finds anything wrong.
    """
    table_source = load_assignment() if assignment is None else assignment
    errors = validate(solution_text, table_source)
    if errors:
        raise FenceError(errors)
    table = _table(table_source)
    handout = (f"The handout ({table_source.handout_name})"
               if isinstance(table_source, Assignment) else "The handout")
    lines = solution_text.splitlines(keepends=True)
    out: list[str] = []
    position = 0
    for fence in outer_fences(solution_text):
        out.extend(lines[position:fence.begin])
        begin_line = lines[fence.begin]
        newline = "\r\n" if begin_line.endswith("\r\n") else "\n"
        out.append(begin_line if begin_line.endswith(("\n", "\r")) else begin_line + newline)
        out.extend(_stub(fence, table, newline, _region_clause(lines, fence)))
        out.append(lines[fence.end])
        position = fence.end + 1
    out.extend(lines[position:])
    return _adjust_docstring("".join(out), handout)


# ---------------------------------------------------------------------------
# The handout's points table
# ---------------------------------------------------------------------------

def _points(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|")


def points_table(assignment: Assignment) -> str:
    """The Markdown points table of ASSIGNMENT: one row per problem, stage subtotals, total."""
    source = relative(assignment.root / "assignment.toml")
    rows = [
        f"<!-- Generated from {source} by `{BUILD_COMMAND}`: edit the table there, not here. -->",
        "",
        "| Problem | Stage | Title | Functions | Points |",
        "|--:|--:|---|---|--:|",
    ]
    stage_titles = {stage.number: stage.title for stage in assignment.stages}
    stage_numbers = sorted(set(stage_titles) | {p.stage for p in assignment.problems})
    for stage in stage_numbers:
        problems = sorted(assignment.stage_problems(stage), key=lambda p: p.number)
        for p in problems:
            functions = ", ".join(f"`{name}`" for name in p.functions)
            rows.append(f"| {p.number} | {p.stage} | {_cell(p.title)} | {functions} | {_points(p.points)} |")
        title = stage_titles.get(stage, "")
        label = f"Stage {stage} subtotal" + (f": {_cell(title)}" if title else "")
        if assignment.is_optional(stage):
            label += " (optional, graded on its own, not in the total)"
        rows.append(f"| | | **{label}** | | **{_points(assignment.stage_points(stage))}** |")
    rows.append(f"| | | **Total** | | **{_points(assignment.total_points)}** |")
    return "\n".join(rows)


def update_handout(handout_text: str, table: str) -> str:
    """Return HANDOUT_TEXT with TABLE between the points-table markers (ValueError if they are missing)."""
    begins, ends = handout_text.count(TABLE_BEGIN), handout_text.count(TABLE_END)
    if begins != 1 or ends != 1:
        raise ValueError(f"needs exactly one {TABLE_BEGIN} and one {TABLE_END} line "
                         f"(found {begins} and {ends})")
    head, rest = handout_text.split(TABLE_BEGIN)
    if TABLE_END not in rest:
        raise ValueError(f"{TABLE_END} comes before {TABLE_BEGIN}")
    _, tail = rest.split(TABLE_END)
    return f"{head}{TABLE_BEGIN}\n{table}\n{TABLE_END}{tail}"


# ---------------------------------------------------------------------------
# The verb
# ---------------------------------------------------------------------------

def _plan(assignment: Assignment) -> tuple[list[tuple[Path, str | bytes, str]], list[str]]:
    """The files ASSIGNMENT should have: [(path, wanted text, what it is made from)], problems."""
    solution_name = relative(assignment.reference)
    text = assignment.reference.read_text(encoding="utf-8")
    targets: list[tuple[Path, str | bytes, str]] = [(assignment.solution, text, solution_name)]
    problems = [f"{solution_name}: {message}" for message in validate(text, assignment)]
    if not problems:
        targets.append((assignment.starter, generate_starter(text, assignment), solution_name))
        try:
            compile(targets[-1][1], relative(assignment.starter), "exec")
        except SyntaxError as err:
            problems.append(f"the generated {relative(assignment.starter)} would not compile "
                            f"(line {err.lineno}: {err.msg}): a fenced region of {solution_name} "
                            f"must hold whole statements, or start with an elif/else/except clause")
            targets.pop()
    handout = assignment.handout
    table_name = relative(assignment.root / "assignment.toml")
    if handout.is_file():             # no handout yet: no points table to keep (run() says so)
        try:
            wanted = update_handout(handout.read_text(encoding="utf-8"), points_table(assignment))
        except ValueError as err:
            problems.append(f"{relative(handout)}: {err}")
        else:
            wanted, found = promises.update(assignment, wanted)   # the promise table, from promises.toml
            problems.extend(found)
            targets.append((handout, wanted, f"the points table in {table_name}"))
    if not problems:
        problems += _sample_targets(assignment, targets)
    return targets, problems


def _sample_targets(assignment: Assignment, targets: list) -> list[str]:
    """Add the sample class's files to TARGETS (when samples.toml names a view); return problems."""
    from autograder.authoring import samples

    folder = samples.view(assignment)
    if folder is None:
        return []
    source = relative(assignment.samples)
    try:
        files = samples.sample_files(assignment)
    except (samples.SampleError, OSError) as err:
        return [f"{source}: {err}"]
    targets.extend((folder / path, content, source) for path, content in files.items())
    if folder.is_dir():
        wanted = {folder / path for path in files}
        return [f"{relative(path)} is not a sample of {source}: delete it, or add it there"
                for path in sorted(folder.rglob("*")) if path.is_file() and path not in wanted]
    return []


def _assignments(names: Iterable[str] | None) -> list[Assignment]:
    chosen = []
    for name in (available() if names is None else names):
        assignment = load_assignment(name)
        if names is not None or assignment.reference.is_file():
            chosen.append(assignment)
    return chosen


def build_command(assignment: Assignment) -> str:
    """The command that rebuilds ASSIGNMENT's files (one found outside the package: by its path)."""
    if extra_folders().get(assignment.name) != assignment.root:
        return BUILD_COMMAND
    return f"{BUILD_COMMAND} {relative(assignment.root)}"


def build_files(check: bool = False, names: Iterable[str] | None = None,
                assignments: Iterable[Assignment] | None = None) -> tuple[list[str], list[Path]]:
    """Build (or check) ASSIGNMENTS (default: NAMES, default: every assignment with a reference.py).

    Returns (problems, paths written).
    """
    chosen = list(assignments) if assignments is not None else _assignments(names)
    problems: list[str] = []
    written: list[Path] = []
    for assignment in chosen:
        if not assignment.reference.is_file():
            problems.append(f"{assignment.name}: the reference {relative(assignment.reference)} does not exist")
            continue
        targets, found = _plan(assignment)
        problems.extend(found)
        for path, wanted, source in targets:
            binary = isinstance(wanted, bytes)
            current = (path.read_bytes() if binary else path.read_text(encoding="utf-8")) \
                if path.is_file() else None
            if current == wanted:
                continue
            if check:
                state = f"is missing (it is made from {source})" if current is None \
                    else f"is out of date with {source}"
                problems.append(f"{relative(path)} {state}: run `{build_command(assignment)}`")
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                if binary:
                    path.write_bytes(wanted)
                else:
                    with open(path, "w", encoding="utf-8", newline="") as handle:
                        handle.write(wanted)
                written.append(path)
    return problems, written


def build(check: bool = False, names: Iterable[str] | None = None,
          assignments: Iterable[Assignment] | None = None) -> list[str]:
    """Generate every starter and handout points table; return the problems found.

    With check=True nothing is written, and each out-of-date file is one problem.
    """
    return build_files(check, names, assignments)[0]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of the `build` verb."""
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 if a generated file is out of date or a fence is wrong")
    parser.add_argument("assignment", nargs="*",
                        help="assignments to build (default: every one with a reference.py)")


def run(args: argparse.Namespace) -> int:
    """The `build` verb: 0 when all is up to date (or written), 1 on problems, 2 on bad usage."""
    refusal = needs_repository("`build` (the generated solution/, starter/ and samples views)")
    if refusal:
        print(f"error: {refusal}", file=sys.stderr)
        return 2
    try:
        problems, written = build_files(args.check, args.assignment or None)
    except KeyError as err:
        print(f"error: {err.args[0]}", file=sys.stderr)
        return 2
    for path in written:
        print(f"wrote {relative(path)}")
    for assignment in _assignments(args.assignment or None):
        if not assignment.handout.is_file():
            print(f"note: {relative(assignment.handout)} does not exist, so it has no points table to "
                  f"update (give it a {TABLE_BEGIN} / {TABLE_END} pair)")
    return report(problems, written, args.check, "generated files are up to date")


def report(problems: list[str], written: list[Path], check: bool, up_to_date: str) -> int:
    """Print what a generator found (drift, bad fences) and return its exit status."""
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        return 1
    if check or not written:
        print(up_to_date)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m autograder build",
        description="Generate solution/, starter/, sample classes and handout points tables from the references.")
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
