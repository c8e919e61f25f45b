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
"""

from __future__ import annotations

from typing import Any

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
