"""What the grader reads of a program's source without running it: the reference without the
definitions a substitution grades (what a variant's sandbox holds), and a source's top-level
functions.  Parsed here, in the grader, never executed (docs/threat-model.md)."""

from __future__ import annotations

import ast
import functools


def reference_without(source: str, names: tuple[str, ...] | list[str]) -> str:
    """SOURCE without its top-level definitions of NAMES (line for line, decorators included), and
    without the methods named "Class.method" from their class's body (a `pass` stands in for a
    body left empty): what a substitution sandbox may hold while the student's NAMES are graded."""
    return _reference_without(source, tuple(names))


_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


@functools.lru_cache(maxsize=64)
def _reference_without(source: str, names: tuple[str, ...]) -> str:
    """(Cached: the same few texts for every student; parsing the reference is ~4 ms.)"""
    tree = _parsed(source)
    lines = source.splitlines(keepends=True)
    methods: dict[str, set[str]] = {}
    for name in names:
        owner, dot, method = name.partition(".")
        if dot:
            methods.setdefault(owner, set()).add(method)
    drop: list[tuple[int, int, str]] = []         # (first line, last line, what stands in for them)
    for node in tree.body:
        if isinstance(node, _DEFINITIONS) and node.name in names:
            drop.append((_first_line(node), node.end_lineno or node.lineno, ""))
        elif isinstance(node, ast.ClassDef) and node.name in methods:
            gone = [n for n in node.body if isinstance(n, _DEFINITIONS) and n.name in methods[node.name]]
            left = [n for n in node.body if n not in gone]
            for n in gone:
                stand_in = " " * n.col_offset + "pass\n" if not left and n is gone[0] else ""
                drop.append((_first_line(n), n.end_lineno or n.lineno, stand_in))
    for start, end, stand_in in sorted(drop, reverse=True):
        lines[start:end] = [stand_in] if stand_in else []
    return "".join(lines)


@functools.lru_cache(maxsize=4)
def _parsed(source: str) -> ast.Module:
    """SOURCE's tree, parsed once for all its stages' reference_without (read, never changed:
    ~5 ms each of a cold `grade`'s four).  Parsed again when CPython (3.11.7 here) raised SystemError
    ("AST constructor recursion depth mismatch", gh-106905: its depth counter is shared by threads,
    and the plan's thread makes the first variant while pytest's collection parses the suites)."""
    for _ in range(3):
        try:
            return ast.parse(source)
        except SystemError:
            continue
    return ast.parse(source)


def _first_line(node: ast.AST) -> int:
    """The 0-based index of NODE's first line, its decorators included."""
    return min([d.lineno for d in getattr(node, "decorator_list", [])] + [node.lineno]) - 1


def top_level_functions(source: str) -> set[str]:
    """Names of the functions the source defines at top level (empty when it does not parse)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):    # nested too deeply: the sandbox says so
        return set()
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
    return names


def callees(source: str, names: tuple[str, ...] | list[str], among: frozenset[str] | set[str]) -> set[str]:
    """NAMES and every function of AMONG that one of them calls in SOURCE (the reference), through
    any other top-level function (a final score calling the upper bonus; methods by bare name)."""
    return set(_callees(source, tuple(sorted(names)), frozenset(among)))


@functools.lru_cache(maxsize=64)
def _callees(source: str, names: tuple[str, ...], among: frozenset[str]) -> frozenset[str]:
    calls: dict[str, set[str]] = {}
    for node in ast.walk(_parsed(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            calls.setdefault(node.name, set()).update(
                call.func.id if isinstance(call.func, ast.Name) else call.func.attr
                for call in ast.walk(node) if isinstance(call, ast.Call)
                and isinstance(call.func, (ast.Name, ast.Attribute)))
    found, todo = set(names), [n.rsplit(".", 1)[-1] for n in names]
    while todo:
        for called in calls.get(todo.pop(), ()):
            if called not in found:
                found.add(called)
                todo.append(called)
    bare = {name.rsplit(".", 1)[-1]: name for name in among}
    return frozenset(set(names) | {bare[name] for name in found if name in bare})
