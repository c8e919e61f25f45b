"""Helpers of the CS21 suites: scenarios, points, the protocol lines, and one check per kind of call.

Every expected value comes from the reference on the same call, stdin and dice.  The output
is read only through the [protocol] regexes of assignment.toml (anything else a program
prints is ignored); prompts and messages are compared exactly, as the handout fixes them.
Hidden checks say what they cover (the case's `why`), never the call, the dice or a value.
"""

from __future__ import annotations

from autograder.engine.bounds import number
from autograder.engine.checks import could_pass_by_doing_nothing, explain, reference_ok
from autograder.engine.divergence import first_line_difference, sole_difference
from autograder.engine.feedback import cut, describe_call, ordinal, show
from autograder.engine.grammar import Line, LineGrammar
from autograder.engine.replay import dice_rolled, shown_calls
from autograder.engine.suite import Fail, Suite, hint_for, reference_versions  # noqa: F401 (the suites import it from here)

suite = Suite(__file__)
ASSIGNMENT = suite.assignment
RULES = suite.rules
PROTOCOL = ASSIGNMENT.extra["protocol"]
SLOTS: list[str] = RULES["slots"]
# Dice after a scenario's own: a program that rolls too many can finish and be told so.
SPARE_DICE = [1, 2, 4, 5, 6, 3, 6, 1, 2, 4, 5, 3, 1, 6, 2]
CALL_TIMEOUT = 2.0
GAME_TIMEOUT = 5.0

# The line kinds the grader reads, in the order they are tried (fields: groups, spaces collapsed).
LINE_KINDS = ("position", "value", "scores_header", "score_line", "round", "final_line")
GRAMMAR = LineGrammar.of(PROTOCOL, LINE_KINDS)
# A game whose first wrong line is a final line, and whose case has no hint of its own: the rule of that line.
FINAL_LINE_HINTS = {
    "Upper bonus": "35 when Ones to Sixes hold 63 or more together (open slots count 0).",
    "Yahtzee bonus": "100 for each further Yahtzee while the Yahtzee slot holds 50, judged on the card BEFORE "
                     "the round's slot is scored (the Yahtzee that fills the slot earns nothing).",
    "Total": "The total is the thirteen slots plus both bonuses.",
}
KIND_NAMES = {"position": "'Position:'", "value": "'Value:' (the dice)", "scores_header": "'Slot   Points'",
              "score_line": "slot score", "round": "'Round N'", "final_line": "final (bonus or Total)"}
MESSAGES = (PROTOCOL["reroll_refused"], PROTOCOL["slot_unknown"], PROTOCOL["slot_used"])


def scenarios(name: str) -> dict:
    """scenarios/NAME.toml (inputs only: expected values come from the reference)."""
    return suite.load(name)


def problem_of(function: str) -> int:
    return suite.problem_of(function)


def params(cases: list[dict], problem=lambda case: problem_of(case["call"][0])) -> list:
    """pytest params for CASES (hidden unless `public = true`); the plugin shares each problem's
    points out over its checks by their `weight` (default 1), less explicit points."""
    return suite.cases(cases, problem=problem,
                       id=lambda case: f"{case['call'][0]}, {case['why']}" if "call" in case else case["why"])


# ---------------------------------------------------------------------------------------------
# Reading output
# ---------------------------------------------------------------------------------------------

def protocol_lines(text: str) -> list[Line]:
    """The lines of TEXT the grader reads, in order."""
    return GRAMMAR.read(text)


def show_line(line: Line) -> str:
    """A protocol line as the handout writes it (spacing normalised)."""
    kind, groups = line.kind, line.fields
    if kind == "position":
        return "Position:   A  B  C  D  E"
    if kind == "value":
        return "Value:   " + "  ".join(groups[0].split())
    if kind == "scores_header":
        return "Slot   Points"
    if kind == "round":
        return f"Round {groups[0]}"
    return f"{groups[0]} {groups[1]:>8}"


def messages(text: str) -> list[str]:
    """The handout's messages (refused answers) TEXT holds, in order."""
    return [line.strip() for line in (text or "").splitlines() if line.strip() in MESSAGES]


def prompts(outcome) -> list[str]:
    """The prompt of every input() call of OUTCOME, in order."""
    return [str(event[1]) if len(event) > 1 else "" for event in outcome.events or () if event and event[0] == "in"]


def renamed_prompts(mine: list[str], theirs: list[str]) -> str | None:
    """The one way MINE (a run's prompts, in order) differs from THEIRS: each of the reference's
    prompts asked as one other prompt every time (a prompt worded otherwise), as a key of that
    difference (Fail(sole=): never shown); None when they differ in number, or not one same way."""
    if len(mine) != len(theirs) or mine == theirs:
        return None
    way: dict[str, str] = {}
    for got, want in zip(mine, theirs):
        if way.setdefault(want, got) != got:
            return None
    if len(set(way.values())) != len(way):       # two prompts asked as one: not a rewording
        return None
    return "prompt: " + repr(sorted((want, got) for want, got in way.items() if want != got))


def missing_message(mine: list[str], theirs: list[str]) -> str | None:
    """The one way MINE (a run's handout messages, in order) differs from THEIRS: one message of the
    handout left out every time it is due (worded otherwise), as a key (Fail(sole=)); else None."""
    for message in dict.fromkeys(theirs):
        if [m for m in theirs if m != message] == mine:
            return f"message: {message!r} missing"
    return None


def other_random(outcome) -> list[str]:
    """The random functions other than randint that OUTCOME called (the RNG contract forbids them)."""
    return sorted({str(e[1]) for e in outcome.events or () if e and e[0] in ("random", "seed") and len(e) > 1}
                  | {"seed" for e in outcome.events or () if e and e[0] == "seed"})


_STARTS = ("Position", "Value", "Slot", "Round", "Upper bonus", "Yahtzee bonus", "Total", *SLOTS)


def near_miss(text: str) -> str | None:
    """A hint about the first line of TEXT that starts like a line the grader reads but is not in
    the handout's form (a list printed, a colon missing, ...), or None."""
    for line in (text or "").splitlines():
        line = line.rstrip()
        if line.startswith(_STARTS) and not any(p.match(line) for p in GRAMMAR.kinds.values()):
            return (f"The line {cut(line, 80)!r} is not in the handout's form, so the grader cannot read "
                    "it: the word(s) as the handout writes them, then the values separated by spaces "
                    "(e.g. 'Value:   1  6  2  3  3', 'Full Hse       25').")
    return None


def first_difference(got: list[Line], want: list[Line]) -> str | None:
    """Where the protocol lines GOT first differ from WANT, in one sentence (None: the same)."""
    index = first_line_difference(got, want)
    if index is None:
        return None
    if index < min(len(got), len(want)):
        return (f"the {ordinal(index + 1)} line the grader reads was {show_line(got[index])!r}, expected "
                f"{show_line(want[index])!r}")
    if len(got) < len(want):
        return f"after {len(got)} such lines, the line {show_line(want[len(got)])!r} never came"
    return f"there was an extra line {show_line(got[len(want)])!r} after the expected ones"


# ---------------------------------------------------------------------------------------------
# Calls
# ---------------------------------------------------------------------------------------------

# ---------------------------------------------------------------------------------------------

def not_normal(outcome, func: str, ran: str, *, hint: str | None = None, before: str = "") -> Fail:
    """The Fail for a call that did not return normally: the detailed text, and a data-free one
    from grader text only (no name, number or text the program chose).  BEFORE: what went wrong
    earlier in the output (detailed text only)."""
    hidden = None
    if outcome.status == "input_exhausted":
        text = hidden = f"{func} asked for more input than the answers given"
        text += f" (it asked {outcome.inputs_asked} times)"
    elif outcome.status == "dice_exhausted":
        text = hidden = f"{func} rolled more dice than the scenario has"
    elif outcome.status == "timeout":
        text = hidden = f"{func} did not finish in time (an endless loop?)"
    else:
        text = explain(outcome, ran)
        if outcome.status == "exception":
            if (outcome.error or {}).get("type") == "NotImplementedError":
                hidden, hint = f"{func} is not written yet", None      # (a stub: no hint on how to fix it)
            else:
                hidden = f"{func} {outcome.hidden_message}"
    text = text.rstrip(".") + "." + (f" Before that, {before}." if before else "")
    return Fail(text, hidden=None if hidden is None else hidden.rstrip(".") + ".", ran=ran, hint=hint,
                show_values=False,
                output=None if outcome.status in ("no_function", "syntax_error") else outcome.stdout)


def check_value(student, reference, case: dict) -> None:
    """CASE["call"] = [func, *args]: the student's return value must be the reference's, of its type."""
    func, *args = case["call"]
    ran = describe_call(func, args)
    expected = reference_ok(reference.call(func, *args), ran).value
    could_pass_by_doing_nothing(expected)
    outcome = student.call_or_skip(func, *args, timeout=CALL_TIMEOUT)
    if outcome.status != "ok":
        raise not_normal(outcome, func, ran)
    got = outcome.value
    if got != expected or type(got) is not type(expected):
        raise Fail(f"Called {ran}. Returned {show(got)}, but expected {show(expected)} ({case['why']}).",
                   hidden=f"{func} returned the wrong value ({case['why']}).",
                   ran=ran, expected=expected, got=got, hint=hint_for(case, got), show_values=False)


def same_printing(student, reference, func: str, args: list, case: dict, **kwargs):
    """Call FUNC(*ARGS) on both; Fail unless the protocol lines printed are the reference's.
    Returns (student outcome, reference outcome)."""
    ran = describe_call(func, args)
    ref = reference_ok(reference.call(func, *args, **kwargs), ran)
    outcome = student.call_or_skip(func, *args, timeout=CALL_TIMEOUT, **kwargs)
    if outcome.status != "ok":
        raise not_normal(outcome, func, ran, hint=case.get("hint"))
    wrong = first_difference(protocol_lines(outcome.stdout), protocol_lines(ref.stdout))
    if wrong:
        unreadable = near_miss(outcome.stdout)
        raise Fail(f"Called {ran}: {wrong} ({case['why']})." + (f" {unreadable}" if unreadable else ""),
                   hidden=f"{func} printed the wrong lines ({case['why']}).",
                   ran=ran, hint=case.get("hint"), output=outcome.stdout, show_values=False)
    return outcome, ref


def scorecard(filled: dict | None = None) -> dict:
    """A scores dict with the FILLED slots set and the others open (None)."""
    filled = filled or {}
    unknown = set(filled) - set(SLOTS)
    if unknown:
        raise ValueError(f"scenario names unknown slots {sorted(unknown)}")
    return {slot: filled.get(slot) for slot in SLOTS}


def round_of(lines: list[Line], index: int) -> int:
    """The round (1..) the INDEX-th protocol line belongs to, 0 before the first "Round" line."""
    rounds = [line for line in lines[:index + 1] if line.kind == "round"]
    return number(rounds[-1].fields[0]) if rounds else 0          # (bounds.number: a program's digits)


def check_run(student, reference, func: str, args: list, case: dict, *, stdin: list[str],
              dice: list[int] | None = None, seed: int | None = None, timeout: float = CALL_TIMEOUT,
              compare_value: bool = True, compare_args: bool = True, ran: str | None = None,
              shown_dice: list[int] | None = None) -> None:
    """Run FUNC(*ARGS) with STDIN and DICE (or SEED) on both programs; Fail at the first of:
    not returning, other random calls, the prompts, the protocol lines, the messages, the number
    of answers read, the dice rolled, the value returned and the arguments afterwards.
    SHOWN_DICE: the scenario's own dice (DICE less the spares), shown on the Ran: line."""
    ran = ran or describe_call(func, args)
    how = ran + (f" with the answers {stdin}" if stdin else "")
    if shown_dice:
        how += f"; random.randint returns {shown_dice}"
    if seed is not None:
        how += f"; random.seed({seed})"
    ref = reference_ok(reference.call(func, *args, stdin=stdin, dice=dice, seed=seed, timeout=timeout), how)
    outcome = student.call_or_skip(func, *args, stdin=stdin, dice=dice, seed=seed, timeout=timeout)
    hint = case.get("hint")

    def fail(public_text: str, hidden_text: str, *, show_hint: bool = True, more: str = "",
             sole: str | None = None) -> Fail:
        return Fail(f"Called {ran}: {public_text} ({case['why']})." + (f" {more}" if more else ""),
                    hidden=f"{func}: {hidden_text} ({case['why']}).",
                    ran=how, hint=hint if show_hint else None, output=outcome.stdout, show_values=False, sole=sole)

    def rest_same() -> bool:
        """Whether everything compared after the protocol lines is the reference's."""
        return (messages(outcome.stdout) == messages(ref.stdout) and outcome.inputs_asked == ref.inputs_asked
                and dice_rolled(outcome) == dice_rolled(ref) and (not compare_value or outcome.value == ref.value)
                and (not compare_args or outcome.args_after == ref.args_after))

    if outcome.status != "ok":
        wrong = first_difference(protocol_lines(outcome.stdout), protocol_lines(ref.stdout))
        raise not_normal(outcome, func, how, hint=hint,
                         before=wrong if wrong and outcome.status == "input_exhausted" else "")
    others = other_random(outcome)
    if others:
        raise fail(f"it called {shown_calls(others)}", "it called another random function than "
                   "random.randint", show_hint=False)
    mine, theirs = protocol_lines(outcome.stdout), protocol_lines(ref.stdout)
    bad = [p for p in prompts(outcome) if p not in prompts(ref)]
    if bad:
        # prompts worded otherwise, the same way in every question, and nothing else: the problem's
        # other runs with that same difference are charged once (engine/charge.excuse_same_difference)
        sole = renamed_prompts(prompts(outcome), prompts(ref)) if mine == theirs and rest_same() else None
        raise fail(f"the prompt {bad[0]!r} is not the handout's "
                   f"({' or '.join(map(repr, sorted(set(prompts(ref)))))})",
                   "a prompt is not the handout's", show_hint=False, sole=sole)
    wrong = first_difference(mine, theirs)
    if wrong:
        index = first_line_difference(mine, theirs)
        kind = theirs[index].kind if index < len(theirs) else mine[index].kind
        number = round_of(theirs, min(index, len(theirs) - 1)) if theirs else 0
        where = " after the last round" if kind == "final_line" else f" in round {number}" if number else ""
        if hint is None and kind == "final_line" and index < len(theirs):
            hint = FINAL_LINE_HINTS.get(theirs[index].fields[0])    # the rule behind the line that differs
        # lines of one kind differing one way, and nothing else: the problem's other games with that same
        # difference are charged once (engine/charge.excuse_same_difference)
        sole = sole_difference(mine, theirs) if rest_same() else None
        raise fail(f"{wrong}{where}", f"a {KIND_NAMES[kind]} line printed is wrong or missing"
                   f"{' in some round' if where.startswith(' in') else where}", more=near_miss(outcome.stdout) or "",
                   sole=sole)
    if messages(outcome.stdout) != messages(ref.stdout):
        rest = (outcome.inputs_asked == ref.inputs_asked and dice_rolled(outcome) == dice_rolled(ref)
                and (not compare_value or outcome.value == ref.value)
                and (not compare_args or outcome.args_after == ref.args_after))
        raise fail(f"the messages printed were {messages(outcome.stdout)}, expected {messages(ref.stdout)}",
                   "the messages after refused answers are wrong",
                   sole=missing_message(messages(outcome.stdout), messages(ref.stdout)) if rest else None)
    if outcome.inputs_asked != ref.inputs_asked:
        raise fail(f"it read {outcome.inputs_asked} answer(s), expected {ref.inputs_asked}",
                   "it read the wrong number of answers")
    if dice_rolled(outcome) != dice_rolled(ref):
        raise fail(f"it rolled {dice_rolled(outcome)} dice, expected {dice_rolled(ref)}",
                   "it rolled the wrong number of dice")
    if compare_value and outcome.value != ref.value:
        raise fail(f"it returned {show(outcome.value)}, expected {show(ref.value)}", "it returned the wrong value")
    if compare_args and outcome.args_after != ref.args_after:
        after, want = (outcome.args_after or [None])[0], (ref.args_after or [None])[0]
        raise fail(f"afterwards the argument was {show(after)}, expected {show(want)}",
                   "the list or dict it was given is wrong afterwards")
