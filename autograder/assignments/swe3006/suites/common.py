"""Helpers of the SWE3006 suites: calling YahtzeeGame's methods, reading the protocol lines of
a transcript, comparing a student's run with the reference's, and charging a bug once.

Every check drives the student's class the way the handout says: construct YahtzeeGame(),
set the attributes the scenario names (so a check never depends on the student's other
methods having built that state), call one method -- with scripted stdin and a seed when it
reads or rolls -- and compare what it returned, printed (the protocol lines only, see
assignment.toml [protocol]) and left in its attributes with the reference's on the very same
request.  Whole games call YahtzeeGame().play() with a script; the game offers a new game
for ever, so a game ends when the script runs out (input_exhausted), which is normal there.

Charging a bug once, by construction: a call made for a check of stage N runs with the
reference's versions of the methods the other stages grade set on the student's class (the
engine's method substitution: Assignment.substitution names them "YahtzeeGame.method"), so a
game calls the reference's calculate_score, get_valid_input ... wherever the student's code calls
them by the handout's names.  One check per stage (`integration = true` in its scenario: an
own_functions check) runs the student's own methods; the plugin does not charge it again for
an earlier stage's failure.  Where substitution cannot apply (the student inlined an earlier
method's logic instead of calling it; a method two stages grade, play and print_score_info),
every failure names its *aspect* (what differed first, in the grader's words: "score: Twos", "round
line: printed a dice line", "stopped: TypeError at line 57"), and the engine (engine/charge.py)
does not charge a later stage's failure whose aspect a linked earlier problem's failure shows
(links: the table, and assignment.toml [[stems]]).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from autograder.engine.charge import stopped_aspect
from autograder.engine.checks import GraderFault, could_pass_by_doing_nothing, explain
from autograder.engine.divergence import first_divergence, first_line_difference, sole_difference
from autograder.engine.feedback import cut, ordinal, show
from autograder.engine.grammar import Line, LineGrammar
from autograder.engine.replay import Protocol, random_calls, read_reference, read_transcript, shown_calls
from autograder.engine.suite import Fail, Suite

SUITE = Suite(__file__)
ASSIGNMENT = SUITE.assignment
CLASS = ASSIGNMENT.extra["class_name"]
RULES = SUITE.rules
CATEGORIES: list[str] = list(RULES["categories"])
WARNINGS: dict[str, str] = dict(ASSIGNMENT.extra["protocol"]["warnings"])
REPLAY = Protocol.of(ASSIGNMENT)       # the engine's reading of the dice lines and rolls (divergence)
DIVERGENCE_KINDS = {"kept_rerolled", "dice_differ", "too_few", "dice_line_order", "dice_line_sorted", "dice_line_wrong",
                    "seed_called", "random_called"}     # causes that do not read the answers' meaning
CALL_TIMEOUT = 2.0          # a unit call; the reference needs milliseconds
GAME_TIMEOUT = 3.0          # a whole game (13 or 26 turns)
SHORT_TIMEOUT = 0.5         # ... once a program has run out of time in SLOW_RUNS_ALLOWED calls
SLOW_RUNS_ALLOWED = 2       # (so a program that hangs everywhere is graded in seconds, not minutes)
START = {"game_mode": 1, "current_round": 1, "current_player": 1, "dice_combination": [],
         "recorded_score_sheet": [{}]}


def scenarios(name: str) -> dict:
    """scenarios/NAME.toml (or $AUTOGRADER_SCENARIOS_DIR's): inputs only, expected values come
    from the reference."""
    return SUITE.load(name)


def params(cases: list[dict]) -> list:
    """pytest params of CASES ({"problem", "id", "public", optional "points"}): the plugin
    shares each problem's points out over its checks at collection."""
    return SUITE.cases(cases, id=lambda case: case["id"])


# ---------------------------------------------------------------------------------------
# Calling methods
# ---------------------------------------------------------------------------------------

def substitution(program, problem: int | None, own: bool = False) -> dict | None:
    """What a call made for PROBLEM's check runs with: the reference's methods of the other
    stages (Assignment.substitution of PROBLEM's stage), or None: the student's own methods
    (OWN: an own_functions check; the reference's program, which substitutes nothing).  Chosen
    by the call's own problem, not by the check asking: the charge-once battery runs an earlier
    stage's cases inside a later check, as that stage's checks ran them."""
    if own or problem is None or not program.can_substitute:
        return None
    stage = ASSIGNMENT.problem(problem).stage
    sub = ASSIGNMENT.substitution(stage)
    return sub if sub["names"] and stage in _CALLING_STAGES else None


def _calling_stages() -> set[int]:
    """The stages whose methods (in the reference) call a method another stage grades: only their
    checks need the substitution sandbox (stage 1's scoring calls nothing else, and a sandbox
    per stage costs a process per student)."""
    tree = ast.parse(ASSIGNMENT.reference.read_text(encoding="utf-8"))
    methods = {node.name: node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}
    found = set()
    for stage in ASSIGNMENT.core_stages:
        foreign = {name.partition(".")[2] for name in ASSIGNMENT.substitution(stage.number)["names"]}
        own = {f for p in ASSIGNMENT.stage_problems(stage.number) for f in p.functions}
        if any(isinstance(n, ast.Attribute) and n.attr in foreign
               for name in own if name in methods for n in ast.walk(methods[name])):
            found.add(stage.number)
    return found


_CALLING_STAGES = _calling_stages()


@dataclass
class Call:
    """One request: YahtzeeGame() with STATE set, then METHOD(*ARGS), with STDIN and SEED.  Typed
    (engine/typed.py): a set (is_straight's dice_set) and a dict keyed by positions (roll_dices'
    kept_dices) go in as such, and what comes back keeps its type (a tuple is not the list asked for)."""
    method: str
    args: tuple = ()
    state: dict | None = None
    stdin: list[str] | None = None
    seed: int | None = None
    timeout: float = CALL_TIMEOUT

    def run(self, program, problem: int | None = None, own: bool = False):
        """The outcome of this call on PROGRAM for a check of PROBLEM (with the reference's
        methods of the other stages; OWN: the student's own), run once per program and
        substitution (the charge-once battery asks again for what the checks already ran); a
        program that ran out of time in SLOW_RUNS_ALLOWED calls gets SHORT_TIMEOUT from then on."""
        sub = substitution(program, problem, own)
        key = ("swe3006 call", repr((self.method, self.args, self.state, self.stdin, self.seed)), repr(sub))
        return program.memo(key, lambda: self._run(program, sub))

    def _run(self, program, sub: dict | None):
        slow = program.memo("swe3006 slow calls", lambda: [0])
        timeout = SHORT_TIMEOUT if slow[0] >= SLOW_RUNS_ALLOWED else self.timeout
        state = dict(START, **(self.state or {}))
        with program.substituting(sub):
            outcome = program.call(f"{CLASS}.{self.method}", *self.args, instance={"init": [], "state": state},
                                   stdin=self.stdin, seed=self.seed, timeout=timeout, typed=True)
        if outcome.status == "timeout":
            slow[0] += 1
        return outcome

    def describe(self) -> str:
        state = ", ".join(f"{k} = {cut(repr(v), 160)}" for k, v in (self.state or {}).items())
        args = ", ".join(cut(repr(a), 160) for a in self.args)
        text = f"game = {CLASS}()" + (f"; {state}" if state else "") + f"; game.{self.method}({args})"
        if self.seed is not None:
            text += f" with random.seed({self.seed})"
        if self.stdin is not None:
            text += " and the answers " + answers_text(self.stdin)
        return text


def answers_text(answers: list[str], limit: int = 40) -> str:
    shown = ", ".join(repr(a) for a in answers[:limit])
    more = f", ... ({len(answers)} answers in all)" if len(answers) > limit else ""
    return f"[{shown}{more}]"


def reference_run(reference, call: Call):
    """The reference's outcome; a reference that fails is the grader's fault, not the student's.
    A run that ends because the script ran out is normal (a game offers a new game for ever)."""
    outcome = call.run(reference)
    if outcome.status not in ("ok", "input_exhausted"):
        raise GraderFault(f"the reference failed on {call.describe()}: {outcome.status} "
                          f"{outcome.message} {outcome.error}")
    return outcome


def stopped(outcome, call: Call, *, hidden: bool) -> str | None:
    """Why OUTCOME did not run to a normal end (None when it did: returned, or used up the
    script where the reference did too)."""
    if outcome.status in ("ok", "input_exhausted"):
        return None
    if hidden:
        return f"{call.method} did not finish: {outcome.hidden_message or outcome.status}."
    return explain(outcome, f"game.{call.method}(...)")


# ---------------------------------------------------------------------------------------
# Reading a transcript
# ---------------------------------------------------------------------------------------

def _fields(kind: str, match: re.Match) -> tuple:
    """A line's fields: its named groups as (name, value) pairs, inner spaces collapsed (free
    spacing and optional outer bars, as the handout allows, compare equal)."""
    return tuple((k, " ".join(v.split())) for k, v in match.groupdict().items() if v is not None)


GRAMMAR = LineGrammar.of(ASSIGNMENT.extra["protocol"], [k for k, v in ASSIGNMENT.extra["protocol"].items()
                                                        if isinstance(v, str) and k != "prompt"],
                         strip=True, normal=_fields)


def protocol_lines(text: str) -> list[Line]:
    """The lines of TEXT the grader reads (assignment.toml [protocol], each stripped of
    surrounding spaces), in order; everything else (banner, menu items, blank lines, table
    borders, echoed answers) is skipped."""
    return GRAMMAR.read(text)


def shown(line: Line) -> str:
    """LINE as feedback shows it: one canonical form (a row as `| Twos | 4 |`)."""
    fields = dict(line.fields)
    if line.kind == "row":
        return f"| {fields['category']} | {fields['score']} |"
    if line.kind == "header":
        return "| Category | Score |"
    return " ".join(line.text.split())


def of_kind(lines: list[Line], *kinds: str) -> list[Line]:
    return [line for line in lines if line.kind in kinds]


def rolls(outcome) -> list[int]:
    """The values random.randint returned, in order (the sandbox records every call)."""
    return [event[1] for event in outcome.events or () if event and event[0] == "roll" and len(event) > 1]



# ---------------------------------------------------------------------------------------
# Comparing a run with the reference's
# ---------------------------------------------------------------------------------------

@dataclass
class Compare:
    """What a check compares: the protocol lines (of KINDS; all when empty), the value returned,
    the attributes after the call (ATTRIBUTES), the dice rolled."""
    kinds: tuple[str, ...] = ()
    value: bool = False
    attributes: tuple[str, ...] = ()
    rolls: bool = False
    aspect: str | None = None     # a wrong value's or attribute's aspect (default: what differed)


def _view(lines: list[Line], kinds: tuple[str, ...]) -> list[Line]:
    return of_kind(lines, *kinds) if kinds else lines


def check_call(student, reference, call: Call, problem: int, compare: Compare, *, why: str = "",
               hint: str | None = None, own: bool = False) -> None:
    """Run CALL on both programs (the student's with the reference's methods of the other stages;
    OWN: an own_functions check, the student's own) and Fail at the first thing that differs (one
    Fail: the detailed text, the data-free one a hidden check shows, and the aspect: what differed,
    in the grader's words, which engine/charge.py matches with an earlier stage's failures)."""
    ref = reference_run(reference, call)
    got = call.run(student, problem, own)
    if compare.value:
        could_pass_by_doing_nothing(ref.value)
    theirs = _view(protocol_lines(ref.stdout), compare.kinds)
    mine = _view(protocol_lines(got.stdout), compare.kinds)
    index = first_line_difference(mine, theirs)
    detail, aspect = _difference(got, ref, call, compare, mine, theirs, index, why, hidden=False)
    if detail is None:
        return
    data_free, _ = _difference(got, ref, call, compare, mine, theirs, index, why, hidden=True)
    # a finished run whose lines differ in one kind only, one way, and in nothing else compared (rolls,
    # value, attributes): the problem's other checks with that same difference are charged once
    # (engine/charge.excuse_same_difference)
    sole = sole_difference(mine, theirs) if index is not None and got.status == ref.status == "ok" and \
        _difference(got, ref, call, compare, mine, theirs, None, why, hidden=True)[0] is None else None
    raise Fail(detail, hidden=data_free, ran=call.describe(), hint=hint, show_values=False,
               output=got.stdout if index is not None or got.status != "ok" else None, aspect=aspect, sole=sole)


def _difference(got, ref, call: Call, compare: Compare, mine: list[Line], theirs: list[Line], index: int | None,
                why: str, *, hidden: bool) -> tuple[str | None, str | None]:
    """(what differs first, in a sentence; its aspect) or (None, None)."""
    because = f" ({why})" if why else ""
    if got.status not in ("ok", "input_exhausted"):
        return stopped(got, call, hidden=hidden), stopped_aspect(got)
    if index is not None and compare.rolls and rolls(got) != rolls(ref) and \
            "dice" in {line.kind for line in (mine[index:index + 1] + theirs[index:index + 1])}:
        return _rolls_text(got, ref, hidden), _rolls_aspect(got, ref)      # the dice differ because of the rolls
    if index is not None:      # (a run that printed nothing the grader reads names no aspect: nothing to match)
        return _difference_text(mine, theirs, index, hidden), line_aspect(mine, theirs, index) if mine else None
    if got.status != ref.status:
        return _ended_text(got, ref, hidden), _ended_aspect(got, ref)
    if compare.rolls and rolls(got) != rolls(ref):
        return _rolls_text(got, ref, hidden), _rolls_aspect(got, ref)
    if compare.value and (got.value != ref.value or type(got.value) is not type(ref.value)):
        return (f"{call.method} returned a wrong value{because}." if hidden else
                f"Returned {show(got.value)}, but expected {show(ref.value)}{because}."), \
            compare.aspect or f"{call.method} returned a wrong value"
    for name in compare.attributes:
        have = (got.state_after or {}).get(name, "<missing>")
        want = (ref.state_after or {}).get(name)
        if have != want:
            return (f"After {call.method}, the attribute {name} is wrong{because}." if hidden else
                    f"After the call, game.{name} is {show(have)}, but expected {show(want)}{because}."), \
                compare.aspect or attribute_aspect(name, have, want)
    return None, None


# ---------------------------------------------------------------------------------------
# Aspects: what differed first, named the same wherever the same behaviour differs (a score in
# calculate_score's dict, in a table's row, in a recorded sheet: "score: Twos"), so that
# engine/charge.py charges a bug once across stages where substitution cannot keep it in its own
# (logic copied into another method; play and print_score_info, which two stages grade).
# ---------------------------------------------------------------------------------------

def score_aspect(category: str) -> str:
    return f"score: {category}"


def line_aspect(mine: list[Line], theirs: list[Line], index: int) -> str:
    """The first differing protocol line's aspect: a category's score, a sheet's recorded
    categories (a score where the sheet shows - or the other way round: the same whichever
    category, as when a table shows another player's sheet), or the kinds of line."""
    if index >= len(mine):
        return f"{theirs[index].kind} line missing"
    if index >= len(theirs):
        return f"an extra {mine[index].kind} line"
    got, want = dict(mine[index].fields), dict(theirs[index].fields)
    if mine[index].kind != theirs[index].kind:
        return f"{theirs[index].kind} line: printed a {mine[index].kind} line"
    if want.get("category") and got.get("category") == want["category"] and got.get("score") != want.get("score"):
        if "-" in (got["score"], want["score"]):      # what a sheet holds, not what a roll scores
            return "a sheet: a category not recorded shown with a score" if want["score"] == "-" else \
                "a sheet: a recorded category shown as -"
        return score_aspect(want["category"])
    return f"{theirs[index].kind} line differs"


def attribute_aspect(name: str, have, want) -> str:
    """A recorded sheet that differs in one category's score has that score's aspect."""
    if name == "recorded_score_sheet" and isinstance(have, list) and isinstance(want, list) and \
            len(have) == len(want) and all(isinstance(s, dict) for s in have + want):
        for mine, theirs in zip(have, want):
            if set(mine) == set(theirs):
                wrong = [c for c in CATEGORIES if c in theirs and mine[c] != theirs[c]]
                if wrong:
                    return score_aspect(wrong[0])
    return f"attribute: {name}"


def _ended_aspect(got, ref) -> str:
    if got.status == "input_exhausted" and ref.status == "ok":
        return "asked for more input"
    if got.status == "ok" and ref.status == "input_exhausted":
        return "returned before the input ran out"
    return f"ended with {got.status}"


def _rolls_aspect(got, ref) -> str:
    found = first_divergence(read_reference(ref, REPLAY), read_transcript(got, REPLAY),
                             complete=got.status == ref.status)
    return f"the RNG contract: {found.kind}" if found is not None and found.kind in DIVERGENCE_KINDS \
        else "the RNG contract"


def _ended_text(got, ref, hidden: bool) -> str:
    if got.status == "input_exhausted" and ref.status == "ok":
        asked = got.inputs_asked
        return ("It asked for more answers than the reference does." if hidden else
                f"It asked for input a {_ordinal(asked)} time, but the reference finished after "
                f"{ref.inputs_asked} answers (it treated a valid answer as invalid, or asked again).")
    if got.status == "ok" and ref.status == "input_exhausted":
        return ("It stopped before using all the answers." if hidden else
                f"It returned after {got.inputs_asked} answers, but the reference went on asking "
                f"(it accepted an invalid answer, or stopped early).")
    return f"It ended with {got.status}, the reference with {ref.status}."


def _ordinal(n: int) -> str:
    return ordinal(n)


def _difference_text(mine: list[Line], theirs: list[Line], index: int, hidden: bool) -> str:
    if index >= len(mine):
        want = theirs[index]
        return (f"Its output stops before an expected {want.kind.replace('_', ' ')} line." if hidden else
                f"Its output is missing the line {shown(want)!r} (the {_ordinal(index + 1)} line the "
                f"grader reads).")
    if index >= len(theirs):
        extra = mine[index]
        return (f"It prints an unexpected {extra.kind.replace('_', ' ')} line." if hidden else
                f"It printed {shown(extra)!r} where the reference's output had ended (the "
                f"{_ordinal(index + 1)} line the grader reads).")
    got, want = mine[index], theirs[index]
    if hidden:
        return (f"Its output differs from the expected one at a {want.kind.replace('_', ' ')} line"
                + (f" (it printed a {got.kind.replace('_', ' ')} line)." if got.kind != want.kind else "."))
    if got.kind != want.kind:
        return (f"Expected the line {shown(want)!r} here (the {_ordinal(index + 1)} line the grader reads), "
                f"but the next line it could read is {shown(got)!r}.  The grader reads only the lines "
                f"the handout lists, spelled exactly: check yours, and the order of the game's steps.")
    return (f"The {_ordinal(index + 1)} line the grader reads is {shown(got)!r}, but expected "
            f"{shown(want)!r}.")


def _rolls_text(got_outcome, ref_outcome, hidden: bool) -> str:
    """The RNG contract broken: where and why (the engine's divergence finder), and the calls."""
    got, want = rolls(got_outcome), rolls(ref_outcome)
    found = first_divergence(read_reference(ref_outcome, REPLAY), read_transcript(got_outcome, REPLAY),
                             complete=got_outcome.status == ref_outcome.status)
    if found is not None and found.kind not in DIVERGENCE_KINDS:
        found = None        # a cause read from the main track's answer grammar (keep-all, re-prompts)
    if hidden:
        if found is not None:
            return f"It breaks the RNG contract: {found.cause}."
        return (f"It rolled {'more' if len(got) > len(want) else 'fewer' if len(got) < len(want) else 'other'}"
                " dice than the RNG contract says.")
    where = f"At {found.where}: {found.cause} ({found.detail}). " if found is not None else ""
    others = random_calls(got_outcome)
    instead = f" It called {shown_calls(others)}, which the RNG contract forbids." if others else ""
    return (f"{where}It called random.randint {len(got)} times ({cut(str(got), 120)}), but the RNG contract "
            f"gives {len(want)} calls ({cut(str(want), 120)}): one randint(1, 6) per die rolled, in "
            f"position order.{instead}")
