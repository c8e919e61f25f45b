"""The first roll where a replayed game leaves the reference's, and its likely cause.

    played = replay_game(student, reference, suite.protocol, "play_game", 13, stdin=script, seed=5)
    played.divergence        # None, or Divergence("round 3, roll 2", cause, detail, hint, kind)
    played.mine, played.ref  # the student's Transcript, the reference's rounds (RefGame)

Both runs are read by engine/replay.py (the same script, so the gap -- answers read so far --
lines them up); first_divergence names the place ("round 3, roll 2"), a data-free cause, the
detail with the numbers and a hint (the texts: replay.Protocol.texts, [protocol.texts]).

Games printed in a strict line grammar (grammar.LineGrammar) are compared line by line:
first_line_difference is where two transcripts first part; the course tells it as a place.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from typing import Any

from .checks import GraderFault
from .grammar import Line
from .replay import Protocol, RefGame, Transcript, read_reference, read_transcript

# ---------------------------------------------------------------------------------------------
# The first roll that differs
# ---------------------------------------------------------------------------------------------

@dataclass
class Divergence:
    where: str               # "round 3, roll 2"
    cause: str               # data-free: "kept dice were re-rolled"
    detail: str              # with the numbers: "rolled 5 dice where 3 were expected"
    hint: str = ""
    kind: str = ""           # the key of its texts (Protocol.texts)


def _where(ref: RefGame, gap: int, rolls_before: int = 0) -> str:
    for roll in ref.game.rolls:
        if roll.gap == gap:
            return f"round {roll.round}, roll {roll.number}"
    rnd_number = ref.round_at_gap.get(gap)
    if rnd_number is None:
        # after the reference's last answer: the game should be over
        last = ref.rounds[-1].number if ref.rounds else 0
        if gap >= len(ref.answer_kind):
            return f"after the last round (round {last + 1}?)"
        rnd_number = last
    rnd = next((r for r in ref.rounds if r.number == rnd_number), None)
    before = sum(1 for r in rnd.rolls if r.gap < gap) if rnd else 0
    return f"round {rnd_number}, roll {before + 1 + rolls_before}"


def _random_kind(game: Transcript) -> tuple[str, dict] | None:
    if game.seeds:
        return "seed_called", {}
    if game.randoms:
        return "random_called", {"name": game.randoms[0].text}
    return None


def first_divergence(ref: RefGame, student: Transcript, complete: bool = True) -> Divergence | None:
    """The first roll (or dice line) where STUDENT differs from the reference, with a likely cause.

    COMPLETE: the student's run ended normally.  When it stopped early (a crash, the script ran
    out), only what it did before stopping is compared.  (A pure function of the two readings: a
    student's run that prints what one read before shares that reading's items (read_transcript),
    so it is compared once per worker.  Keyed by identity, kept alive with the entry; nothing
    changes a reading or a Divergence once made.)"""
    if len(student.items) > _COMPARED_ITEMS:
        return _first_divergence(ref, student, complete)
    key = (id(ref), id(student.items), complete)
    entry = _COMPARED.get(key)
    if entry is not None and entry[0] is ref and entry[1] is student.items:
        return entry[2]
    found = _first_divergence(ref, student, complete)
    if len(_COMPARED) >= _COMPARED_MAX:
        _COMPARED.clear()
    _COMPARED[key] = (ref, student.items, found)
    return found


_COMPARED: dict[tuple, tuple] = {}
_COMPARED_MAX = 512
_COMPARED_ITEMS = 4096          # a longer reading is compared afresh (not kept alive)


def _first_divergence(ref: RefGame, student: Transcript, complete: bool) -> Divergence | None:
    protocol = ref.game.protocol
    num_dice = protocol.num_dice

    def diverged(kind: str, where: str, detail: str, **names: str) -> Divergence:
        cause, hint = protocol.text(kind, **names)
        return Divergence(where, cause, detail, hint, kind)

    ref_by_gap, stu_by_gap = ref.game.dice_by_gap, student.dice_by_gap
    last_gap = max((item.gap for item in student.items), default=0)
    for gap in sorted(set(ref_by_gap) | set(stu_by_gap)):
        want, got = ref_by_gap.get(gap, []), stu_by_gap.get(gap, [])
        if not complete:
            if gap > last_gap:
                break
            if gap == last_gap and len(got) <= len(want) and want[:len(got)] == got:
                continue
        if want == got:
            continue
        where = _where(ref, gap)
        random_kind = _random_kind(student)
        if len(got) == len(want):
            kind, names = random_kind or ("dice_differ", {})
            return diverged(kind, where, f"rolled {got} where {want} were expected", **names)
        if len(got) > len(want):
            extra = len(got) - len(want)
            if want and len(got) == num_dice and len(want) < num_dice:
                return diverged("kept_rerolled", where, f"rolled {len(got)} dice where {len(want)} were expected")
            if not want:
                answer = gap - 1
                if answer >= len(ref.answer_kind):
                    return diverged("after_last_round", where,
                                    f"rolled {len(got)} dice after the game should have ended")
                if answer >= 0 and ref.rejected[answer]:
                    if ref.answer_kind[answer] == "category" and any(s.gap == gap for s in student.scored):
                        return diverged("refused_accepted", where,
                                        f"script line {answer + 1} was scored; the reference refuses it and "
                                        "asks again")
                    return diverged("reprompt_rolled", where,
                                    f"rolled {len(got)} dice after script line {answer + 1}, which is invalid")
                if answer >= 0 and ref.keep_all[answer]:
                    return diverged("keep_all_rolled", where, f"rolled {len(got)} dice after a keep-all answer")
            if random_kind and len(got) < len(want) + num_dice and not want:
                return diverged(random_kind[0], where, f"rolled {len(got)} dice where {len(want)} were expected",
                                **random_kind[1])
            return diverged("extra_roll", where,
                            f"rolled {len(got)} dice where {len(want)} were expected ({extra} too many)")
        if not got:
            return diverged("missing_roll", where, f"rolled no dice where {len(want)} were expected")
        return diverged("too_few", where, f"rolled {len(got)} dice where {len(want)} were expected")
    # the rolls agree: compare what the dice lines show
    ref_lines, stu_lines = ref.game.dice_lines, student.dice_lines
    ref_rolls = ref.game.rolls
    for index, (gap, want) in enumerate(ref_lines):
        where = (f"round {ref_rolls[index].round}, roll {ref_rolls[index].number}" if index < len(ref_rolls)
                 else _where(ref, gap))
        if index >= len(stu_lines):
            if not complete:
                return None
            return diverged("dice_line_missing", where, f"no `{protocol.dice_label} ...` line after this roll")
        got = stu_lines[index][1]
        if got != want:
            if got == sorted(want):         # (want is not sorted: got != want) the line sorts them
                return diverged("dice_line_sorted", where, f"the {protocol.dice_label} line shows {got} where "
                                f"{want} were expected (the same dice, sorted)")
            if sorted(got) == sorted(want):
                return diverged("dice_line_order", where, f"the {protocol.dice_label} line shows {got} where {want} "
                                "were expected (same values, different order)")
            return diverged("dice_line_wrong", where,
                            f"the {protocol.dice_label} line shows {got} where {want} were expected")
    return None


def first_line_difference(got: list[Line], want: list[Line]) -> int | None:
    """The index of the first line the grader reads (grammar.LineGrammar) where GOT and WANT differ:
    a different line, or where one of them ended; None when they are the same."""
    for index, (mine, theirs) in enumerate(zip(got, want)):
        if mine != theirs:
            return index
    return None if len(got) == len(want) else min(len(got), len(want))


def sole_difference(got: list[Line], want: list[Line]) -> str | None:
    """When every line where GOT and WANT differ is of ONE kind and differs the same way, that
    difference in grader words ("order: field 1 reordered", "round: field 1 off by -1", "order:
    missing", "result: field 2 '' for '-'"); else None (no difference, two kinds, or two ways).
    The lines of every other kind must be the same, in the same order, and there must be some: a
    second bug that shows in another kind of line is never part of it, and a run whose expected
    lines are all of one kind has none (a silent program matches nothing).  The way is exact: a
    number off by the same amount, a value printed for the same expected value, the same values in
    another order; two bugs in one field (points off by 1 here, by 5 there) are two ways.  (What a
    course's run checks put in Fail(sole=): charge.excuse_same_difference charges it once across
    the runs of a problem.)"""
    index = first_line_difference(got, want)
    if index is None:
        return None
    kinds = [lines[index].kind for lines in (want, got) if index < len(lines)]
    for kind in dict.fromkeys(kinds):
        rest = [line for line in want if line.kind != kind]
        if not rest or [line for line in got if line.kind != kind] != rest:
            continue
        form = _one_way([line for line in got if line.kind == kind], [line for line in want if line.kind == kind])
        if form is not None:
            return f"{kind}: {form}"
    return None


def sole_run_difference(got: list[Line], want: list[Line], status: str, unit: str = "") -> str | None:
    """sole_difference of a run read aspect by aspect (the course's checks make a Line of each
    aspect they compare: a round, a scorecard box, the final score, what was returned), by how the
    run ended (STATUS, an Outcome's).  A run that ended normally: its sole difference.  One that
    asked for more input than the script holds ("input_exhausted"; WANT and GOT then hold what it
    got to: the rounds, UNIT lines, and what precedes them): only more UNIT lines than the
    reference's, each earlier one as the reference's ("round: extra": one round too many).  A
    crash, a timeout, any other stop: none (nothing is excused for a run that did not end).  UNIT
    lines missing or extra are a sole difference only for ONE of them (one round too few, one too
    many: a loop's slip): a run that left out most of its units has no sole difference (round 12:
    a game of one round in thirteen, its card and total its own, was "round: missing" in every
    game, and every game but the first was excused: 24.125 of 25)."""
    if status == "ok":
        found = sole_difference(got, want)
        if unit and found in (f"{unit}: missing", f"{unit}: extra") and abs(
                sum(line.kind == unit for line in got) - sum(line.kind == unit for line in want)) != 1:
            return None
        return found
    if status == "input_exhausted" and unit:
        found = sole_difference(got, want)
        return found if found == f"{unit}: extra" else None
    return None


def _one_way(got: list[Line], want: list[Line]) -> str | None:
    """How the lines GOT of one kind differ from WANT, when it is one way for all: some missing
    (GOT a subsequence of WANT), extra (the converse), or each differing pair in the same fields
    the same way (_field_way)."""
    if len(got) != len(want):
        fewer, more = (got, want) if len(got) < len(want) else (want, got)
        rest = iter(more)
        if all(any(line == other for other in rest) for line in fewer):     # a subsequence
            return "missing" if fewer is got else "extra"
        return None
    ways = set()
    for mine, theirs in zip(got, want):
        if mine != theirs:
            if len(mine.fields) != len(theirs.fields):
                return None
            ways.add(", ".join(f"field {n} {_field_way(a, b)}" for n, (a, b)
                               in enumerate(zip(mine.fields, theirs.fields), start=1) if a != b))
            if len(ways) > 1:
                return None
    return ways.pop() if ways else None


def _field_way(mine: Any, theirs: Any) -> str:
    """How one field differs: the same values in another order (a tuple: "reordered"), a number
    off by an amount ("off by -1"), else what was printed for what was expected (both reprs)."""
    if isinstance(mine, tuple) and isinstance(theirs, tuple) and len(mine) == len(theirs):
        try:
            if sorted(mine) == sorted(theirs):
                return "reordered"
        except TypeError:                 # (values of mixed types: not a reordering)
            pass
    a, b = _whole(mine), _whole(theirs)
    if a is not None and b is not None:
        return f"off by {a - b:+d}"
    return f"{mine!r} for {theirs!r}"


_DIGITS = re.compile(r"-?[0-9]{1,18}")


def _whole(value: Any) -> int | None:
    """VALUE as a whole number: an int, or text of at most 18 ASCII digits (a field a grammar kept
    as text; never int() of a program's long or non-ASCII digits); else None."""
    if type(value) is int:
        return value
    return int(value) if type(value) is str and _DIGITS.fullmatch(value) else None


def divergence_gap(ref: RefGame, student: Transcript) -> int:
    """The script line index before which the first differing roll happened (a large number if none)."""
    ref_by_gap, stu_by_gap = ref.game.dice_by_gap, student.dice_by_gap
    for gap in sorted(set(ref_by_gap) | set(stu_by_gap)):
        if ref_by_gap.get(gap, []) != stu_by_gap.get(gap, []):
            return gap
    return 1 << 30


EXTRA_QUESTION = "it asked a question the reference does not ask, which read the answer meant for the next one"


def asked_prompt(student: Transcript, index: int) -> str:
    """The prompt of STUDENT's INDEX-th question (0-based; "" past its last)."""
    asks = [item.text.strip() for item in student.items if item.kind == "in"]
    return asks[index] if 0 <= index < len(asks) else ""


def asked_in_round(student: Transcript, index: int) -> int:
    """The round (1-based: the student's Scored lines before it, plus one) of its INDEX-th question."""
    protocol, scored, asked = student.protocol, 0, -1
    for item in student.items:
        if item.kind == "in":
            asked += 1
            if asked == index:
                break
        elif item.kind == "line" and protocol.scored.search(item.text):
            scored += 1
    return scored + 1


def first_question_difference(ref: RefGame, student: Transcript) -> tuple[int, str] | None:
    """(script line index, cause) where the student asked the other kind of question than the
    reference (which dice to keep / which category), judged by the student's own prompts: only
    when it uses different prompts for the two questions, and before anything else went wrong."""
    protocol = ref.game.protocol
    kind_of: dict[str, str] = {}
    shown_since_scored = 0          # dice lines since the last scored line (rolls this round)
    index = -1
    prompts = [item.text.strip() for item in student.items if item.kind == "in"]
    for item in student.items:
        if item.kind == "line":
            if protocol.scored.search(item.text):
                shown_since_scored = 0
            elif protocol.dice_in(item.text) is not None:
                shown_since_scored += 1
            continue
        if item.kind != "in":
            continue
        index += 1
        if index >= len(ref.answer_kind):
            break
        want, prompt = ref.answer_kind[index], item.text.strip()
        if not prompt:
            continue
        after = prompts[index + 1] if index + 1 < len(prompts) else ""
        if prompt not in kind_of and kind_of.get(after) == want:
            # a prompt never seen, and right after it the prompt this answer was meant for: a question
            # the reference does not ask took the answer (pass 25: a "Press Enter to continue" pause)
            return index, EXTRA_QUESTION
        known = kind_of.setdefault(prompt, want)
        if known == want:
            continue
        third_roll = known == "keep" and shown_since_scored >= 3
        if known == "keep" and index > 0 and ref.keep_all[index - 1]:     # (its keep prompt, asked again)
            return index, ("it asked which dice to keep again after the player kept them all "
                           "(keeping all the dice ends the rolling)")
        if set(kind_of.values()) != {"keep", "category"} and not third_roll:
            return None             # one prompt for both questions: nothing to tell them apart by
        if known == "keep":
            return index, ("it asked which dice to keep where the reference asks for the category "
                           "(a keep question too many: at most two re-rolls per round)")
        return index, ("it asked for the category where the reference asks which dice to keep "
                       "(a re-roll too few?)")
    return None


# ---------------------------------------------------------------------------------------------
# A scripted game on both programs
# ---------------------------------------------------------------------------------------------

@dataclass
class Replayed:
    """A scripted game run on the reference and the student's program, read and compared."""

    ref: RefGame
    outcome: Any             # the student's Outcome
    mine: Transcript
    divergence: Divergence | None

    @property
    def finished(self) -> bool:
        return self.outcome.status == "ok"


def replay_game(student, reference, protocol: Protocol, func: str, *args: Any, stdin: list[str],
           seed: int | None = None, dice: list[int] | None = None, timeout: float | None = None,
           label: str | None = None) -> Replayed:
    """FUNC(*ARGS) with the script STDIN and SEED (or injected DICE) on the reference, then on the
    student's program -- once per submission (student.memo), skipped when FUNC ran out of time
    before (student.call_or_skip) -- both read with PROTOCOL and compared.  LABEL names the game
    in a grader fault.  Compared up to where the student's run stopped when it did not finish."""
    key = ("replay", func, repr(args), tuple(stdin), seed, tuple(dice or ()), _shown(student.substitute))
    memoized = getattr(student, "memoized", None)
    if memoized is not None and memoized(key):     # (asked again by another check: as it was)
        return student.memo(key, None)
    ref_outcome = reference.call(func, *args, stdin=list(stdin), seed=seed, dice=dice)
    if ref_outcome.status != "ok":
        raise GraderFault(f"the reference failed on {label or func}: {ref_outcome.status} {ref_outcome.message}")

    def run() -> Replayed:
        outcome = student.call_or_skip(func, *args, stdin=list(stdin), seed=seed, dice=dice, timeout=timeout)
        ref = read_reference(ref_outcome, protocol)
        mine = read_transcript(outcome, protocol)
        complete = outcome.status == "ok" and (outcome.inputs_asked or 0) >= len(stdin)
        return Replayed(ref, outcome, mine, first_divergence(ref, mine, complete=complete))

    return student.memo(key, run)


def _shown(substitute: Any) -> str:
    """repr(SUBSTITUTE) (a check's substitution: the plugin's dict of its stage, one for all its
    checks and every student), made again only when it is another dict or no longer equal."""
    if type(substitute) is not dict:
        return repr(substitute)
    known = _SHOWN.get(id(substitute))
    if known is not None and known[0] is substitute and known[1] == substitute:
        return known[2]
    text = repr(substitute)
    if len(_SHOWN) >= 64:
        _SHOWN.clear()
    _SHOWN[id(substitute)] = (substitute, copy.deepcopy(substitute), text)     # (kept alive: no id reused)
    return text


_SHOWN: dict[int, tuple[dict, dict, str]] = {}
