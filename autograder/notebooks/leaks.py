"""The leak check: no solution line of a released-or-later stage, no hidden test data, in what students see."""

from __future__ import annotations

import json
import re
from pathlib import Path

from autograder.assignment import Assignment
from autograder.authoring.build import relative

from .cells import cell_source
from .checks import _flat, _scenario_cases, scenario_check, scenario_shapes, signatures_of
from .common import has_notebooks, load_content
from .solution import read_solution

MIN_LEAK_LINE = 8          # shorter solution lines ("else:", "return 0") prove nothing
MIN_LEAK_NAME = 12


# Lines too common to prove anything: `return total`, `else:`, `break` ...
_TRIVIAL = re.compile(r"(return( [A-Za-z_]\w*| -?\d+| \[\]| \{\}| \"\"| '')?|else:|try:|pass|break|continue"
                      r"|while True:)")


def _code_lines(text: str) -> set[str]:
    return {line.strip() for line in text.splitlines()
            if line.strip() and not line.strip().startswith("#") and not _TRIVIAL.fullmatch(line.strip())}


def secret_lines(assignment: Assignment, released_stage: int, content: dict | None = None) -> set[str]:
    """Lines of solution code a bundle up to RELEASED_STAGE must not contain: every line of a region
    of a problem in that stage or later, except lines that are public anyway (the starter, earlier
    stages' regions, the variants standing in for later regions before their stage)."""
    text = assignment.reference.read_text(encoding="utf-8")
    solution = read_solution(text, assignment)
    public = _code_lines(assignment.starter.read_text(encoding="utf-8")) if assignment.starter.is_file() else set()
    secret: set[str] = set()
    for problem in assignment.problems:
        for _, code in solution.regions(problem.number):
            lines = _code_lines(code)
            if problem.stage < released_stage:
                public |= lines
            else:
                secret |= lines
    if content is None and has_notebooks(assignment):
        content = load_content(assignment)
    for number, variant in (content or {}).get("variants", {}).items():
        # a variant is public once the region around it is given (its stage is released before)
        for function in solution.functions:
            for fence in function.fences:
                if fence.number != int(number):
                    continue
                around = [f for f in function.fences if f.begin < fence.begin and f.end > fence.end]
                if around and solution.table[around[0].number].stage < released_stage:
                    public |= _code_lines(variant)
    return {line for line in secret - public if len(line) >= MIN_LEAK_LINE}


def hidden_fingerprints(assignment: Assignment) -> set[str]:
    """Strings that only the hidden tests know: the names, hints, calls and scripts of every
    scenario not marked public, minus anything public anyway (public scenarios, the starter,
    the handout)."""
    public_text = _normalise("\n".join(path.read_text(encoding="utf-8")
                                       for path in (assignment.starter, assignment.handout) if path.is_file()))
    hidden, public = _fingerprints(assignment)
    return {p for p in hidden - public if _normalise(p) not in public_text}


def _fingerprints(assignment: Assignment) -> tuple[set[str], set[str]]:
    """(fingerprints of the hidden scenario cases, of the public ones)."""
    signatures = signatures_of(assignment.reference.read_text(encoding="utf-8"))
    hidden: set[str] = set()
    public: set[str] = set()
    for _, stage, key, case in _scenario_cases(assignment):
        prints = _case_fingerprints(assignment, signatures, key, case, stage)
        (public if case.get("public") else hidden).update(prints)
    return hidden, public


def _case_fingerprints(assignment: Assignment, signatures: dict, key: str, case: dict, stage: int | None) -> set[str]:
    prints = set()
    for field_name in ("why", "name", "title", "hint", "id"):
        value = case.get(field_name)
        if isinstance(value, str) and len(value) >= MIN_LEAK_NAME:
            prints.add(value)
    check = scenario_check(assignment, signatures, key, case, [], stage=stage)
    if check is not None:
        if check.expr and "(" in check.expr and not check.expr.endswith("()"):
            prints.add(check.expr)
        if check.call and check.setup:
            prints.add(check.setup[-1])                       # the scorecard it starts from
        if len(check.answers) >= 3:
            prints.add(repr(check.answers)[1:-1])
        if check.dice and len(check.dice) >= 8:
            prints.add(repr(check.dice)[1:-1])
    shapes = scenario_shapes(assignment)
    for field_name in [shapes.get("answers"), *shapes.get("game", {}).get("answers", [])]:
        value = case.get(field_name)
        if isinstance(value, list) and len(_flat(value)) >= 3:
            prints.add(repr([str(v) for v in _flat(value)])[1:-1])
    return prints


def _normalise(text: str) -> str:
    """Whitespace squeezed and double quotes made single, so repr() and hand-typed text compare."""
    return re.sub(r"\s+", " ", text).replace('"', "'")


def find_leaks(texts: dict[str, str], assignment: Assignment, released_stage: int,
               content: dict | None = None) -> list[str]:
    """Every secret line and hidden fingerprint found in TEXTS ({name: text}); empty when clean."""
    secrets = secret_lines(assignment, released_stage, content)
    prints = hidden_fingerprints(assignment)
    public = sorted(_fingerprints(assignment)[1], key=len, reverse=True)
    problems = []
    for name, text in sorted(texts.items()):
        lines = {line.strip() for line in text.splitlines()}
        for line in sorted(secrets & lines):
            problems.append(f"{name}: solution line {line!r}")
        flat = _normalise(text)
        for known in public:                 # "an empty scorecard totals 0" is public; do not
            flat = flat.replace(_normalise(known), " ")  # read "an empty scorecard" (hidden) in it
        for fingerprint in sorted(prints):
            if _normalise(fingerprint) in flat:
                problems.append(f"{name}: hidden test data {fingerprint!r}")
    return problems


def notebook_texts(nb: dict) -> str:
    """All the text of a notebook a student could read (sources and outputs)."""
    parts = []
    for cell in nb.get("cells", []):
        parts.append(cell_source(cell))
        for output in cell.get("outputs", []) or []:
            parts.append(json.dumps(output))
    return "\n".join(parts)


def student_leaks(assignment: Assignment, files: list[tuple[Path, str]]) -> list[str]:
    """The release leak check on the student track: no solution line of the notebook's own stage or
    later, no hidden test data."""
    problems = []
    for path, text in files:
        nb = json.loads(text)
        stage = int(nb["metadata"]["autograder"]["stage"])
        problems += find_leaks({relative(path): notebook_texts(nb)}, assignment, stage)
    return problems
