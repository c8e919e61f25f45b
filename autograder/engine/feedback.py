"""How a failed check explains itself: what ran, what was expected, what came back, and a hint.

Tests raise Fail; the pytest plugin turns it into a TestResult.  A Fail holds both texts a
check may need: the detailed summary (with the call and the values) and HIDDEN, a data-free
summary that says what the case covers.  The plugin chooses by the check's visibility: a hidden
check shows only the data-free summary and the hint, never the call, the dice or the expected value.
"""

from __future__ import annotations

from typing import Any

from . import typed

MAX_VALUE_CHARS = 300
MAX_OUTPUT_LINES = 40


class Fail(AssertionError):
    """A check failed for a reason the student should read.

    SUMMARY is the detailed sentence of a visible check; HIDDEN (optional) the data-free one a
    hidden check shows instead (what the case covers, no call, no values; default: SUMMARY).
    ASPECT (optional): what differed, in grader words shared by every check that compares the
    same behaviour; a later stage's failure with an earlier stage's aspect is charged once
    (engine/charge.py).  SOLE (optional): a finished whole-game transcript's only difference, when
    every line that differs is of one kind and differs the same way (divergence.sole_difference);
    the problem's later checks with the same sole difference are charged once (charge.py).
    RUN (optional): the run the check read, when several checks read one run (a game's rounds,
    its dice, its final score): the checks of the run charged for a sole difference all stay
    charged; another run with that difference is excused (default: each check is its own run)."""

    def __init__(self, summary: str, *, hidden: str | None = None, ran: str | None = None,
                 expected: Any = None, got: Any = None, hint: str | None = None,
                 output: str | None = None, show_values: bool = True, aspect: str | None = None,
                 sole: str | None = None, run: str | None = None):
        super().__init__(summary)
        self.aspect = aspect
        self.sole = sole
        self.run = run
        self.summary = summary
        self.hidden = hidden
        self.ran = ran
        self.expected = expected
        self.got = got
        self.hint = hint
        self.output = output
        self.show_values = show_values

    def render(self, hidden: bool = False) -> str:
        """The feedback text; HIDDEN keeps the test's data out of it."""
        lines = [self.hidden if hidden and self.hidden is not None else self.summary]
        if not hidden:
            if self.ran:
                lines.append(f"Ran: {self.ran}")
            if self.show_values:
                lines.append(f"Expected: {show(self.expected)}")
                lines.append(f"Got: {show(self.got)}")
            if self.output:
                lines.append("Your program printed (end):\n" + tail(self.output))
        if self.hint:
            lines.append(f"Hint: {self.hint}")
        return "\n".join(lines)


class _Shown:
    """Shows as TEXT inside a repr() (a placeholder the sandbox sent instead of a value)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def _placeholder(value: dict) -> _Shown:
    """The words for a value the sandbox could not send as it was (engine/harness/values.py,
    engine/bounds.py): never the transport's own dict."""
    kind = str(value.get("__type__"))[:60]
    if value.get("too_large") or (kind == "int" and len(value) == 1):
        return _Shown("<an int too large to show>")
    if kind == "str" and "length" in value:
        return _Shown(f"{value.get('start', '')!r}...<a str of {value['length']} characters>")
    if value.get("cycle"):
        return _Shown(f"<a {kind} that contains itself>")
    if kind == "nested too deeply":
        return _Shown("<a value nested too deeply to show>")
    if value.get("truncated"):
        return _Shown("..." if kind == "..." else f"<a {kind} nested too deeply to show>")
    if "keys" in value:
        return _Shown(f"<a {kind} whose keys are not str or int>")
    return _Shown(f"<an object of type {kind}>")


def _readable(value: Any, depth: int = 0) -> Any:
    """VALUE with every sandbox placeholder in it replaced by its words (bounded depth)."""
    if isinstance(value, dict):
        if "__type__" in value:
            return _placeholder(value)
        if depth < 50:
            return {k: _readable(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)) and depth < 50:
        items = [_readable(v, depth + 1) for v in value]
        return items if isinstance(value, list) else type(value)(items)
    return value


def show(value: Any, limit: int = MAX_VALUE_CHARS) -> str:
    """A value as the student would write it, cut in the middle when long (a typed request's
    tuples, sets and int-keyed dicts as Python writes them: engine/typed.py; a placeholder the
    sandbox sent instead of a value, in words)."""
    return cut(repr(_readable(typed.decode(value))), limit)


def cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    keep = (limit - 20) // 2
    return f"{text[:keep]} ...[{len(text) - 2 * keep} chars cut]... {text[-keep:]}"


def tail(output: str, lines: int = MAX_OUTPUT_LINES) -> str:
    """The last LINES lines of OUTPUT (where a game went wrong is usually near its end)."""
    all_lines = output.rstrip("\n").split("\n")
    if len(all_lines) <= lines:
        return "\n".join(cut(line, 200) for line in all_lines)
    kept = [cut(line, 200) for line in all_lines[-lines:]]
    return f"...[{len(all_lines) - lines} earlier lines cut]...\n" + "\n".join(kept)


def describe_call(func: str, args: list | tuple = (), kwargs: dict | None = None) -> str:
    """score('Full House', [2, 2, 3, 3, 3]) -- the call as the student would type it."""
    parts = [cut(repr(a), 120) for a in args]
    parts += [f"{k}={cut(repr(v), 120)}" for k, v in (kwargs or {}).items()]
    return f"{func}({', '.join(parts)})"


def ordinal(n: int) -> str:
    if 10 <= n % 100 <= 20:
        suffix = "th"
    else:
        suffix = {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"
