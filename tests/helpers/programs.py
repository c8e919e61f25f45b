"""Programs made or read by the tests: a file loaded as a module, a do-nothing variant of a
starter, a transcript read in order.  (Mutants and samples are edits of the reference:
autograder.authoring.edits.apply_edits, the kit's own.)"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path
from types import ModuleType

from autograder.assignment import load_assignment


def load(path: Path, name: str) -> ModuleType:
    """The Python file PATH imported as a fresh module called NAME (not put in sys.modules)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def do_nothing(assignment: str, body: str) -> str:
    """ASSIGNMENT's starter with the body of every function of its problem table replaced by the
    one statement BODY (a docstring kept): made from the starter, so it never drifts."""
    spec = load_assignment(assignment)
    names = {f for p in spec.problems for f in p.functions}
    source = spec.starter.read_text(encoding="utf-8")
    lines = source.split("\n")
    defs = [n for n in ast.parse(source).body if isinstance(n, ast.FunctionDef) and n.name in names]
    for node in sorted(defs, key=lambda n: -n.lineno):
        first = node.body[0]
        docstring = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
        start = first.end_lineno if docstring and len(node.body) > 1 else first.lineno - 1
        lines[start:node.end_lineno] = ["    " + body]
    return "\n".join(lines)


def assert_printed_in_order(shown: list[str], printed: list[str]) -> None:
    """Every line of SHOWN (a handout's sample, lines cut as `...` removed) is a line of PRINTED,
    in the same order."""
    position = 0
    for line in shown:
        assert line in printed[position:], f"{line!r} is not printed (in this order) by the reference"
        position = printed.index(line, position) + 1
