"""A notebook's code cells -> the Python source a module needs, and notes on what was skipped.

Nothing here runs student code: the notebook is read as JSON and its cells filtered with ast.
Also the loader's two errors (engine/submission.py re-exports them): most are a notebook's.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field


class SubmissionError(Exception):
    """The submission cannot be graded at all; the message says why in plain words."""


class NotASubmission(SubmissionError):
    """PATH is not something to grade (missing, not .py/.ipynb, no or several candidate files).

    The CLI treats it as bad usage (exit 2); a batch records it as the student's error."""


# --- notebooks ------------------------------------------------------------------------------
#
# A notebook is graded like a .py file made of its code cells: what the grader keeps is what a
# module needs (imports, constant assignments, functions and classes), and what it skips is code
# that runs something at the top level (a game, a test, a prompt).  Cells may be deleted,
# reordered, duplicated or renamed: functions are looked up when called, imports and constants
# come first whatever the cell order, and of several definitions of one name the last one that is
# not a stub wins.  The public test cells of the kit's notebooks (nbgrader grade cells) are the
# notebook's own business and are left out.  A top-level `NAME = call(...)` is module state (an
# object of the notebook's own class, a scorecard from its own function): kept, after the
# definitions, when every call in it is of a function or class the notebook defines that cannot
# reach a prompt (a class: through what constructing it runs), inside try/except as a failing
# Jupyter cell leaves the name undefined; any other call (open(...), input(), a game) is skipped.

KEPT_NODES = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
SAFE_CALLS = {"list", "tuple", "set", "frozenset", "dict", "range", "sorted", "len", "str", "int",
              "float", "bool", "min", "max", "sum", "zip", "enumerate", "reversed"}
TYPE_FACTORIES = {"namedtuple"}       # NAME = namedtuple(...) (or collections.namedtuple) defines a type
# Calls that ask for input in any program; the notebook's own functions that (transitively) call
# one of them, and the assignment's entry point, are added per notebook.
PROMPTING = frozenset({"input", "main"})


@dataclass
class _Piece:
    kind: str                         # "import" | "constant" | "definition" | "state" | "main"
    name: str
    code: str
    cell: int
    order: int
    stub: bool = False
    uses: set = field(default_factory=set)
    calls: set | None = None          # a definition's called names, when its code is its node's alone
    init_calls: set | None = None     # a class's: the names constructing it calls (its body, __init__ ...)


def notebook_source(text: str, entry: str | None = None) -> tuple[str, list[str]]:
    """Definitions, imports and constants from a notebook's code cells, and notes on what was skipped.

    Raises SubmissionError when the notebook cannot be read or defines nothing.
    """
    cells = _notebook_cells(text)
    notes: list[str] = []
    pieces: list[_Piece] = []
    skipped: list[_Skipped] = []
    code_cells = 0
    test_cells = 0
    for number, cell in enumerate(cells, 1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        code_cells += 1
        meta = cell.get("metadata") if isinstance(cell.get("metadata"), dict) else {}
        nbgrader = meta.get("nbgrader") if isinstance(meta.get("nbgrader"), dict) else {}
        if nbgrader.get("grade") and not nbgrader.get("solution"):
            test_cells += 1
            continue
        source = _cell_text(cell.get("source", cell.get("input", "")))
        if source.lstrip().startswith("%%"):
            magic = source.lstrip().splitlines()[0]
            notes.append(f"cell {number} starts with the cell magic `{magic[:40]}`, so it is not Python; it was skipped")
            continue
        source = _drop_ipython_lines(source)
        for tree, chunk, error in _parse_blocks(source):
            if error is not None:
                notes.append(f"cell {number} has a syntax error (line {error.lineno}: {error.msg}); "
                             "that part of the cell was skipped")
                continue
            _collect(tree, chunk, number, pieces, notes, skipped)
    prompting = _prompting(pieces, PROMPTING | ({entry} if entry else set()))
    for item in skipped:
        notes[item.note] = item.text(prompting)
    _keep_state(pieces, prompting, notes)
    if code_cells == 0:
        raise SubmissionError("the notebook has no code cells (is it the right file?)")
    if not any(p.kind == "definition" for p in pieces):
        raise SubmissionError("the notebook defines no functions (is it empty, or the blank notebook "
                              "you were given?)")
    return _assemble(pieces, notes) + _main_guard(pieces, entry), notes


def _keep_state(pieces: list[_Piece], prompting: set[str], notes: list[str]) -> None:
    """Keep each top-level state assignment whose calls are all the notebook's own non-prompting
    functions and classes (or SAFE_CALLS); drop the others with the note other skipped code gets."""
    own = {p.name: p for p in pieces if p.kind == "definition"}

    def harmless(name: str) -> bool:
        if name in SAFE_CALLS:
            return True
        piece = own.get(name)
        if piece is None:
            return False
        if piece.init_calls is not None:            # a class: what constructing it runs
            return not (piece.init_calls & prompting)
        return name not in prompting

    for piece in [p for p in pieces if p.kind == "state"]:
        if piece.calls and all(harmless(name) for name in piece.calls):
            continue
        pieces.remove(piece)
        asks = {name for name in piece.calls if name in prompting and not (
            name in own and own[name].init_calls is not None and not (own[name].init_calls & prompting))}
        why = (" (it would ask for input; the grader plays your functions itself)" if asks
               else " (the grader only keeps definitions, imports, constants and objects of your own classes)")
        notes.append(f"cell {piece.cell}: skipped top-level code `{piece.code.splitlines()[0][:60]}`{why}")


def _main_guard(pieces: list[_Piece], entry: str | None) -> str:
    """What the notebook does run as a program (`python FILE`, a suite's script check), only when
    it defines the assignment's ENTRY ("function" or "Class.method"): its own last
    `if __name__ == "__main__":` block that plays the entry, as the same code in a .py would
    (one may read the rounds and the seed first); otherwise a call of the entry, as the
    handout's main guard does.  Other such blocks are a notebook's check cells (in a kernel
    __name__ is "__main__"; the kit's own notebooks have some): not the program.  Imported (every
    call the grader makes), either runs nothing."""
    defined = {p.name for p in pieces if p.kind == "definition"}
    owner, _, method = (entry or "").rpartition(".")
    if not entry or (owner or method) not in defined or not all(part.isidentifier() for part in entry.split(".")):
        return ""
    own = [p for p in pieces if p.kind == "main" and {owner, method} & p.calls]
    if own:
        return f"\n\n# --- notebook cell {own[-1].cell}: its own main guard ---\n{own[-1].code}\n"
    call = f"{owner}().{method}()" if owner else f"{method}()"
    return f'\n\nif __name__ == "__main__":     # added by the grader: the notebook run as a program\n    {call}\n'


def notebook_stage(text: str) -> int | None:
    """The stage a kit notebook belongs to (its metadata), or None."""
    return _stage(_kit_metadata(text))


def notebook_course(text: str) -> str | None:
    """The assignment a kit notebook belongs to (its metadata), or None."""
    return _course(_kit_metadata(text))


def _kit_metadata(text: str) -> dict:
    """The notebook's metadata["autograder"] (the kit's own key), or {} when there is none."""
    try:
        meta = json.loads(text).get("metadata", {}).get("autograder", {})
    except (ValueError, AttributeError, RecursionError, MemoryError):
        return {}
    return meta if isinstance(meta, dict) else {}


def _stage(meta: dict) -> int | None:
    stage = meta.get("stage")
    return stage if isinstance(stage, int) and not isinstance(stage, bool) else None


def _course(meta: dict) -> str | None:
    course = meta.get("assignment")
    return course if isinstance(course, str) else None


def _notebook_cells(text: str) -> list:
    if not text.strip():
        raise SubmissionError("the notebook file is empty (0 bytes of JSON); save it in Jupyter and submit again")
    try:
        nb = json.loads(text)
    except (RecursionError, MemoryError):
        raise SubmissionError("the notebook's JSON is nested too deeply to be a Jupyter notebook; "
                              "open it in Jupyter, save it, and submit again") from None
    except ValueError as err:
        where = f"line {err.lineno}, column {err.colno}: {err.msg}" if hasattr(err, "lineno") else str(err)
        raise SubmissionError(
            f"the notebook is not valid .ipynb JSON ({where}); the file is corrupt or cut short. "
            "Open it in Jupyter (or download it again), save it, and submit again") from None
    if not isinstance(nb, dict):
        raise SubmissionError("the file is not a Jupyter notebook (its JSON is not an object with cells)")
    cells = nb.get("cells")
    if cells is None and isinstance(nb.get("worksheets"), list):            # nbformat 3
        cells = [cell for sheet in nb["worksheets"] if isinstance(sheet, dict)
                 for cell in sheet.get("cells", [])]
    if not isinstance(cells, list):
        raise SubmissionError("the file is not a Jupyter notebook (it has no list of cells)")
    return cells


def _cell_text(source: object) -> str:
    """A cell's source as nbformat has it (a str, or a list of str); what is neither (a number, a
    dict, a list holding other things: a file that only says it is a notebook) counts as no text."""
    if isinstance(source, str):
        return source
    if isinstance(source, list):
        return "".join(line for line in source if isinstance(line, str))
    return ""


def _drop_ipython_lines(source: str) -> str:
    """Blank out IPython-only lines (%magic, !shell, `name?` help) so the rest parses as Python."""
    lines = []
    for line in source.splitlines():
        stripped = line.strip()
        if stripped.startswith(("%", "!")) or (stripped.endswith("?") and stripped[:-1].replace(".", "").isidentifier()):
            lines.append("")
        else:
            lines.append(line)
    return "\n".join(lines)


def _parse_blocks(source: str):
    """Yield (tree, source, None) for the cell, or, when it has a syntax error, for each top-level
    block that parses on its own (and (None, block, error) for the others)."""
    try:
        yield ast.parse(source), source, None
        return
    except (RecursionError, MemoryError):        # nested too deeply for Python's own parser
        yield None, source, SyntaxError("the code is nested too deeply to be read", ("<cell>", 1, 0, ""))
        return
    except SyntaxError:
        pass
    lines = source.splitlines()
    starts = [i for i, line in enumerate(lines)
              if line and not line[0].isspace() and not line.startswith(("#", ")", "]", "}"))
              and not (i > 0 and lines[i - 1].startswith("@"))]
    if not starts or starts[0] != 0:
        starts = [0] + starts
    bounds = list(zip(starts, starts[1:] + [len(lines)]))
    for begin, end in bounds:
        block = "\n".join(lines[begin:end])
        if not block.strip():
            continue
        try:
            yield ast.parse(block), block, None
        except (RecursionError, MemoryError):
            yield None, block, SyntaxError("the code is nested too deeply to be read", ("<cell>", begin + 1, 0, ""))
        except SyntaxError as err:
            err.lineno = (err.lineno or 1) + begin
            yield None, block, err


@dataclass
class _Skipped:
    """A cell's skipped top-level code; its note is written once every cell's functions are known."""
    note: int                         # its place in the notes
    cell: int
    what: list[str]
    called: set

    def text(self, prompting: set[str]) -> str:
        what = f"`{self.what[0]}`" + (f" and {len(self.what) - 1} more statement(s)" if len(self.what) > 1 else "")
        why = (" (it would ask for input; the grader plays your functions itself)" if self.called & prompting
               else " (the grader only keeps definitions, imports and constants)")
        return f"cell {self.cell}: skipped top-level code {what}{why}"


def _prompting(pieces: list[_Piece], base: set[str]) -> set[str]:
    """BASE and every function the notebook defines that calls one of them, directly or not."""
    calls: dict[str, set[str]] = {}
    for piece in pieces:
        if piece.kind == "definition":
            if piece.calls is not None:             # (read from its node already: _collect)
                calls.setdefault(piece.name, set()).update(piece.calls)
                continue
            try:
                tree = ast.parse(piece.code)
            except (SyntaxError, RecursionError, MemoryError, ValueError):
                continue
            calls.setdefault(piece.name, set()).update(
                _call_name(n) for n in ast.walk(tree) if isinstance(n, ast.Call))
    prompting = set(base)
    grown = True
    while grown:
        grown = False
        for name, called in calls.items():
            if name not in prompting and called & prompting:
                prompting.add(name)
                grown = True
    return prompting


# A line and its end as ast.get_source_segment splits a source: only \r\n, \r and \n end a line.
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def _segments(source: str):
    """ast.get_source_segment(SOURCE, node) for many nodes, SOURCE split into lines once (the
    stdlib splits the whole source again, a character at a time in Python, for every node: a
    notebook cell of N statements cost O(N * its length))."""
    lines = _LINE.findall(source)

    def segment(node: ast.AST) -> str | None:
        try:
            if node.end_lineno is None or node.end_col_offset is None:
                return None
            first, last = node.lineno - 1, node.end_lineno - 1
            start, end = node.col_offset, node.end_col_offset
        except AttributeError:
            return None
        if first == last:
            return lines[first].encode()[start:end].decode()
        return "".join([lines[first].encode()[start:].decode(), *lines[first + 1:last],
                        lines[last].encode()[:end].decode()])

    return segment


def _collect(tree: ast.Module, source: str, cell: int, pieces: list[_Piece], notes: list[str],
             pending: list[_Skipped]) -> None:
    skipped: list[str] = []
    called: set[str] = set()
    segment = _segments(source)
    for node in tree.body:
        code = segment(node) or ""
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            pieces.append(_Piece("import", code, code, cell, len(pieces)))
        elif isinstance(node, DEFINITIONS):
            code = _with_decorators(source, node, code)
            stub, calls = _stub_and_calls(node)
            # (a decorated one: read from its code, its decorators' lines and all, as before)
            pieces.append(_Piece("definition", node.name, code, cell, len(pieces), stub=stub,
                                 calls=None if getattr(node, "decorator_list", None) else calls,
                                 init_calls=_construction_calls(node)))
        elif _is_constant_assignment(node):
            names = {n.id for n in ast.walk(node.value) if isinstance(n, ast.Name)} if node.value else set()
            pieces.append(_Piece("constant", ",".join(_assigned_names(node) or ()), code, cell, len(pieces),
                                 uses=names))
        elif _is_state_assignment(node):
            names = {n.id for n in ast.walk(node.value) if isinstance(n, ast.Name)}
            calls = {_call_name(n) for n in ast.walk(node.value) if isinstance(n, ast.Call)}
            pieces.append(_Piece("state", ",".join(_assigned_names(node) or ()), code, cell, len(pieces),
                                 uses=names, calls=calls))
        elif _is_main_block(node):                  # kept only as the program's own main guard
            pieces.append(_Piece("main", "__main__", code, cell, len(pieces),
                                 calls={_call_name(n) for n in ast.walk(node) if isinstance(n, ast.Call)}))
        elif _is_harmless(node) or _is_play_guard(node):
            continue
        else:
            skipped.append(code.splitlines()[0][:60] if code else type(node).__name__)
            called |= {_call_name(n) for n in ast.walk(node) if isinstance(n, ast.Call)}
    if skipped:
        pending.append(_Skipped(len(notes), cell, skipped, called))
        notes.append("")


def _assemble(pieces: list[_Piece], notes: list[str]) -> str:
    chosen: dict[str, _Piece] = {}
    for piece in (p for p in pieces if p.kind == "definition"):
        earlier = chosen.get(piece.name)
        if earlier is not None and piece.stub and not earlier.stub:
            notes.append(f"cells {earlier.cell} and {piece.cell} both define {piece.name}; graded the one "
                         f"in cell {earlier.cell} (the one in cell {piece.cell} is not written yet)")
            continue
        if earlier is not None and earlier.cell != piece.cell:
            notes.append(f"cells {earlier.cell} and {piece.cell} both define {piece.name}; graded the one "
                         f"in cell {piece.cell}")
        chosen[piece.name] = piece
    defined = set(chosen)
    imports, seen = [], set()
    for piece in (p for p in pieces if p.kind == "import"):
        if piece.code not in seen:
            seen.add(piece.code)
            imports.append(piece)
    constants = [p for p in pieces if p.kind == "constant"]
    early = [p for p in constants if not (p.uses & defined)]
    late = [p for p in pieces if (p.kind == "constant" and p.uses & defined) or p.kind == "state"]
    definitions = sorted(chosen.values(), key=lambda p: p.order)
    parts = []
    cell = None
    for piece in imports + early + definitions + late:
        if piece.cell != cell:                   # where a traceback's line comes from
            parts.append(f"# --- notebook cell {piece.cell} ---")
            cell = piece.cell
        parts.append(_guarded(piece.code) if piece.kind == "state" else piece.code)
    return "\n\n".join(parts) + "\n"


def _guarded(code: str) -> str:
    """A state assignment as a cell of its own would run: an error leaves its name undefined."""
    body = "\n".join("    " + line for line in code.splitlines())
    return f"try:\n{body}\nexcept Exception:     # (added by the grader: a failing cell defines nothing)\n    pass"


def _with_decorators(source: str, node: ast.AST, code: str) -> str:
    decorators = getattr(node, "decorator_list", [])
    if not decorators:
        return code
    lines = source.splitlines()
    first = min(d.lineno for d in decorators) - 1
    return "\n".join(lines[first:node.end_lineno])


def _stub_and_calls(node: ast.AST) -> tuple[bool, set[str]]:
    """Whether the function NODE still raises NotImplementedError somewhere (a stub: not yet
    written), and the names it calls (as _prompting reads them), in one walk of it (they were
    two walks, and a parse of its code again: ~2 of a notebook's ~4.3 ms)."""
    stub, calls = False, set()
    for child in ast.walk(node):
        if isinstance(child, ast.Call):
            calls.add(_call_name(child))
        elif not stub and isinstance(child, ast.Raise) and child.exc is not None:
            exc = child.exc.func if isinstance(child.exc, ast.Call) else child.exc
            stub = isinstance(exc, ast.Name) and exc.id == "NotImplementedError"
    return stub, calls


def _call_name(node: ast.Call) -> str:
    func = node.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def _is_constant_assignment(node: ast.AST) -> bool:
    """NAME = <an expression without calls (save list(), range() and such)>: module constants."""
    if not isinstance(node, (ast.Assign, ast.AnnAssign)) or _assigned_names(node) is None or node.value is None:
        return False
    for child in ast.walk(node.value):
        if isinstance(child, (ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr)):
            return False
        if isinstance(child, ast.Call) and not (isinstance(child.func, ast.Name) and child.func.id in SAFE_CALLS) \
                and _call_name(child) not in TYPE_FACTORIES:
            return False
    return True


def _assigned_names(node: ast.Assign | ast.AnnAssign) -> list[str] | None:
    """The names an assignment binds when it binds only names, unpacking included
    (`ONES, TWOS = range(2)`, `a, *rest = ...`); None when it sets an attribute or an item."""
    names: list[str] = []

    def bind(target: ast.AST) -> bool:
        if isinstance(target, ast.Name):
            names.append(target.id)
            return True
        if isinstance(target, ast.Starred):
            return bind(target.value)
        if isinstance(target, (ast.Tuple, ast.List)):
            return all(bind(t) for t in target.elts)
        return False

    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    return names if all(bind(t) for t in targets) else None


def _is_state_assignment(node: ast.AST) -> bool:
    """NAME = <an expression with a call> (not a constant): module state built at the top level."""
    return (isinstance(node, ast.Assign) and _assigned_names(node) is not None
            and any(isinstance(n, ast.Call) for n in ast.walk(node.value))
            and not any(isinstance(n, (ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr, ast.Lambda))
                        for n in ast.walk(node.value)))


def _construction_calls(node: ast.AST) -> set[str] | None:
    """For a class: the names its body and __init__/__new__/__post_init__ call (what constructing
    it runs, its other methods aside); None for a function (its calls are its own)."""
    if not isinstance(node, ast.ClassDef):
        return None
    calls: set[str] = set()
    for item in node.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if item.name not in ("__init__", "__new__", "__post_init__"):
                calls.update(_call_name(d) for d in item.decorator_list if isinstance(d, ast.Call))
                continue
        calls.update(_call_name(n) for n in ast.walk(item) if isinstance(n, ast.Call))
    return calls


def _is_harmless(node: ast.AST) -> bool:
    """Bare expressions without calls (a docstring, a variable shown) and `pass` need no note."""
    if isinstance(node, ast.Pass):
        return True
    return isinstance(node, ast.Expr) and not any(isinstance(n, ast.Call) for n in ast.walk(node))


def _is_main_block(node: ast.AST) -> bool:
    """`if __name__ == "__main__":` without an else: what a program does when run as a script."""
    if not isinstance(node, ast.If) or node.orelse or not isinstance(node.test, ast.Compare):
        return False
    test = node.test
    return (isinstance(test.left, ast.Name) and test.left.id == "__name__" and len(test.ops) == 1
            and isinstance(test.ops[0], ast.Eq) and isinstance(test.comparators[0], ast.Constant)
            and test.comparators[0].value == "__main__")


def _is_play_guard(node: ast.AST) -> bool:
    """`if PLAY:` (the kit's play cell) and `if __name__ == "__main__":` never run when graded."""
    if not isinstance(node, ast.If):
        return False
    test = node.test
    if isinstance(test, ast.Name) and test.id.isupper():
        return True
    return (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "__name__")
