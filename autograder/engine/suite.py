"""The suite API: a hidden suite is a short pytest file of checks on the student's program.

    import pytest
    from autograder.engine.suite import Fail, Suite

    suite = Suite(__file__)                          # assignments/<name>/: the table, scenarios/, [rules]

    @pytest.mark.parametrize("case", suite.cases("round", "format_dice", problem=7))
    def test_format_dice(student, reference, case):
        \"\"\"format_dice\"\"\"
        expected = suite.expected(reference.call("format_dice", case["dice"]), "format_dice(...)")
        got = suite.returned(student.call_or_skip("format_dice", case["dice"]), "format_dice(...)")
        if got != expected:
            raise Fail(f"format_dice({case['dice']}) returned the wrong text.", expected=expected, got=got,
                       hidden=f"format_dice returned the wrong value ({case['why']}).")

Points: a check declares its problem (@pytest.mark.problem(N), or problem= here) and, when it
should count more or less than its siblings, @pytest.mark.weight(W); the plugin shares the
problem's points of assignment.toml out at collection (last check: the rounding remainder).
An explicit @pytest.mark.points(P) (or `points` in a case) is taken as given.
Visibility: a case is hidden unless it says `public = true`; a Fail carries the detailed
summary and, as HIDDEN, the data-free one; the plugin shows the one the check's visibility allows.
Per submission: student.memo(key, compute) computes once; student.call_or_skip(...) skips
the checks that need a function that ran out of time before ([calls] in assignment.toml).
Games: suite.protocol (assignment.toml [protocol], [rules]) reads a scripted game's output with
engine/replay.py (read_transcript, read_reference, with_spare_dice), engine/grammar.py (read_final_score) and
engine/divergence.py (first_divergence: "round 3, roll 2", a cause and a hint).
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

from autograder import toml as tomllib  # the one TOML shim
from autograder.assignment import Assignment, load_assignment

from .checks import GraderFault, explain, reference_value
from .feedback import Fail
from .replay import Protocol

__all__ = ["Fail", "GraderFault", "Suite", "SCENARIOS_ENV", "hint_for"]

_CASE_KEYS = ("problem", "points", "weight", "public", "integration", "why", "name")
SCENARIOS_ENV = "AUTOGRADER_SCENARIOS_DIR"    # a fresh hidden set (`scenarios --out DIR`) overrides files


class Suite:
    """What a suite file needs of its assignment: the table, the case files, the rules."""

    def __init__(self, file: str | Path):
        folder = Path(file).resolve().parent
        if folder.name == "suites":
            folder = folder.parent
        self.folder = folder
        self.assignment: Assignment = load_assignment(folder.name)

    # -- the assignment's data -------------------------------------------------------------
    @functools.cached_property
    def protocol(self) -> Protocol:
        """How a game's output is read (assignment.toml [protocol] and [rules]; engine/replay.py)."""
        return Protocol.of(self.assignment)

    @property
    def rules(self) -> dict:
        """assignment.toml's [rules] table (categories, bonuses ...)."""
        return self.assignment.extra.get("rules", {})

    def problem_of(self, function: str, stage: int | None = None) -> int:
        """The problem that lists FUNCTION (in STAGE, when given)."""
        for problem in self.assignment.problems:
            if function in problem.functions and (stage is None or problem.stage == stage):
                return problem.number
        raise KeyError(f"no problem of {self.assignment.name} lists {function}")

    def load(self, name: str) -> dict:
        """scenarios/NAME.toml, or the same file from $AUTOGRADER_SCENARIOS_DIR when it has one
        (inputs only: expected values come from the reference)."""
        override = Path(os.environ.get(SCENARIOS_ENV) or self.assignment.scenarios_dir) / f"{name}.toml"
        path = override if override.is_file() else self.assignment.scenarios_dir / f"{name}.toml"
        return tomllib.loads_kept(path.read_text(encoding="utf-8"))

    def cases(self, source: str | Iterable[dict], table: str | None = None, *,
              problem: int | Callable[[dict], int] | None = None,
              where: Callable[[dict], bool] | None = None,
              id: Callable[[dict], str] | None = None, hidden: bool | None = None,
              depends: str | None = None) -> list:
        """pytest params of the cases in SOURCE (a case file's name, with TABLE its array of
        tables, or a list of dicts), those WHERE(case) accepts.  Each param: the case's problem
        (PROBLEM, a function of the case, or the case's `problem`), its `points` or `weight` if
        it has them, hidden unless `public = true` (or as HIDDEN says), `integration = true`: an
        own_functions check; id: ID(case), else its `why` (or `name`).  DEPENDS: the check of the
        same case in the test function named so must pass first."""
        if isinstance(source, str):
            data = self.load(source)
            cases = data[table] if table else data
        else:
            cases = list(source)
        out = []
        seen: dict[str, int] = {}                   # an id given twice: "why (2)", never pytest's "why1"
        for case in cases:
            if where is not None and not where(case):
                continue
            if not isinstance(case, dict):          # a case object (attributes): read it the same way
                case_obj, case = case, {k: getattr(case, k) for k in _CASE_KEYS if hasattr(case, k)}
            else:
                case_obj = case
            number = problem(case_obj) if callable(problem) else problem if problem is not None \
                else case.get("problem")
            marks = []
            if number is not None:
                marks.append(pytest.mark.problem(number))
            if "points" in case:
                marks.append(pytest.mark.points(case["points"]))
            elif "weight" in case:
                marks.append(pytest.mark.weight(case["weight"]))
            if (not case.get("public")) if hidden is None else hidden:
                marks.append(pytest.mark.visibility("hidden"))
            if case.get("integration"):
                marks.append(pytest.mark.own_functions)
            name = id(case_obj) if id else case.get("why", case.get("name"))
            if isinstance(name, str):
                seen[name] = seen.get(name, 0) + 1
                name = name if seen[name] == 1 else f"{name} ({seen[name]})"
            if depends:
                marks.append(pytest.mark.depends(f"{depends}[{name}]"))
            out.append(pytest.param(case_obj, marks=marks, id=name))
        return out

    # -- outcomes into values ----------------------------------------------------------------
    @staticmethod
    def expected(outcome, ran: str) -> Any:
        """The reference's value, or a GraderFault: an expected value must exist."""
        return reference_value(outcome, ran)

    @staticmethod
    def returned(outcome, ran: str, *, hint: str | None = None) -> Any:
        """The student's value, or a Fail saying why there is none (data-free when hidden)."""
        return returned_value(outcome, ran, hint=hint)


@contextlib.contextmanager
def reference_versions(student, names: tuple[str, ...]) -> Iterator[None]:
    """Within the block, the reference's NAMES (functions of this stage that another problem
    grades) replace the student's in its calls, as another stage's would, so a bug is charged
    only where it lives (the reference's versions call the student's own functions of the stage).
    A program without substitution (a script run) keeps its own."""
    sub = student.substitute
    if sub is not None and names:
        sub = {"names": sorted(set(sub["names"]) | set(names)),
               "keep": [name for name in sub["keep"] if name not in names]}
    with student.substituting(sub):
        yield


def hint_for(case: dict, got) -> str | None:
    """A case's `hint` when GOT is the recognised mistake (its `hint_when`), or always without one."""
    if "hint" not in case:
        return None
    if "hint_when" in case:
        return case["hint"] if got == case["hint_when"] else None
    return case["hint"]


def returned_value(outcome, ran: str | Callable[[], str], *, short: str | None = None,
                   hint: str | None = None) -> Any:
    """What the student's call returned, or a Fail saying why it did not return: the detailed
    text, and a data-free one (SHORT names the call, e.g. "parse_keep(...)") for hidden checks.
    (RAN: the call's text, or a function making it: made only for the Fail.)"""
    if outcome.status == "ok":
        return outcome.value
    ran = ran() if callable(ran) else ran
    short = short or ran.split("(")[0] + "(...)"
    hidden = None
    if outcome.status == "input_exhausted":
        text = f"{short} {outcome.message}" if outcome.message else f"{short} asked for more input than given"
        hidden = f"{short} asked for more input than the answers given"
    elif outcome.status == "timeout":
        text = f"{short} did not finish in time (an endless loop?)"
    else:
        text = explain(outcome, short)
        if outcome.status == "exception":
            if (outcome.error or {}).get("type") == "NotImplementedError":
                hidden, hint = f"{short} is not written yet", None     # (a stub: no hint on how to fix it)
            else:
                hidden = f"{short} {outcome.hidden_message}"     # grader text only: no name the program chose
    raise Fail(text, hidden=hidden, ran=ran, hint=hint, show_values=False,
               output=outcome.stdout if outcome.status not in ("no_function", "syntax_error") else None)
