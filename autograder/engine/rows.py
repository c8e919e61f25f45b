"""A check's row (TestResult), grader side: the GradingPlugin's rows of one submission.

How a check ended (a pass, a Fail, a skip, a timeout, a grader error) becomes its row, hidden
feedback that would repeat text the student's program chose is withheld, so is a check's text that
ran beside the reference's later stages (lent.py), an own_functions check
failing on a bug an earlier stage already charged passes, and (after the checks)
no_points_for_nothing: a pass a do-nothing function could earn counts only beside a real one.
"""

from __future__ import annotations

import re
import sys
import time
import traceback
from typing import TYPE_CHECKING

import pytest

from .checks import GraderFault, take_trivial
from .feedback import Fail
from .lent import later_held, withheld
from .results import TestResult

if TYPE_CHECKING:
    from .plugin import _Check

# TestResult's fields in the order _record passes them (positionally)
_ROW = ("name", "problem", "stage", "score", "max_score", "status", "output", "visibility", "hint", "elapsed", "test_id")
if tuple(TestResult.__dataclass_fields__) != _ROW:      # pragma: no cover -- a reordered TestResult
    raise ImportError(f"engine/rows.py passes a TestResult's fields in the order {_ROW}")

HIDDEN_WITHHELD = ("This hidden check failed.  Its usual feedback would repeat text your program chose "
                   "(an exception's name or message), so it is not shown.")


class Rows:
    """GradingPlugin's rows (a mixin: the state is the plugin's, set in its __init__ and begin)."""

    def _record(self, item: pytest.Item, call, check: _Check | None = None, started: float | None = None) -> None:
        """ITEM's result (CHECK: its _check; STARTED: when its setup began, else _started's)."""
        if check is None:
            check = self._check(item)
        exc = call.excinfo.value if call.excinfo else None
        if started is None:
            started = self._started.get(check.nodeid)
        if exc is None:             # (passed: the usual case, none of the tests below)
            self._record_pass(item, check, started, take_trivial())
            return
        problem, points, hidden, stage, name = check.problem, check.points, check.hidden, check.stage, check.title
        hint, aspect, sole, run = "", None, None, None
        if isinstance(exc, Fail):
            status, score = "failed", 0.0
            output, hint = self._fail_text(exc, hidden)
            aspect = exc.aspect
            sole, run = exc.sole, exc.run                   # charge.excuse_same_difference reads them
        elif call.excinfo and call.excinfo.errisinstance(pytest.skip.Exception):
            status, output, score = "skipped", f"Skipped: {exc.msg}", 0.0
            aspect = getattr(exc, "aspect", None)           # engine/charge.py skip(..., aspect)
            sole, run = getattr(exc, "sole", None), getattr(exc, "run", None)     # (a depends' run)
        elif isinstance(exc, pytest.fail.Exception) and str(exc).startswith("Timeout"):
            status, output, score = "failed", "This check took too long and was stopped.", 0.0
        else:
            status, score = "error", 0.0
            output = "The grader hit an internal error on this check (not your fault); tell your instructor."
            detail = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
            kind = "grader fault" if isinstance(exc, GraderFault) else "grader error"
            self.internal_errors.append(f"{check.nodeid}: {kind}\n{detail}")
            print(f"[autograder] {kind} in {check.nodeid}:\n{detail}", file=sys.stderr)
        lent = None
        if status in ("failed", "skipped") and check.nodeid in getattr(self._student, "lent_checks", ()):
            if later_held(self.assignment, stage, self._student.lent_checks[check.nodeid]):
                lent, (output, hint) = (output, hint), withheld(exc, status, hidden)     # (engine/lent.py)
                if self._repeats_chosen_text(output):
                    output, hint = withheld(None, status, hidden)
        if status in ("failed", "skipped") and check.own:
            earlier = next((r for r in self.results if 0 < r.stage < stage and r.score < r.max_score), None)
            works = any(r.problem == problem and r.status == "passed" and id(r) not in self._trivial
                        for r in self.results)   # a do-nothing function passing proves nothing
            if earlier is not None and works:   # the bug already cost points in its own stage: not again
                status, score, hint = "passed", points, ""
                output = (f"Not charged: this check runs your own functions of earlier stages, and "
                          f"\"{earlier.name}\" already cost points in stage {earlier.stage}.")
        # (its fields in their order, positionally: ~1 us a check less than by keyword)
        result = TestResult(name, problem, stage, score, points, status, output, "hidden" if hidden else "visible",
                            hint, _elapsed(started), check.nodeid)
        if lent is not None:        # (its own text, shown if a run without the later stages says it: lent.py)
            self._lent_rows.append((result, check, *lent))
        self._keep(result, check, take_trivial(), aspect, sole, run)

    def _fail_text(self, exc: Fail, hidden: bool) -> tuple[str, str]:
        """(row text, hint) of a failed check's Fail: a hidden check's withheld when it repeats
        text the program chose."""
        output = exc.render(hidden=hidden)
        if hidden and self._repeats_chosen_text(output):
            return HIDDEN_WITHHELD, ""
        return output, exc.hint or ""

    def _record_pass(self, item: pytest.Item, check: _Check, started: float | None, trivial: bool) -> None:
        """A passed check's row (TRIVIAL: its take_trivial; STARTED: when its setup began, None:
        unknown), the row _record makes of a pass without the branches of a failure (most checks
        pass).  A passed check may still say something: record_property("feedback", text)."""
        props = item.user_properties
        output = "\n".join(str(v) for k, v in props if k == "feedback") if props else ""
        points = check.points
        result = TestResult(check.title, check.problem, check.stage, points, points, "passed", output,
                            "hidden" if check.hidden else "visible", "", _elapsed(started), check.nodeid)
        self._keep(result, check, trivial)

    def _keep(self, result: TestResult, check: _Check, trivial: bool, aspect: str | None = None,
              sole: str | None = None, run: str | None = None) -> None:
        """RESULT, CHECK's row, added to this submission's, with what is read of it after the checks
        (no_points_for_nothing, excuse_repeats) and by a later check's depends (by_name)."""
        rid = id(result)
        if trivial:
            self._trivial.add(rid)
        self._family[rid] = check.kin
        self._called[rid] = self._own_calls(check.problem)
        if aspect:
            self._aspect[rid] = aspect
        if sole:
            self._sole[rid] = sole
            if run:
                self._run[rid] = run
        self.results.append(result)
        self.by_name.setdefault(check.family, []).append(result)
        if check.name != check.family:   # "test_x[param]": one parameter
            self.by_name.setdefault(check.name, []).append(result)

    def _repeats_chosen_text(self, output: str) -> bool:
        """True when hidden feedback would repeat a name or text the student's program chose
        (a backstop: the suites compose hidden feedback from grader text already)."""
        chosen = getattr(self._student, "chosen_texts", None) or ()
        return any(text in output and re.search(rf"(?<!\w){re.escape(text)}(?!\w)", output) for text in chosen)

    def _own_calls(self, problem: int) -> frozenset[str]:
        """The functions of PROBLEM (its row of the table) the check that just ran called in the
        student's program ("Class.method" counts as "method"); empty when it called none of them."""
        mine = self._functions.get(problem)
        if mine is None:            # the problem's row, as bare names (once per session)
            try:
                listed = self.assignment.problem(problem).functions
            except KeyError:
                listed = ()
            mine = self._functions[problem] = frozenset(name.rsplit(".", 1)[-1] for name in listed)
        if not mine:
            return frozenset()
        called = getattr(self._student, "called", None) or ()
        for name in called:         # (a loop: a generator here was ~1 us a check)
            if "." in name:
                called = {name.rsplit(".", 1)[-1] for name in called}
                break
        return mine.intersection(called)

    def no_points_for_nothing(self) -> None:
        """A passed check that a function doing nothing would pass (it expects None, 0, an empty
        value or an exception) counts only when a check of the same function and problem with a
        real answer passed too.  "The same function": a check of the same test and problem that
        called one of the same functions of the problem's row (a test parametrized over the two
        functions of one problem, threeOfAKind and fourOfAKind, does not let one vouch for the
        other).  A function no real-answer check calls at all (check_dice: None or an exception)
        is vouched for by any real pass of its test and problem, and a real pass that called none
        of the problem's functions itself (is_straight through calculate_score) vouches for all."""
        trivial = self._trivial
        doubted = [r for r in self.results if r.status == "passed" and id(r) in trivial] if trivial else []
        if not doubted:
            return
        families = {self._family[id(r)] for r in doubted}      # (only theirs are asked below)
        tried: dict[tuple[str, int], set[str]] = {}                  # functions real answers ask of
        passed: dict[tuple[str, int], list[frozenset[str]]] = {}
        for r in self.results:
            if id(r) not in trivial and (family := self._family[id(r)]) in families:
                called = self._called.get(id(r), frozenset())
                tried.setdefault(family, set()).update(called)
                if r.status == "passed":
                    passed.setdefault(family, []).append(called)

        def vouched(r) -> bool:
            family = self._family[id(r)]
            mine = self._called.get(id(r), frozenset()) & tried.get(family, set())
            return any(not mine or not theirs or mine & theirs for theirs in passed.get(family, ()))

        for r in doubted:
            if not vouched(r):
                r.status, r.score = "failed", 0.0
                r.output = ("Not counted yet: a function that does nothing would pass this check too; it "
                            "counts once a check of the same function with a real answer passes.")


def _elapsed(started: float | None) -> float:
    """Seconds since STARTED (a check's setup), as a row records them; 0 when it is unknown."""
    return 0.0 if started is None else round(time.perf_counter() - started, 4)
