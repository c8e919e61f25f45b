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

Confirmed (confirm.py's Confirm, after the checks): such a check is run once more where the later stages are
the student's own: first in the student's own sandbox with every function its own (ALL_OWN: no
life started, no reference anywhere), and when that says something else, where only the earlier
stages are the reference's (Program.own_later: its variant holds the reference of the earlier
stages only, and of the helpers they reach), in lives of its own; each with memos of its own.  When it fails there
with the very text it gave (its row as _record makes it), that text owes nothing to the later
stages' reference (the program says it without them): the row shows it whole.  Otherwise (it
passes, differs, runs out of time) the row keeps the text above.  So an honest program's failure
keeps its details unless they depend on its own later stages, and a program that says something
else beside the reference than without it shows neither.
"""

from __future__ import annotations

import ast
import functools
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
    later = later_functions(assignment, stage)
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


# A confirming run's first try (confirm.py): every function the student's own, so its requests run
# in the student's own sandbox, which never held any reference: whatever it says there owes the
# reference nothing, and costs no life.  (Identity marks it: own_later is compared with `is`.)
ALL_OWN: frozenset[str] = frozenset({"*"})


def substitute_own(sub: dict, own: frozenset[str]) -> dict | None:
    """SUB (a request's substitution) with OWN kept as the student's, never the reference's (None,
    no substitution at all, for ALL_OWN)."""
    if own is ALL_OWN:
        return None
    return {"names": [n for n in sub.get("names") or () if n not in own],
            "keep": sorted(set(sub.get("keep") or ()) | own)}
