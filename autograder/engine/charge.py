"""Charge once across stages: a failure costs no more than the earlier check it stems from.

Substitution (Assignment.substitution) keeps a bug in its own stage while the function that has
it is graded in one stage only.  A function graded in TWO stages (one round in stage 2, its
special rules in stage 4, say) runs the student's own code in both stages' checks, so a
stage-2 bug in it would be charged again in stage 4.  This module decides, after every check of
a submission ran, which later-stage failures are the same bug as an earlier-stage failure, and
does not charge them again.

What a course declares (data, no code):
  - its problem table: a function listed by problems of two stages links them (P9 -> P4);
  - optionally `[[stems]]` in assignment.toml, `problem = N, from = [M, ...]`: links the table
    cannot show (a later check that exercises an earlier problem's code by another name);
  - in its checks, what differed: `Fail(..., aspect="...")`, a short grader-chosen name of the
    first difference from the reference, the same words wherever the same behaviour differs
    (a divergence's kind, "scorecard after the round", "box order" ...), more general before a
    colon ("asked for more input: <the likely cause>" matches "asked for more input", where a
    check could not tell the cause).  Checks that share code (one round checker for P4 and P9)
    share aspects by construction.

The rule: a failed check of problem N (stage s) is not charged when a linked problem M of an
earlier stage failed a check with the SAME aspect in this submission (the earlier stage's
failure reproduces in the stage-s scenario), M's and N's functions are written and so is one of
stage s's own functions, if it has any (no points for nothing: a stub is never excused, nor a
stage whose own code is all stubs; N's own test matters where stage s has no function of its own,
all its functions being graded in earlier stages too).  A bug of stage s alone (a special rule, a bonus) either shows
an aspect stage M never shows, or stage M's checks pass: it is charged.  The check passes with
the feedback `Not charged: stems from P4 "..." (stage 2), already charged there.`
Limits: a stage-s bug hidden behind the earlier failure (it shows only once that one is fixed)
is charged only then; and a program could fail one cheap earlier case on purpose the way it
fails the later stage's checks (a crash at the same line) to have those excused -- the aspects
are grader-chosen and specific (a Joker round's points are not a round's points), which keeps
such a trade narrow, but it is not impossible.
Within a stage nothing here excuses: a crash on a line of another problem's function, where that
problem's check crashed on the same line, was excused unproven until pass 25 (a stub calling a
helper that crashes once per process got the stub's problem in full: tests/corpus/round12); the
within-stage excuse is instage.py's, proven by a retry with the reference's function.
"""

from __future__ import annotations

import ast
import collections
import functools
from collections.abc import Iterable

__all__ = ["links", "excuse_repeats", "excuse_same_difference", "written", "skip", "stopped_aspect", "same_aspect"]


def skip(reason: str, aspect: str | None = None, sole: str | None = None, run: str | None = None):
    """pytest.skip(REASON) for a check that cannot run because of a failure with ASPECT (a skip
    costs the check's points, so it is charged once like a failure); SOLE and RUN: the sole
    difference of the run whose failure it waits on (a depends), and that run (excuse_same_difference)."""
    import pytest

    error = pytest.skip.Exception(reason, _use_item_location=True)
    error.aspect, error.sole, error.run = aspect, sole, run
    raise error


def stopped_aspect(outcome) -> str:
    """The aspect of a call that did not return: the exception and the student's line it was
    raised at (the same bug stops there in every stage; so does a sys.exit), or running out of
    time or input."""
    error = outcome.error or {}
    if outcome.status == "exception" or (outcome.status == "exit" and error.get("line")):
        return f"stopped: {error.get('type')} at line {error.get('line')}"
    return f"stopped: {outcome.status}"


def links(assignment) -> dict[int, tuple[int, ...]]:
    """problem -> the problems of earlier stages its failures may stem from: those that list one
    of its functions (the table), and assignment.toml [[stems]] (problem = N, from = [M, ...]).
    Made once for the assignment last asked about (a grading session asks for one, every grade)."""
    if _LINKS[0] is assignment:
        return _LINKS[1]
    found = _links(assignment)
    _LINKS[:] = [assignment, found]
    return found


_LINKS: list = [None, {}]       # [the assignment, its links]


def _links(assignment) -> dict[int, tuple[int, ...]]:
    stage = {p.number: p.stage for p in assignment.problems}
    out: dict[int, set[int]] = {}
    for later in assignment.problems:
        for earlier in assignment.problems:
            if earlier.stage < later.stage and set(earlier.functions) & set(later.functions):
                out.setdefault(later.number, set()).add(earlier.number)
    for item in assignment.extra.get("stems", []) or []:
        number = int(item["problem"])
        for earlier in item.get("from", []):
            if stage.get(int(earlier), 0) < stage.get(number, 0):
                out.setdefault(number, set()).add(int(earlier))
    return {number: tuple(sorted(found)) for number, found in out.items()}


def written(source: str, functions: Iterable[str]) -> bool:
    """True when SOURCE defines every one of FUNCTIONS with a body that does something: not only
    a docstring, `pass`, `...`, a `raise`, or `return` of a constant or an empty literal."""
    if _definitions(source) is None:
        return False
    return all(_written_one(source, name) for name in functions)


@functools.lru_cache(maxsize=128)
def _written_one(source: str, name: str) -> bool:
    """written() of one function NAME of SOURCE (which parses), once per source and name: a grade
    asks it of the same functions for several checks, problems and stages (~7 times a source)."""
    node = _definitions(source).get(name)   # type: ignore[union-attr]
    if node is None:
        return False
    body = [n for n in node.body if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))]
    if len(body) <= 1 and (not body or isinstance(body[0], (ast.Pass, ast.Raise)) or (
            isinstance(body[0], ast.Return) and (body[0].value is None or isinstance(
                body[0].value, (ast.Constant, ast.List, ast.Dict, ast.Tuple, ast.Set))))):
        return False
    return not any(isinstance(n, ast.Name) and n.id == "NotImplementedError" for n in ast.walk(node))


# The fields of a statement (or of an except clause, a match case) that hold statements (or except
# clauses, match cases), in ast's field order: every function definition is reached through them.
_BODIES = ("body", "handlers", "orelse", "finalbody", "cases")


@functools.lru_cache(maxsize=8)
def _definitions(source: str) -> dict[str, ast.AST] | None:
    """SOURCE's function definitions by name (None: it does not parse), parsed once per source:
    a grade asks written() of several problems and stages (nothing changes the nodes).  The same
    dict as ast.walk's (breadth first; a later definition of a name replaces the earlier one in its
    place) from the statements alone: a definition is a statement, and every statement's parent is
    one, or an except clause or match case, so the walk over those meets the definitions in the
    same order without visiting the expressions (~10x fewer nodes: ~1 ms a 500-line program)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    found: dict[str, ast.AST] = {}
    todo = collections.deque([tree])
    while todo:
        node = todo.popleft()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found[node.name] = node
        for field in _BODIES:
            held = getattr(node, field, None)
            if held and type(held) is list:
                todo.extend(held)
    return found


def excuse_repeats(results: list, aspects: dict[int, str], assignment, source: str | None) -> int:
    """Pass, with a note, every failed check whose failure stems from an earlier stage's failed
    check of a linked problem with the same aspect (ASPECTS: id(result) -> aspect).  SOURCE: the
    student's file (a stub is never excused).  Returns how many checks were excused."""
    linked = links(assignment)
    if source is None or not aspects:     # (no aspect: no failure to excuse)
        return 0
    functions = {p.number: p.functions for p in assignment.problems}
    failures: dict[int, list[tuple[str, object]]] = {}     # problem -> (aspect, failed check), in order
    for result in results:
        aspect = aspects.get(id(result))
        if aspect and result.status in ("failed", "skipped") and result.score < result.max_score:
            failures.setdefault(result.problem, []).append((aspect, result))
    is_written: dict[int, bool] = {}
    stage_written: dict[int, bool] = {}
    excused = 0
    for result in results:
        aspect = aspects.get(id(result))
        if not aspect or result.status not in ("failed", "skipped") or result.problem not in linked:
            continue
        if result.problem not in is_written:     # its own functions too: a stub is never excused
            is_written[result.problem] = written(source, functions[result.problem])
        if not is_written[result.problem]:
            continue
        for earlier in linked[result.problem]:
            stem = next((r for a, r in failures.get(earlier, ()) if same_aspect(a, aspect)), None)
            if stem is None or stem.stage >= result.stage:
                continue
            if earlier not in is_written:
                is_written[earlier] = written(source, functions[earlier])
            if not is_written[earlier]:
                continue
            if result.stage not in stage_written:
                stage_written[result.stage] = _stage_written(assignment, result.stage, source)
            if not stage_written[result.stage]:
                continue
            what = result.output.split("\n", 1)[0].rstrip(".")
            result.status, result.score, result.hint = "passed", result.max_score, ""
            result.output = (f"Not charged: stems from P{earlier} \"{_title(stem.name)}\" (stage {stem.stage}), "
                             f"already charged there ({what}).  Fix it there and this check counts in full.")
            excused += 1
            break
    return excused


def excuse_same_difference(results: list, soles: dict[int, str], assignment, source: str | None,
                           runs: dict[int, str] | None = None) -> int:
    """Within a problem: runs (whole games, scenario runs) whose only difference from the
    reference's is the same one (SOLES: id(result) -> Fail(sole=), divergence.sole_difference: one
    kind of line, differing one exact way) are charged once.  The problem's first still-failed
    check with that difference stays charged, and so does every check of its run (RUNS: id(result)
    -> Fail(run=), where several checks read one game: its rounds, its dice, its final score, and
    the checks skipped waiting on them); each check of a later run passes with a note.  A problem
    whose functions are not written gets nothing excused (no points for nothing: a stub, a
    constant); a run that also differs in another kind of line, or another way, has no sole
    difference, so a second bug keeps every run it shows in charged.  Returns how many checks were
    excused."""
    if source is None or not soles:
        return 0
    runs = runs or {}
    functions = {p.number: p.functions for p in assignment.problems}
    first: dict[tuple[int, str], object] = {}        # (problem, difference) -> the check charged for it
    is_written: dict[int, bool] = {}
    excused = 0
    for result in results:
        sole = soles.get(id(result))
        if not sole or result.status not in ("failed", "skipped") or result.score >= result.max_score:
            continue
        stem = first.setdefault((result.problem, sole), result)
        if stem is result:
            continue
        run = runs.get(id(result))
        if run is not None and run == runs.get(id(stem)):     # the charged run's own checks: all charged
            continue
        if result.problem not in is_written:
            is_written[result.problem] = written(source, functions.get(result.problem, ()))
        if not is_written[result.problem]:
            continue
        what = result.output.split("\n", 1)[0].rstrip(".")
        if result.status == "skipped":      # (it waited on a check of its run: the run's difference)
            what = "a check of this run it waits on failed"
        result.status, result.score, result.hint = "passed", result.max_score, ""
        same = "the same kind of line, differing the same way" if run is not None or runs.get(id(stem)) is not None \
            or ": " in sole else "the same mistake, the same way"     # (one call's check: no lines to compare)
        result.output = (f"Not charged: this run's only difference ({what}) is the one \"{_title(stem.name)}\" "
                         f"was charged for ({same}).  Fix it there and this check counts in full.")
        excused += 1
    return excused


def _stage_written(assignment, stage: int, source: str) -> bool:
    """Whether SOURCE writes one of STAGE's own functions (listed by its problems and by no earlier
    stage's): a stage whose own code is all stubs gets nothing excused (a program handed in after
    stage 3, with a stage-2 bug in play_round, gets no stage-4 points for the games it stops).  A
    stage with no function of its own (all graded earlier too) needs none."""
    earlier = {f for p in assignment.problems if p.stage < stage for f in p.functions}
    own = {f for p in assignment.problems if p.stage == stage for f in p.functions} - earlier
    return not own or any(written(source, [name]) for name in sorted(own))


def same_aspect(one: str, other: str) -> bool:
    """Equal aspects, or one the other's general form: "asked for more input" (the cause unknown
    where that check looked) and "asked for more input: a keep question too many"."""
    return one == other or one.startswith(other + ": ") or other.startswith(one + ": ")


def _title(name: str) -> str:
    """The check's title without its "P4 " prefix."""
    head, _, rest = name.partition(" ")
    return rest if head[:1] == "P" and head[1:].isdigit() else name
