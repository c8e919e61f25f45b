"""charge._definitions and charge.written (pass 21): the function definitions found by a walk over
the statements alone are ast.walk's, name for name, node for node, in its order (a later definition
of a name replaces the earlier in its place); written() answers as the walk over every node did."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from autograder.engine import charge

ROOT = Path(__file__).resolve().parents[1]

EVERY_KIND = textwrap.dedent("""
    import x

    @dec(lambda: 1)
    def a():
        def inner():
            pass
        class K:
            def m(self):
                pass
            def a(self):
                raise NotImplementedError
        return inner

    if x:
        def b():
            return 1
    elif y:
        def b2():
            ...
    else:
        def c():
            return []

    try:
        def d():
            return x + 1
    except E as e:
        def e1():
            "doc"
            pass
    else:
        def g():
            return {}
    finally:
        def h():
            return None

    try:
        pass
    except* F:
        def f():
            return f(1)

    for i in y:
        def k():
            return i
    else:
        def l():
            return (1, 2)

    while z:
        def mm():
            x = NotImplementedError
            return x
    with q as r, s:
        async def n():
            return await r

    match v:
        case 1:
            def o():
                return 2 * 3
        case _:
            def a():
                y = [lambda: 0 for _ in ()]
                return y

    class C:
        x = 1
        def inner(self, arg=NotImplementedError):
            return arg
        class D:
            async def deep(self):
                return {1: 2}
""")


def _walked(source: str) -> dict | None:
    """What _definitions gave before pass 21: ast.walk over every node."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return {node.name: node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}


def _written(source: str, functions) -> bool:
    """written() as it was before pass 21 (each function read again at every call)."""
    found = _walked(source)
    if found is None:
        return False
    for name in functions:
        node = found.get(name)
        if node is None:
            return False
        body = [n for n in node.body if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))]
        if len(body) <= 1 and (not body or isinstance(body[0], (ast.Pass, ast.Raise)) or (
                isinstance(body[0], ast.Return) and (body[0].value is None or isinstance(
                    body[0].value, (ast.Constant, ast.List, ast.Dict, ast.Tuple, ast.Set))))):
            return False
        if any(isinstance(n, ast.Name) and n.id == "NotImplementedError" for n in ast.walk(node)):
            return False
    return True


def _spans(found: dict | None) -> list | None:
    return None if found is None else [(name, type(node).__name__, node.lineno, node.col_offset, node.end_lineno)
                                       for name, node in found.items()]


def _sources() -> list[Path]:
    folders = [ROOT / "autograder" / "assignments", ROOT / "samples", ROOT / "solution", ROOT / "starter",
               ROOT / "tests" / "corpus", ROOT / "tests" / "hostile_courses"]
    return sorted(p for folder in folders for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


def test_every_kind_of_statement_gives_the_walks_definitions_in_its_order():
    found = charge._definitions(EVERY_KIND)
    assert _spans(found) == _spans(_walked(EVERY_KIND))
    assert list(found)[0] == "a" and found["a"].lineno > found["b"].lineno    # the match case's a(), in the first's place
    assert {"inner", "m", "e1", "f", "o", "deep", "n"} <= set(found)      # nested, in handlers, cases, classes
    for name in [*found, "missing"]:
        assert charge.written(EVERY_KIND, [name]) == _written(EVERY_KIND, [name]), name
    assert charge.written(EVERY_KIND, list(found)) == _written(EVERY_KIND, list(found))
    assert charge.written(EVERY_KIND, []) is True
    assert charge._definitions("def broken(:\n") is None and charge.written("def broken(:\n", []) is False


@pytest.mark.parametrize("path", _sources(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_the_repositorys_programs_give_the_walks_definitions_and_written(path):
    source = path.read_text(encoding="utf-8")
    found = charge._definitions(source)
    assert _spans(found) == _spans(_walked(source))
    names = list(found or ())
    for group in [[name] for name in names] + [names, names[:3] + ["missing"]]:
        assert charge.written(source, group) == _written(source, group), group
