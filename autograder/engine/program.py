"""A Program is a submission (or the reference) behind a Sandbox, with the calls tests make.

Reference programs are shared and their outcomes cached: in a batch the reference runs
once per scenario, however many students are graded.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import os
from pathlib import Path
from typing import Any

from .sandbox import Limits, Outcome, Request, Sandbox

LIMITS_ENV = "AUTOGRADER_LIMITS"
DEFAULT_WALL_S = 2.0    # per call; the reference needs milliseconds (suites give games longer)


def default_limits() -> Limits:
    """Limits(), with the fields named in $AUTOGRADER_LIMITS overridden ("wall_s=1,memory_mb=256").

    Lets an operator (or the kit's own tests) tighten or loosen the limits of every Program a
    process makes, batch workers included (they inherit the environment)."""
    limits = Limits(wall_s=DEFAULT_WALL_S)
    text = os.environ.get(LIMITS_ENV, "").strip()
    if not text:
        return limits
    fields = {f.name: f for f in dataclasses.fields(Limits)}
    for item in text.split(","):
        name, _, value = item.partition("=")
        name = name.strip()
        if name not in fields or not value.strip():
            raise ValueError(f"{LIMITS_ENV}: expected NAME=VALUE items with NAME one of "
                             f"{', '.join(fields)}; got {item.strip()!r}")
        kind = float if name == "wall_s" else int
        try:
            setattr(limits, name, kind(value))
        except ValueError:
            raise ValueError(f"{LIMITS_ENV}: {name} must be a number, got {value.strip()!r}") from None
    return limits


class Program:
    def __init__(self, source: str, filename: str, *, limits: Limits | None = None,
                 hidden_paths: list[str] | None = None, cache: bool = False, label: str = "your program",
                 reference: str | None = None):
        self.source = source
        self.filename = filename
        self.label = label
        self.limits = limits or default_limits()
        self._sandbox = Sandbox(source, filename, self.limits, hidden_paths=hidden_paths, reference=reference)
        # Set by the grading plugin for each check: the reference's functions that replace the
        # student's in every call of that check ({"names", "keep"}; needs REFERENCE).
        self.substitute: dict | None = None
        self._cache: dict[str, Outcome] | None = {} if cache else None
        self.functions = top_level_functions(source)
        self.runs = 0

    def run(self, request: Request) -> Outcome:
        key = None
        if self._cache is not None:
            key = json.dumps(request.__dict__, sort_keys=True, default=str)
            if key in self._cache:
                return self._cache[key]
        self.runs += 1
        outcome = self._sandbox.run(request)
        if key is not None:
            self._cache[key] = outcome
        return outcome

    def call(self, func: str, *args: Any, stdin: list[str] | None = None, seed: int | None = None,
             dice: list[int] | None = None, fresh: bool | None = None, timeout: float | None = None,
             **kwargs: Any) -> Outcome:
        """Call FUNC(*args, **kwargs) in the sandbox.  Calls with input or dice get a fresh process."""
        if fresh is None:
            fresh = stdin is not None or seed is not None or dice is not None
        return self.run(Request("call", func, list(args), kwargs, stdin, seed, dice, fresh, timeout,
                                self.substitute))

    def script(self, stdin: list[str] | None = None, seed: int | None = None, dice: list[int] | None = None,
               timeout: float | None = None) -> Outcome:
        """Run the whole file as `python FILE` would, with scripted stdin."""
        return self.run(Request("script", None, [], {}, stdin, seed, dice, True, timeout))

    def close(self) -> None:
        self._sandbox.close()


def top_level_functions(source: str) -> set[str]:
    """Names of the functions the source defines at top level (empty when it does not parse)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
    return names


_REFERENCES: dict[tuple[str, float], Program] = {}


def reference_program(path: Path, filename: str, hidden_paths: list[str] | None = None,
                      limits: Limits | None = None) -> Program:
    """The shared, caching Program for the reference solution at PATH."""
    key = (str(path), path.stat().st_mtime)
    program = _REFERENCES.get(key)
    if program is None:
        program = Program(path.read_text(encoding="utf-8"), filename, limits=limits,
                          hidden_paths=hidden_paths, cache=True, label="the reference")
        _REFERENCES[key] = program
    return program


def close_references() -> None:
    for program in _REFERENCES.values():
        program.close()
    _REFERENCES.clear()
