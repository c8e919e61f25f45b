"""Small check helpers the suites share: turn sandbox Outcomes into values or clear failures."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterator
from typing import Any

from .feedback import Fail, describe_call, show
from .sandbox import Outcome
from .sources import callees


class GraderFault(RuntimeError):
    """The reference or the grader itself misbehaved: never the student's fault."""


_TRIVIAL = [False]


def could_pass_by_doing_nothing(expected: Any = None, *, raises: bool = False) -> None:
    """Mark the running check as one a function that does nothing could pass (it expects None, 0,
    False, an empty value or an exception).  The plugin counts such a check only when a check of
    the same function and problem with a real answer passed too: no points for nothing."""
    if raises or expected is None or (type(expected) in (int, float, bool, str, list, dict, tuple)
                                      and not expected):
        _TRIVIAL[0] = True


def take_trivial() -> bool:
    """Whether the check that just ran could pass by doing nothing (and reset the mark)."""
    value, _TRIVIAL[0] = _TRIVIAL[0], False
    return value


def explain(outcome: Outcome, ran: str) -> str:
    """One plain sentence for an outcome that did not return normally."""
    status = outcome.status
    error = outcome.error or {}
    if status == "no_function":
        suggestion = error.get("suggestion")
        name = ran.split("(")[0]
        text = f"Your file has no function `{name}`"
        return text + (f"; did you mean `{suggestion}`?" if suggestion else ".")
    if status == "syntax_error":
        where = f" on line {error['line']}" if isinstance(error.get("line"), int) else ""
        return (f"Your file has a syntax error{where}: {error.get('message')}"
                + newer_python_note(error))
    message = f": {error['message']}" if error.get("message") else ""     # KeyboardInterrupt() has none
    if status == "import_error":
        where = f" (line {error['line']})" if error.get("line") else ""
        return f"Your file raised {error.get('type')} while being loaded{where}{message}"
    if status == "exception":
        where = f" on line {error['line']}" if error.get("line") else ""
        if error.get("type") == "NotImplementedError":
            return f"{ran} is not written yet: {error.get('message') or 'NotImplementedError'}"
        return f"{ran} raised {error.get('type')}{where}{message}"
    return f"{ran}: {outcome.message or status}"


def newer_python_note(error: dict) -> str:
    """Name the grader's Python when a syntax error may come from a newer one (f-strings: 3.12)."""
    version = str(error.get("python") or "")
    if not version:
        return ""
    text = str(error.get("text") or "")
    older = tuple(int(v) for v in version.split(".")[:2] if v.isdigit()) < (3, 12)
    if older and re.search(r"""(?i)(?<![a-z0-9_])[rb]?f[rb]?['"]""", text):
        return (f" (the grader runs Python {version}; Python 3.12 and newer also accept f-strings "
                "that nest the same quotes or hold a backslash: write it for Python "
                f"{version}, or ask your instructor to grade with a newer Python: --python)")
    return f" (checked with Python {version})"


def returned(outcome: Outcome, ran: str, *, hint: str | None = None, why: str = "") -> Any:
    """The value OUTCOME returned, or Fail explaining why there is none (and, for a hidden check,
    what failed without the call: WHY says what the case covers)."""
    if outcome.status == "ok":
        return outcome.value
    text = explain(outcome, ran)
    raise Fail(text, hidden=_hidden_no_value(outcome, ran.split("(")[0], text, why), ran=ran, hint=hint,
               show_values=False,
               output=outcome.stdout if outcome.status not in ("no_function", "syntax_error") else None)


def _hidden_no_value(outcome: Outcome, func: str, text: str, why: str) -> str:
    """The data-free summary of a call that did not return a value."""
    if outcome.status == "exception" and (outcome.error or {}).get("type") == "NotImplementedError":
        return f"{func} is not written yet."
    if outcome.status == "no_function":
        return text.split(";")[0].rstrip(".") + "."
    return f"{func} did not return normally{_because(why)}."


def _because(why: str) -> str:
    return f" ({why})" if why else ""


def reference_ok(outcome: Outcome, ran: str | Callable[[], str]) -> Outcome:
    """The reference's OUTCOME of RAN, or a GraderFault: every expected value must exist.  (RAN: the
    call's text, or a function making it: made only for the fault, a passing check never needs it.)"""
    if outcome.status != "ok":
        ran = ran() if callable(ran) else ran
        raise GraderFault(f"the reference failed on {ran}: {outcome.status} {outcome.message} {outcome.error}")
    return outcome


def reference_value(outcome: Outcome, ran: str) -> Any:
    """The value the reference returned for RAN (a GraderFault if it did not return)."""
    return reference_ok(outcome, ran).value


def none_hint(got: Any, expected: Any, outcome: Outcome | None) -> str | None:
    """A beginner's hint for a call that returned None where a value was expected: it printed
    instead of returning (what it printed shows in the check), or a path ends without `return`."""
    if got is not None or expected is None:
        return None
    printed = outcome is not None and any(
        line.strip() and not line.startswith("DEBUG:") for line in (outcome.stdout or "").splitlines())
    if printed:
        return "It printed its answer but returned None: give the value back with `return` (print only shows it)."
    return "It returned None: does every path through the function end with a `return` of the value?"


def expect_same(student, reference, func: str, *args: Any,
                hint: Callable[[Any, Any], str | None] | None = None, why: str = "",
                then: Callable[[Outcome], None] | None = None, **kwargs: Any) -> Any:
    """Call FUNC on both programs; Fail unless the student returns what the reference returns.
    WHY (what the case covers) is the whole of a hidden check's feedback.  THEN(outcome), when
    given, checks more of the student's call once the value is right (what it printed, say)."""
    # (the call's text only where it is shown: a check that passes never needs it)
    ref_outcome = reference.call(func, *args, **kwargs)
    if ref_outcome.status != "ok":
        reference_ok(ref_outcome, describe_call(func, args, kwargs))
    expected = ref_outcome.value
    could_pass_by_doing_nothing(expected)
    outcome = student.call(func, *args, **kwargs)
    got = outcome.value if outcome.status == "ok" else returned(outcome, describe_call(func, args, kwargs), why=why)
    if got != expected or type(got) is not type(expected):
        ran = describe_call(func, args, kwargs)
        raise Fail(f"Called {ran}. Returned {show(got)}, but expected {show(expected)}{_because(why)}.",
                   hidden=f"{func} returned the wrong value{_because(why)}.",
                   ran=ran, expected=expected, got=got,
                   hint=(hint(got, expected) if hint else None) or none_hint(got, expected, outcome),
                   show_values=False)
    if then is not None:
        then(outcome)
    return got


def expect_raises(student, func: str, *args: Any, error: str = "ValueError", why: str = "",
                  **kwargs: Any) -> None:
    could_pass_by_doing_nothing(raises=True)
    outcome = student.call(func, *args, **kwargs)
    if outcome.status == "exception" and (outcome.error or {}).get("type") == error:
        return
    ran = describe_call(func, args, kwargs)
    must = f"{func} must raise {error} here{_because(why)}."
    if outcome.status == "ok":
        raise Fail(f"Called {ran}. Returned {show(outcome.value)}, but expected it to raise {error}.",
                   hidden=must, ran=ran, show_values=False)
    text = explain(outcome, ran)
    hidden = _hidden_no_value(outcome, func, text, why) if outcome.status in ("exception", "no_function") else must
    if outcome.status == "exception" and "not written yet" not in hidden:
        hidden = must
    raise Fail(f"Called {ran}; expected {error}. {text}", hidden=hidden, ran=ran, show_values=False)


@contextlib.contextmanager
def reference_helpers(student, helpers: list[str], func: str) -> Iterator[None]:
    """Within the block, the student's calls run with the reference's HELPERS (the functions whose
    bug an excuse blames) put in, the check's other substitutions kept, FUNC (the function the
    excuse is about) and every other function the student's own: the proof an excuse by agreement
    needs (right_with_reference)."""
    sub = student.substitute
    # (an own-functions check substitutes nothing: every other function the problems give stays the
    # student's, so the variant holds the reference of HELPERS only, never of FUNC or its stage)
    kept = set(sub.get("keep") or ()) if sub else set(student.handout_names)
    # (a helper's bug may be in what it calls: a total's in the upper bonus; those too, FUNC aside)
    reference = getattr(student, "_reference", None)
    if reference:
        helpers = callees(reference, helpers, kept | set((sub or {}).get("names") or ()))
    names = sorted(((set(sub.get("names") or ()) if sub else set()) | set(helpers)) - {func})
    keep = sorted((kept | {func}) - set(names))
    with student.substituting({"names": names, "keep": keep}):
        yield


def right_with_reference(student, helpers: list[str], func: str, *args: Any, expected: Any, **kwargs: Any) -> bool:
    """Whether the student's FUNC(*ARGS) returns EXPECTED (same type) when HELPERS, the functions
    whose bug an excuse blames, are the reference's: the proof an excuse by agreement needs.

    A suite may pass a wrong answer of FUNC that equals what the student's own helper gives (its
    bug is charged in its own problem).  That helper's answer is asked AFTER the excused call, in
    the same life, so a program that remembers what FUNC said can make its helper say it again,
    once, and be excused for a FUNC that does nothing (round 11, docs/threat-model.md).  Here
    FUNC runs with the reference's HELPERS put in (a substitution variant of its own): a FUNC
    that does its own part right then gives the reference's answer, whatever the program
    remembers."""
    with reference_helpers(student, helpers, func):
        outcome = student.call(func, *args, **kwargs)
    return outcome.status == "ok" and type(outcome.value) is type(expected) and outcome.value == expected
