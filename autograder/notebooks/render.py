"""Rendering checks: evaluated against the reference at generation time into check-cell code, and
markdown {{ expr }} placeholders and transcripts filled in."""

from __future__ import annotations

import ast
import copy
import dataclasses
import functools
import re
import textwrap

from autograder.assignment import Problem

from .checks import Check
from .common import NotebookError

# -- evaluating checks against a namespace --------------------------------------------------

def _literal(value, where: str) -> str:
    text = repr(value)
    try:
        if ast.literal_eval(text) != value:
            raise ValueError
    except (ValueError, SyntaxError):
        raise NotebookError(f"{where}: the reference returned {text}, which is not a Python literal") from None
    return text


@functools.lru_cache(maxsize=512)
def compiled(code: str, where: str, mode: str = "exec"):
    """CODE compiled once (the generator runs the same reference, tools and runtime for every problem)."""
    return compile(code, f"<{where}>", mode)


def _run(code: str, namespace: dict, where: str) -> None:
    try:
        exec(compiled(code, where), namespace)
    except Exception as err:
        raise NotebookError(f"{where}: the reference failed: {type(err).__name__}: {err}\n{code}") from None


def _eval(expr: str, namespace: dict, where: str):
    try:
        return eval(compile(expr, f"<{where}>", "eval"), namespace)
    except Exception as err:
        raise NotebookError(f"{where}: the reference failed on {expr}: {type(err).__name__}: {err}") from None


def _hint_text(got_name: str, check: Check | None, where: str) -> str:
    """' + <the hint>' for an assertion message ('' without a hint; conditional with hint_when)."""
    if check is None or not check.hint:
        return ""
    text = repr("\nHint: " + check.hint)
    if check.hint_when is None:
        return f" + {text}"
    return f" + ({text} if {got_name} == {_literal(check.hint_when, where)} else '')"


def _assert_value(got_name: str, expected, ran: str, where: str, check: Check | None = None) -> list[str]:
    """An assert whose message reads like the grader's feedback: Ran / Expected / Got / Hint."""
    literal = _literal(expected, where)
    message = repr(f"Ran: {ran}\nExpected: {literal}\nGot: ") + f" + repr({got_name})" + _hint_text(got_name, check, where)
    if expected is None or isinstance(expected, bool):
        return [f"assert {got_name} is {literal}, {message}"]
    type_name = type(expected).__name__
    return [f"assert {got_name} == {literal} and type({got_name}) is {type_name}, {message}"]


def check_label(check: Check) -> str:
    """What a check block is called where the student reads it (its label, its origin, or its call)."""
    if check.label:
        return check.label
    if check.origin.startswith(("public scenario", "from the")):
        return check.origin
    text = check.call or check.expr
    return text if len(text) <= 90 else text[:87] + "..."


def checks_code(problem: Problem, blocks: list[tuple[str, str]]) -> str:
    """A problem's public checks as one code text, run the same way in a notebook cell, in
    check.py and in the sandbox (engine/selfcheck.py): one `with checks(...)` block per check."""
    lines = [f"checks = PublicChecks({problem.number}, {problem.title!r})"]
    for what, code in blocks:
        body = code.split("\n")
        if body and body[0].startswith("# ") and body[0][2:] == what:
            body = body[1:]                      # the block's label already says where it comes from
        lines.append(f"with checks({what!r}):")
        lines.append(textwrap.indent("\n".join(body), "    "))
    lines.append("checks.done()")
    return "\n".join(lines)


def render_check(check: Check, namespace: dict, where: str) -> str:
    """Python code for CHECK with its expected values computed in NAMESPACE (which it updates)."""
    out = [f"# {check.origin}"] if check.origin.startswith(("public scenario", "from the")) else []
    out += list(check.setup)
    if check.setup:
        _run("\n".join(check.setup), namespace, where)
    if check.raises:
        try:
            eval(compile(check.expr, f"<{where}>", "eval"), namespace)
        except Exception as err:
            if type(err).__name__ != check.raises:
                raise NotebookError(f"{where}: {check.expr} raised {type(err).__name__}, "
                                    f"not {check.raises}") from None
        else:
            raise NotebookError(f"{where}: {check.expr} did not raise {check.raises} in the reference")
        message = (repr(f"Ran: {check.expr}\nExpected: {check.raises} raised\nGot: ") + " + repr(got) + "
                   + repr(f" (no {check.raises})") + _hint_text("got", check, where))
        out += ["try:", f"    got = {check.expr}", f"except {check.raises}:", "    pass", "else:",
                f"    raise AssertionError({message})"]
        return "\n".join(out)
    if check.call:
        before = {}
        for expr in check.after:
            before[expr] = copy.deepcopy(_eval(expr, namespace, where))
        run = _scripted_run(check)
        _run(run, namespace, where)
        if check.trim:
            # The answers the reference never read are neither shown nor given: a copy of CHECK with
            # the ones it read (the caller's Check unchanged).  Not run again: the same answers read
            # on the same dice give the same run; only what it left unread differs (none).
            unread = namespace["LAST_RUN"]["answers"]
            check = dataclasses.replace(check, answers=check.answers[:len(check.answers) - len(unread)], trim=False)
            namespace["LAST_RUN"]["answers"] = []
            run = _scripted_run(check)
        out.append(run)
        seeded = f"random.seed({check.seed})"
        rolled = f"dice {check.dice}" if check.dice is not None else seeded
        if check.dice is not None and check.seed is not None:
            rolled = f"{seeded}, {rolled}"
        ran = f"{check.call} (answers {check.answers}, {rolled})"
        if len(ran) > 160:      # (check.py shows no code "above": the seed and the first answers are said)
            rolled = f"{len(check.dice)} dice chosen" if check.dice is not None else rolled
            if check.dice is not None and check.seed is not None:
                rolled = f"{seeded}, {rolled}"
            first = ", ".join(repr(answer) for answer in check.answers[:6])
            more = ", ..." if len(check.answers) > 6 else ""
            ran = f"{check.call} ({rolled}; {len(check.answers)} answers: [{first}{more}])"
        if check.say_setup and check.setup:      # (the state the call starts from: nowhere else said)
            ran = "; ".join([*check.setup, ran])
        if check.value:
            out += _assert_value("value", namespace["value"], ran, where, check)
        if check.quiet:       # the handout's "prints nothing" (the grade's purity check): DEBUG: lines aside
            if _eval(QUIET_LINES, namespace, where):
                raise NotebookError(f"{where}: {check.call} prints something in the reference")
            message = repr(f"Ran: {ran}\nExpected: nothing printed (a line starting DEBUG: is fine)\n"
                           "Got (all it printed):\n")
            out.append(f"assert not {QUIET_LINES}, {message} + printed{_hint_text('printed', check, where)}")
        prefixes = tuple(check.lines)
        got = _eval(f"lines_starting(printed, *{prefixes!r})", namespace, where) if prefixes else []
        if prefixes and (got or check.origin == "content"):
            out.append(f"shown = lines_starting(printed, *{prefixes!r})")
            namespace["shown"] = got
            label = " / ".join(repr(p) for p in prefixes)
            message = repr(f"Ran: {ran}\nExpected these {label} lines: ")
            out.append(f"assert shown == {_literal(got, where)}, {message} + repr({_literal(got, where)}) + "
                       f"'\\nGot (all it printed):\\n' + printed{_hint_text('shown', check, where)}")
        if check.final:
            got = _eval("final_number(printed)", namespace, where)
            out.append("got = final_number(printed)")
            namespace["got"] = got
            out += _assert_value("got", got, f"the final score {check.call} printed", where, check)
        for expr in check.after:
            value = _eval(expr, namespace, where)
            if check.origin != "content" and value == before[expr]:
                continue                         # unchanged by the call: comparing it tells nothing
            out.append(f"got = {expr}")
            namespace["got"] = value
            out += _assert_value("got", value, f"after {check.call}, {expr}", where, check)
        if check.strict:
            _run("script_used()", namespace, where)    # the reference reads every answer and die
            out.append("script_used()")
        return "\n".join(out)
    value = _eval(check.expr, namespace, where)
    out.append(f"got = {check.expr}")
    namespace["got"] = value
    # the setup in Ran: too, so that the names the call reads are said (not "chooseSlot(s)" alone)
    ran = "; ".join([*check.setup, check.expr])
    ran = check.ran or (ran if len(ran) <= 200 else check.expr)
    out += _assert_value("got", value, ran, where, check)
    return "\n".join(out)



QUIET_LINES = "[line for line in printed.splitlines() if line.strip() and not line.strip().startswith('DEBUG:')]"


def _scripted_run(check: Check) -> str:
    """The line of a check that runs CHECK.call with its scripted answers and dice."""
    options = [f"answers={check.answers!r}"]
    if check.dice is not None:
        options.append(f"dice={check.dice!r}")
    if check.dice is None or check.seed is not None:    # (both: the seed shuffles, the dice are chosen)
        options.append(f"seed={check.seed!r}")
    # strict=False, then script_used() after the comparisons: a wrong value (a refused answer
    # accepted, so later answers unread) is told as expected / got with its hint, as the grader does
    options.append("strict=False")
    if check.until_eof:
        options.append("until_eof=True")
    run = f"value, printed = run_scripted(lambda: {check.call}, {', '.join(options)})"
    if len(run) > 100:
        run = "value, printed = run_scripted(\n    lambda: " + check.call + ",\n    " + ",\n    ".join(options) + ")"
    return run


_PLACEHOLDER = re.compile(r"\{\{\s*(?P<body>.+?)\s*\}\}")


def fill_markdown(text: str, namespace: dict, content: dict, where: str) -> str:
    def substitute(match: re.Match) -> str:
        body = match["body"]
        if body.startswith("transcript "):
            name = body.split(None, 1)[1]
            spec = content.get("transcripts", {}).get(name)
            if spec is None:
                raise NotebookError(f"{where}: no [transcripts.{name}] in the content file")
            local = dict(namespace)
            if spec.get("setup"):
                _run("\n".join(spec["setup"]), local, where)
            run = (f"value, printed = run_scripted(lambda: {spec['call']}, answers={spec.get('answers', [])!r}, "
                   f"dice={spec.get('dice', [])!r})")
            _run(run, local, where)
            return "```text\n" + local["printed"].strip("\n") + "\n```"
        if body.startswith("code "):                   # {{ code NAME }}: a function's source, as given
            return "```python\n" + namespace["__sources__"][body.split(None, 1)[1]].rstrip("\n") + "\n```"
        return repr(_eval(body, namespace, where))
    return _PLACEHOLDER.sub(substitute, text)
