"""`grade`'s sandbox template booted first thing (__main__.py), before `cli` and the verb's modules.

A cold `grade` forks its first sandbox from a template (engine/launch.py): a new interpreter
that boots on the other CPU while this one loads pytest and collects the suites.  On a quiet
machine the sandboxes' side (the template's boot, the first sandbox, the plan run ahead) is the
longer of the two and the checks wait for it, so every ms before the template's spawn is a ms of
the whole command: booted from `cli` it waited for `cli` and the lives' modules (~15-20 ms of
imports the spawn does not need); here only for engine/launch.py.  `cli` takes the open scope
(take_scope) and closes it when the verb returns, as it closes one it opens itself.
"""

from __future__ import annotations

import contextlib

# No template for these (cli._template_early's rule): --public runs no sandbox template, --python
# another interpreter (chosen later), help no grade.
SKIP = ("--public", "--python", "-h", "--help")

_scopes: list[contextlib.AbstractContextManager] = []


def wanted(words: list[str]) -> bool:
    """Whether `grade WORDS` (the words after the verb) boots a template."""
    return not any(w in SKIP or w.startswith("--python=") for w in words)


def template_first(words: list[str]) -> None:
    """Open a template scope and boot its template now, for the `grade` verb of WORDS (a no-op for
    the words that boot none)."""
    if not wanted(words):
        return
    from ..engine.launch import prestart_template, template_scope

    scope = template_scope()
    scope.__enter__()
    try:
        prestart_template()
    except BaseException:
        scope.__exit__(None, None, None)
        raise
    _scopes.append(scope)


def take_scope() -> contextlib.AbstractContextManager | None:
    """The scope template_first opened (once; None when it opened none): its taker closes it."""
    return _scopes.pop() if _scopes else None
