"""What a check shows when its code ran beside the reference's later stages (a lent sandbox).

A check of stage N runs, where the student's code touches another stage's function (the try in the
student's own sandbox failed: tries.py), in a substitution variant: a sandbox holding the reference
without the kept functions (Program._variant_of), so with the reference's code of the LATER stages
too.  Whatever the student's code produces there (an exception's message or type's name, a return
value, printed output, an object's state, a skip's reason built from them) could be that code,
which a stage released before the next is due must not hand out.  So a failed or skipped check
that was served such an outcome, directly or through a memo computed from one, while its variant
held a later core stage's function, shows its verdict, the call and the expected value only
(grader text), and one sentence saying why.  Its score is what it always was: only text moves.

The outcome says where it ran (Outcome.lent, set by the Sandbox that holds a reference); the
student's Program notes, per check (Program.item), the kept functions of each lent outcome it
served (note), and a memo computed from one passes them on to every check that reads it (memo).

Confirmed (Confirm, after the checks): such a check is run once more where the later stages are
the student's own (Program.own_later: its variant holds the reference of the earlier stages only,
and of the helpers they reach), in lives of its own, with memos of its own.  When it fails there
with the very text it gave (its row as _record makes it), that text owes nothing to the later
stages' reference (the program says it without them): the row shows it whole.  Otherwise (it
passes, differs, runs out of time) the row keeps the text above.  So an honest program's failure
keeps its details unless they depend on its own later stages, and a program that says something
else beside the reference than without it shows neither.
"""

from __future__ import annotations

import ast
import functools
import time
from typing import Any

import pytest
from _pytest.outcomes import Exit

from . import guards
from .feedback import Fail, show

WITHHELD = ("Not shown: what your code printed, returned or raised here.  It ran beside the reference's "
            "functions of later stages (it calls a function another stage grades), so that text could carry "
            "their code.")


def note(program: Any, request: Any) -> None:
    """PROGRAM (the student's) served a lent outcome of REQUEST to its current check."""
    keep = frozenset((request.substitute or {}).get("keep") or ())
    program.lent_log.append(keep)
    program.lent_checks.setdefault(program.item, set()).add(keep)


def memo(program: Any, key: Any, start: int) -> None:
    """After PROGRAM's memo KEY was read (its lent_log was START long before): a memo computed from
    lent outcomes is lent to every check that reads it."""
    log = program.lent_log
    if len(log) > start:
        program.lent_memos.setdefault(key, set()).update(log[start:])
    keeps = program.lent_memos.get(key) if program.lent_memos else None
    if keeps:
        program.lent_checks.setdefault(program.item, set()).update(keeps)


def later_held(assignment: Any, stage: int, keeps: set[frozenset[str]]) -> bool:
    """Whether a variant of a STAGE check that kept one of KEEPS held a later core stage's function
    (every function but the kept ones is the reference's there)."""
    later = {assignment.qualified(f) for p in assignment.problems
             if p.stage > stage and not assignment.is_optional(p.stage) for f in p.functions}
    return bool(later) and any(not later <= keep for keep in keeps)


def withheld(exc: BaseException | None, status: str, hidden: bool) -> tuple[str, str]:
    """A lent check's (row text, hint): what a hidden check shows (a Fail's data-free summary and its
    hint, which the hidden checks' contract keeps free of anything the program produced: "Public
    first", docs/threat-model.md), the call and the expected value of a visible one (the
    grader's), and WITHHELD.  A skip's reason, or a Fail with no data-free summary: the verdict."""
    verdict = "This check failed." if status == "failed" else "This check was skipped."
    if not isinstance(exc, Fail):
        return f"{verdict}\n{WITHHELD}", ""
    lines = [exc.hidden if exc.hidden is not None else verdict]
    if not hidden:
        if exc.ran:
            lines.append(f"Ran: {exc.ran}")
        if exc.show_values:
            lines.append(f"Expected: {show(exc.expected)}")
    if exc.hint:
        lines.append(f"Hint: {exc.hint}")
    lines.append(WITHHELD)
    return "\n".join(lines), exc.hint or ""


def later_functions(assignment: Any, stage: int) -> frozenset[str]:
    """The functions of the core stages after STAGE, as substitution names them."""
    return frozenset(assignment.qualified(f) for p in assignment.problems
                     if p.stage > stage and not assignment.is_optional(p.stage) for f in p.functions)


def own_later(assignment: Any, stage: int, reference: str) -> frozenset[str]:
    """What a confirming run of a STAGE check keeps as the student's (so its variant's reference
    lacks it): the later core stages' functions, and every top-level function of REFERENCE that
    neither a function of an earlier stage nor the module's own top-level code (its
    `if __name__ == "__main__":` part aside) reaches but through them (a helper of a later
    stage: the Joker rule's, a strategy's)."""
    later = later_functions(assignment, stage)
    earlier = {f.rsplit(".", 1)[-1] for p in assignment.problems if 0 < p.stage < stage for f in p.functions}
    return later | _unreached(reference, frozenset(earlier), frozenset(f.rsplit(".", 1)[-1] for f in later))


@functools.lru_cache(maxsize=32)
def _unreached(reference: str, earlier: frozenset[str], later: frozenset[str]) -> frozenset[str]:
    try:
        tree = ast.parse(reference)
    except SyntaxError:
        return frozenset()
    functions = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}

    def used(node: ast.AST) -> set[str]:
        return {n.id if isinstance(n, ast.Name) else n.attr for n in ast.walk(node)
                if isinstance(n, (ast.Name, ast.Attribute))}

    todo = [name for name in functions if name in earlier]
    for node in tree.body:          # what module-level code and classes use is reached
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not _main_part(node):
            todo.extend(used(node))
    reached: set[str] = set()
    while todo:
        name = todo.pop()
        if name in reached or name not in functions or name in later:
            continue
        reached.add(name)
        todo.extend(used(functions[name]))
    return frozenset(name for name in functions if name not in reached)


def _main_part(node: ast.AST) -> bool:
    """`if __name__ == "__main__":` (what runs the program as a script, never on import)."""
    test = getattr(node, "test", None)
    return (isinstance(node, ast.If) and isinstance(test, ast.Compare) and isinstance(test.left, ast.Name)
            and test.left.id == "__name__")


def substitute_own(sub: dict, own: frozenset[str]) -> dict:
    """SUB (a request's substitution) with OWN kept as the student's, never the reference's."""
    return {"names": [n for n in sub.get("names") or () if n not in own],
            "keep": sorted(set(sub.get("keep") or ()) | own)}


class Confirm:
    """GradingPlugin's confirming runs of lent checks (a mixin: the state is the plugin's)."""

    def confirm_lent(self, items, light: list, watched: bool) -> int:
        """Each row whose text was withheld (self._lent_rows: (row, check, its own text, hint)) run
        once more with the later stages the student's own; the rows whose run says the same text
        get it back.  Returns how many did."""
        pending, self._lent_rows = self._lent_rows, []
        student = self._student
        if not pending or student is None or self.load_failure:
            return 0
        where = self._retry_index(items, light)
        reference = getattr(self._reference, "_source", None) or ""
        saved = student._memo, student.lent_memos, student.substitute, student.own_later, student.item
        shown = 0
        try:
            for result, check, text, hint in pending:
                found = where.get(check.nodeid)
                if found is None or check.nodeid in student.ran_out:
                    continue                # (an endless loop is not waited out twice)
                student._memo, student.lent_memos = {}, {}      # (a game played beside the reference: not read again)
                student.own_later = own_later(self.assignment, check.stage, reference)
                again = self._confirming_run(found[0], found[1], check, watched)
                if again is not None and again == (text, hint):
                    result.output, result.hint = text, hint
                    shown += 1
        finally:
            student._memo, student.lent_memos, student.substitute, student.own_later, student.item = saved
        return shown

    def _confirming_run(self, item, call, check, watched: bool) -> tuple[str, str] | None:
        """ITEM run once more: (its row's text, hint) as _record would make them, or None (passed,
        ran out of time, a grader fault, or lent beside a later stage again)."""
        student = self._student
        student.item = check.nodeid
        student.public_check[0] = False
        student.called.clear()
        student.substitute = check.substitute
        before = set(student.lent_checks.get(check.nodeid, ()))
        student.lent_checks[check.nodeid] = set()
        kwargs = call.params.copy()
        for name in call.fixtures:
            kwargs[name] = (student if name == "student" else self._reference if name == "reference"
                            else self.assignment if name == "assignment" else _ignore)
        running = guards._RUNNING
        exc: BaseException | None = None
        try:
            if watched:
                running[0] = time.perf_counter()
            call.function(**kwargs)
        except (Exit, KeyboardInterrupt):
            raise
        except BaseException as error:      # noqa: BLE001 -- its verdict, compared below
            exc = error
        finally:
            running[0] = None
            again = student.lent_checks.get(check.nodeid, set())
            student.lent_checks[check.nodeid] = before
        if exc is None or later_held(self.assignment, check.stage, again):
            return None
        if isinstance(exc, Fail):
            return self._fail_text(exc, check.hidden)
        if isinstance(exc, pytest.skip.Exception):
            return f"Skipped: {exc.msg}", ""
        return None


def _ignore(key: str, value: object) -> None:
    """record_property in a confirming run: not shown."""

