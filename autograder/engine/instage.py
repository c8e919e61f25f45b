"""Charge once within a stage: a failed check retried with the reference's versions of the
functions of the stage's other failed problems (GradingPlugin's, a mixin).

Substitution (Assignment.substitution) keeps a bug in its own stage; within a stage every check
runs the student's own functions of that stage, so a bug in one of them (reroll, P9) fails another
problem's checks too (the round, P12, calls it).  After every check of a submission ran, a failed
(or skipped) check of problem N is run once more where the functions of the stage's problems M
that are still charged (a check of M failed and was not excused) are the reference's: M before N
in the table, or M a function N's own code names (a total, P12, calling the bonus of P13).  Its
calls then run in a substitution sandbox of their own (Program._variant_of: the reference
without the functions still graded as the student's), on top of whatever the check substitutes
itself (Program.also; a suite's own substitution too).  First its control run, in that same
life with the student's own versions of M: when it passes, the failure is not reproduced there
(it depended on what ran before it in the first life: state kept between requests) and nothing
is excused.  (A check that first ran out of time skips its control: it would wait out the same
limit again, the cost of an endless loop paid twice.  Ran out: a request of its first run timed
out (Program.ran_out), whatever its failure says, or its failure's aspect is a timeout.)  Otherwise the run with the reference's M: when it passes, the failure stems from
those problems, charged by their own checks, and the check passes with the note "Not charged:
stems from P9 ...".  Else its row stays exactly as it was.

What keeps it sound (docs/threat-model.md, "Charge once within a stage"):
  - only a student whose stage failed two problems pays: a correct program, or one whose stage
    failed one problem only, runs no retry (no extra life, no request);
  - no points for nothing: N's functions and every substituted problem's are written
    (charge.written, and none always ends in a raise), so a stub, a constant or a function that
    implements nothing is never excused, nor excuses; a retry that a do-nothing function could pass counts only
    beside a real pass of its function (no_points_for_nothing runs after);
  - the control proves the substitution is what makes it pass, not a fresh life (a program whose
    functions break once its own earlier requests left a note, corpus round3 unseen_notes_own,
    gains nothing);
  - a problem serves as the excuse only while it is still charged, and problems are retried in
    table order, so of the problems of a stage that failed, one at least stays charged;
  - a retry's outcome is never shown (a pass becomes the note, a failure keeps the first run's
    row), so what its life holds (the reference's code of problems charged already) reaches no
    feedback; it runs after every check of the submission, in lives of its own.
"""

from __future__ import annotations

import ast
import time

from _pytest.outcomes import Exit

from . import guards
from .charge import _definitions, written
from .checks import take_trivial

__all__ = ["InStage"]

RETRIED = ("failed", "skipped")


class InStage:
    """GradingPlugin's retries (the state is the plugin's: its results, checks and student)."""

    def retry_in_stage(self, items, light: list, watched: bool) -> int:
        """Retry each failed check whose stage failed another written problem (module doc);
        returns how many now pass.  WATCHED: under guards.watch's backstop, as the checks."""
        student = self._student
        if student is None or self.load_failure or not getattr(student, "can_substitute", False):
            return 0
        failing = [r for r in self.results if r.status in RETRIED and r.score < r.max_score and r.stage]
        if len({r.problem for r in failing}) < 2:       # (the usual case: nothing or one problem failed)
            return 0
        source = student._source            # (read after the checks: no verdict is traced now)
        table = {p.number: p for p in self.assignment.problems}
        failing.sort(key=lambda r: (r.stage, r.problem))     # a problem's retries before a later one's

        def charged(number: int) -> bool:       # (still: its checks' retries, done, excused not all)
            return any(r.problem == number and r.status in RETRIED and r.score < r.max_score for r in failing)
        is_written: dict[int, bool] = {}

        def works(number: int) -> bool:
            if number not in is_written:
                functions = table[number].functions
                is_written[number] = written(source, functions) and not _raises_only(source, functions)
            return is_written[number]

        where = self._retry_index(items, light)
        memos: dict[tuple, dict] = {}
        named: dict[int, frozenset[str]] = {}
        every = frozenset(self.assignment.qualified(f) for p in self.assignment.problems for f in p.functions)
        saved_memo, saved_substitute = student._memo, student.substitute
        excused = 0
        excused_ids: set[int] = set()
        try:
            for result in failing:
                own = table.get(result.problem)
                if own is None or result.status not in RETRIED or not works(own.number):
                    continue
                if own.number not in named:
                    named[own.number] = _named_in(source, own.functions)
                calls = named[own.number]
                earlier = [p for p in self.assignment.problems if p.stage == own.stage and p.number != own.number
                           and (p.number < own.number or calls & {f.rsplit(".", 1)[-1] for f in p.functions})
                           and not set(p.functions) & set(own.functions) and charged(p.number) and works(p.number)]
                found = where.get(result.test_id)
                if not earlier or found is None:
                    continue
                item, call = found
                check = self._check(item)
                drop = tuple(f for p in earlier for f in p.functions)
                names = frozenset(self.assignment.qualified(f) for f in drop)
                student._memo = memos.setdefault((drop, True), {})     # a game played again: once a set
                student.also = (names, every, True)
                stopped = (result.test_id in student.ran_out
                           or self._aspect.get(id(result), "").startswith("stopped: timeout"))
                if not stopped and self._retry(item, call, check, watched, excused_ids)[0]:
                    continue        # the control passes: its failure is not reproduced here (state)
                student._memo = memos.setdefault((drop, False), {})
                student.also = (names, every, False)
                passed, trivial = self._retry(item, call, check, watched, excused_ids)
                if not passed:
                    continue
                what = result.output.split("\n", 1)[0].rstrip(".")
                stems = ", ".join(f"P{p.number} \"{p.title}\"" for p in earlier)
                result.status, result.score, result.hint = "passed", result.max_score, ""
                result.output = (f"Not charged: stems from {stems} (stage {own.stage}), already charged there "
                                 f"({what}).  With the reference's {', '.join(drop)} this check passes; "
                                 "fix it there and this check counts in full.")
                if trivial:
                    self._trivial.add(id(result))
                self._aspect.pop(id(result), None)
                self._sole.pop(id(result), None)
                excused_ids.add(id(result))
                excused += 1
        finally:
            student._memo, student.substitute, student.also = saved_memo, saved_substitute, None
        return excused

    def _retry_index(self, items, light: list) -> dict:
        """check id -> (item, its _LightCall) of the light checks (a check pytest's protocol runs is
        not retried), once per session and ITEMS."""
        known = getattr(self, "_retry_where", None)
        if known is not None and known[0] is items:
            return known[1]
        where = {call.nodeid: (item, call) for item, call in zip(items, light) if call}
        self._retry_where = (items, where)
        return where

    def _retry(self, item, call, check, watched: bool, excused: set[int]) -> tuple[bool, bool]:
        """ITEM run once more (its calls with the student's `also` substituted too: Program.run):
        (whether it passed, whether a do-nothing function would have passed it too).  Nothing of it
        is recorded; its requests are hidden ones."""
        student = self._student
        control = student.also[2]      # (its checks depend on what passed in the first run: EXCUSED did not)
        for name in check.depends:
            if any(r.status != "passed" or (control and id(r) in excused) for r in self.by_name.get(name, [])):
                return False, False
        take_trivial()
        if run_again(self, call, check, watched) is not None:    # a Fail, a skip, a grader fault: not passed
            return False, take_trivial()
        return True, take_trivial()


def run_again(plugin, call, check, watched: bool) -> BaseException | None:
    """CHECK (its CALL) run once more for PLUGIN's student, its requests hidden ones (an in-stage
    retry, a lent check's confirming run: confirm.py): what it raised, or None when it passed.
    Nothing of it is recorded."""
    student = plugin._student
    student.item = check.nodeid
    student.public_check[0] = False
    student.called.clear()
    student.substitute = check.substitute
    kwargs = call.params.copy()
    for name in call.fixtures:
        kwargs[name] = (student if name == "student" else plugin._reference if name == "reference"
                        else plugin.assignment if name == "assignment" else _ignore)
    running = guards._RUNNING
    try:
        if watched:
            running[0] = time.perf_counter()
        call.function(**kwargs)
    except (Exit, KeyboardInterrupt):
        raise
    except BaseException as error:      # noqa: BLE001 -- its verdict, the caller's to read
        return error
    finally:
        running[0] = None
    return None


def _ignore(key: str, value: object) -> None:
    """record_property in a run again: what it would say is not shown."""


def _named_in(source: str, functions) -> frozenset[str]:
    """The names (and attribute names: `self.roll(...)`) SOURCE's definitions of FUNCTIONS use: a
    later problem's function one of them calls by name (a total calling a later problem's bonus)."""
    found = _definitions(source) or {}
    names: set[str] = set()
    for function in functions:
        node = found.get(function.rsplit(".", 1)[-1])
        if node is not None:
            names.update(n.id if isinstance(n, ast.Name) else n.attr for n in ast.walk(node)
                         if isinstance(n, (ast.Name, ast.Attribute)))
    return frozenset(names)


def _raises_only(source: str, functions) -> bool:
    """Whether one of FUNCTIONS always ends in a `raise` and returns nothing (whatever it computes
    first): it implements nothing, so it neither is excused nor excuses (charge.written lets a
    body of two statements pass)."""
    found = _definitions(source) or {}
    for function in functions:
        node = found.get(function.rsplit(".", 1)[-1])
        if node is not None and node.body and isinstance(node.body[-1], ast.Raise) and not any(
                isinstance(n, (ast.Return, ast.Yield, ast.YieldFrom)) for n in ast.walk(node)):
            return True
    return False
