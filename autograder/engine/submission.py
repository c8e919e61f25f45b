"""Load a submission: a .py file, a folder holding one, or a Jupyter notebook -> Python source.

Nothing here runs student code; notebooks are read as JSON and filtered with ast.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass, field
from pathlib import Path


class SubmissionError(Exception):
    """The submission cannot be graded at all; the message says why in plain words."""


@dataclass
class Submission:
    path: Path
    source: str
    filename: str                     # the name tracebacks show, e.g. "yahtzee.py"
    kind: str = "py"                  # "py" | "ipynb"
    notes: list[str] = field(default_factory=list)


def load_submission(path: str | Path, expected_name: str = "yahtzee.py", entry: str | None = None) -> Submission:
    """Find and read the student's code at PATH; raise SubmissionError with a clear message."""
    path = Path(path)
    if not path.exists():
        raise SubmissionError(f"no such file or folder: {path}")
    if path.is_dir():
        path = _pick_file(path, expected_name, entry)
    suffix = path.suffix.lower()
    if suffix == ".ipynb":
        source, notes = notebook_source(_read_text(path))
        return Submission(path, source, expected_name, "ipynb", notes)
    if suffix != ".py":
        raise SubmissionError(f"{path.name} is not a Python file (.py) or a notebook (.ipynb)")
    source = _read_text(path)
    notes = []
    if path.name != expected_name:
        notes.append(f"graded {path.name} as {expected_name}")
    return Submission(path, source, expected_name, "py", notes)


def _read_text(path: Path) -> str:
    data = path.read_bytes()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        raise SubmissionError(
            f"{path.name} is not UTF-8 text (byte 0x{data[err.start]:02x} on line {line}); "
            "save it as UTF-8 and submit again"
        ) from None


def _pick_file(folder: Path, expected_name: str, entry: str | None) -> Path:
    candidates = sorted(p for p in folder.rglob("*") if p.suffix.lower() in (".py", ".ipynb")
                        and p.is_file() and ".ipynb_checkpoints" not in p.parts and "__MACOSX" not in p.parts)
    if not candidates:
        raise SubmissionError(f"no Python file (.py) or notebook (.ipynb) in {folder}")
    for candidate in candidates:
        if candidate.name == expected_name:
            return candidate
    if len(candidates) == 1:
        return candidates[0]
    if entry:
        defining = [p for p in candidates if p.suffix == ".py" and f"def {entry}" in p.read_text(errors="replace")]
        if len(defining) == 1:
            return defining[0]
    names = ", ".join(p.name for p in candidates[:10])
    raise SubmissionError(f"{folder} holds several files ({names}) and none is named {expected_name}")


# --- notebooks ------------------------------------------------------------------------------

KEPT_NODES = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def notebook_source(text: str) -> tuple[str, list[str]]:
    """Definitions and imports from a notebook's code cells, and notes on what was skipped.

    Cells may be deleted, reordered or duplicated: functions are looked up when called,
    so definition order does not matter, and a later duplicate simply wins.
    """
    try:
        nb = json.loads(text)
        cells = nb["cells"]
    except (ValueError, KeyError, TypeError):
        raise SubmissionError("the notebook is not valid .ipynb JSON (is it corrupt or empty?)") from None
    kept: list[str] = []
    notes: list[str] = []
    code_cells = 0
    for number, cell in enumerate(cells, 1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        code_cells += 1
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else str(source)
        source = "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines())
        try:
            tree = ast.parse(source)
        except SyntaxError as err:
            notes.append(f"cell {number} has a syntax error (line {err.lineno}: {err.msg}); it was skipped")
            continue
        for node in tree.body:
            if isinstance(node, KEPT_NODES) or _is_constant_assignment(node):
                kept.append(ast.get_source_segment(source, node) or "")
            elif not _is_harmless(node):
                snippet = (ast.get_source_segment(source, node) or "").splitlines()[0][:60]
                notes.append(f"cell {number}: skipped top-level code `{snippet}`")
    if code_cells == 0:
        raise SubmissionError("the notebook has no code cells")
    if not any(kept):
        raise SubmissionError("the notebook defines no functions (is it empty?)")
    return "\n\n".join(kept) + "\n", notes


def _is_constant_assignment(node: ast.AST) -> bool:
    """NAME = <literal or expression of literals/names>: module constants students rely on."""
    if not isinstance(node, (ast.Assign, ast.AnnAssign)):
        return False
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    if not all(isinstance(t, ast.Name) for t in targets) or node.value is None:
        return False
    return not any(isinstance(n, (ast.Call, ast.Await, ast.Yield, ast.NamedExpr)) for n in ast.walk(node.value))


def _is_harmless(node: ast.AST) -> bool:
    """Bare expressions without calls (a docstring, a variable shown) need no note."""
    return isinstance(node, ast.Expr) and not any(isinstance(n, ast.Call) for n in ast.walk(node))
