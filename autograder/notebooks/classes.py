"""A class of the reference cut into a stage notebook's cells (a course whose problems are methods).

A stage-N notebook shows a class in two code cells:

* a locked, given cell ``class <Name>Base<bases>:`` with every method that is given at this
  stage (the toolkit methods such as ``__init__``, and the methods of earlier stages as the
  reference writes them), so the stage builds on working code nobody can edit by mistake;
* one answer cell ``class <Name>(<Name>Base):`` holding this stage's methods, each with its
  problem's region between ``### BEGIN SOLUTION`` / ``### END SOLUTION`` (nbgrader stubs the
  regions only: the ``def`` line and the docstring stay).

The real class name is the student's: the checks, the hidden grader (which reads the notebook's
classes like a .py file's) and nbgrader's test cells construct ``<Name>()`` and find the given
methods by inheritance.  A class with no method to write at a stage is one given cell under its
own name; a class with nothing given is one answer cell.  Which methods belong where is data
(the fences in the reference and the stages in assignment.toml): nothing here knows a course.
"""

from __future__ import annotations

from dataclasses import dataclass

from .solution import Piece, Solution

BASE_SUFFIX = "Base"


@dataclass
class ClassCells:
    """The code of a class's cells at one stage."""

    name: str
    given: str | None                   # the locked cell's code (None: nothing given)
    answer: str | None                  # the answer cell's code (None: nothing to write)
    base: str                           # the name the given cell defines

    @property
    def codes(self) -> list[str]:
        return [code for code in (self.given, self.answer) if code is not None]


def _body(pieces: list[Piece], docstring: str) -> str:
    parts = [docstring.rstrip("\n")] if docstring else []
    parts += [piece.code.rstrip("\n") for piece in pieces]
    return "\n\n".join(parts) if parts else "    pass"


def class_cells(solution: Solution, name: str, pieces: list[Piece]) -> ClassCells:
    """The cells of class NAME from its methods as this stage shows them (PIECES, in file order)."""
    info = solution.classes[name]
    given = [p for p in pieces if not p.answers]
    answers = [p for p in pieces if p.answers]
    if not answers:
        return ClassCells(name, f"class {name}{info.bases}:\n{_body(given, info.docstring)}\n", None, name)
    if not given:
        return ClassCells(name, None, f"class {name}{info.bases}:\n{_body(answers, info.docstring)}\n", name)
    base = name + BASE_SUFFIX
    what = f'    """What {name} builds on here, given and read-only: {name} below inherits these methods."""\n'
    given_code = f"class {base}{info.bases}:\n{_body(given, what)}\n"
    answer_code = f"class {name}({base}):\n{_body(answers, info.docstring)}\n"
    return ClassCells(name, given_code, answer_code, base)


def class_names(pieces: list[Piece]) -> list[str]:
    """The classes PIECES hold methods of, in file order."""
    names: list[str] = []
    for piece in pieces:
        if piece.function.owner is not None and piece.function.owner not in names:
            names.append(piece.function.owner)
    return names
