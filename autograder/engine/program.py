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

from . import bounds
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
                 hidden_paths: list[str] | None = None, cache: bool = False, label: str = "your program"):
        self.source = source
        self.filename = filename
        self.label = label
        self.limits = limits or default_limits()
        self._sandbox = Sandbox(source, filename, self.limits, hidden_paths=hidden_paths)
        self._cache: dict[str, Outcome] | None = {} if cache else None
        self.functions = top_level_functions(source)
        self.runs = 0
        self.chosen_texts: set[str] = set()   # names and texts the program chose (hidden feedback must not show them)
        self.attempts: dict[str, None] = {}    # what the code tried beyond the assignment, in order seen

    def run(self, request: Request) -> Outcome:
        key = None
        if self._cache is not None:
            key = json.dumps(request.__dict__, sort_keys=True, default=str)
            if key in self._cache:
                return self._cache[key]
        self.runs += 1
        outcome = self._sandbox.run(request)
        if outcome.status != "ok" and len(self.chosen_texts) < 1000:
            self.chosen_texts.update(chosen_texts(outcome))
        for attempt in outcome.attempts:
            if len(self.attempts) < 20:
                self.attempts.setdefault(attempt, None)
        if key is not None:
            self._cache[key] = outcome
        return outcome

    def call(self, func: str, *args: Any, stdin: list[str] | None = None, seed: int | None = None,
             dice: list[int] | None = None, fresh: bool | None = None, timeout: float | None = None,
             **kwargs: Any) -> Outcome:
        """Call FUNC(*args, **kwargs) in the sandbox.  Calls with input or dice get a fresh process."""
        if fresh is None:
            fresh = stdin is not None or seed is not None or dice is not None
        return self.run(Request("call", func, list(args), kwargs, stdin, seed, dice, fresh, timeout))

    def script(self, stdin: list[str] | None = None, seed: int | None = None, dice: list[int] | None = None,
               timeout: float | None = None) -> Outcome:
        """Run the whole file as `python FILE` would, with scripted stdin."""
        return self.run(Request("script", None, [], {}, stdin, seed, dice, True, timeout))

    def close(self) -> None:
        self._sandbox.close()

    def derived(self, extra_source: str, limits: Limits) -> Program:
        """A new Program: this source with EXTRA_SOURCE appended (grader-written code that runs in
        the same sandbox, e.g. a driver batching many calls), behind the same hidden paths."""
        return Program(self.source + extra_source, self.filename, limits=limits,
                       hidden_paths=list(self._sandbox.hidden_paths), label=self.label)


def chosen_texts(outcome: Outcome) -> set[str]:
    """The strings of OUTCOME that the student's program picked: a non-builtin exception type name,
    an exception message, an exit argument (4+ characters: shorter ones match ordinary words)."""
    error = outcome.error or {}
    found = set()
    kind = error.get("type")
    if isinstance(kind, str) and kind not in bounds.BUILTIN_EXCEPTIONS and len(kind) >= 2:
        found.add(kind)
    for key in ("message",):
        text = error.get(key)
        if isinstance(text, str) and len(text.strip()) >= 4:
            found.add(text.strip()[:200])
    return found


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
