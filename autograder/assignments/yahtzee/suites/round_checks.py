"""Yahtzee's one-round checks (play_round with injected dice, stages 2 and 4) and the
scorecard text (format_scorecard, stages 3 and 4)."""

from __future__ import annotations

from autograder.assignments.yahtzee.suites.common import (
    BONUS_KEY,
    CATEGORIES,
    PROTOCOL,
    ROUND_TIMEOUT,
    describe,
    flat,
    scorecard,
)
from autograder.assignments.yahtzee.suites.game import (
    divergence_aspect,
    own_non_number_shown,
    question_aspect,
    read_game,
    read_reference,
)
from autograder.engine.charge import stopped_aspect, written
from autograder.engine.checks import reference_helpers, reference_ok
from autograder.engine.divergence import (
    EXTRA_QUESTION,
    asked_prompt,
    first_divergence,
    first_question_difference,
)
from autograder.engine.feedback import Fail
from autograder.engine.replay import normalize
from autograder.engine.suite import returned_value

CARD_LINE = PROTOCOL.card


def own_points(student, func: str, category: str, dice: list[int]):
    """What the student's own FUNC (score / joker_score) gives: (value, None) or (None, why not)."""
    from autograder.engine.checks import explain

    outcome = student.call_or_skip(func, category, dice)
    if outcome.status != "ok":
        return None, explain(outcome, f"{func}(...)")
    return outcome.value, None


# Divergences in what the Dice: lines show, the dice rolled being the reference's.
SHOWN_KINDS = ("dice_line_sorted", "dice_line_order", "dice_line_wrong")
# A round that returned no pair at all (a stage-2 bug): problem 19 asks such a round again without the pair
NO_PAIR_ASPECT = "returned no (category, points) pair"


def shown_as_own_format(student, ref, mine) -> bool:
    """Whether every Dice: line of the round shows what the student's OWN format_dice makes of the
    reference's dice there (a format_dice bug, charged once, by problem 7: as points that the
    student's own score gives are accepted below)."""
    if len(mine.dice_lines) != len(ref.game.dice_lines) or not written(getattr(student, "source", None) or "",
                                                                           ["format_dice"]):
        return False                    # (a constant or unwritten format_dice is never excused)
    made: dict[tuple, list[int] | None] = {}
    for (_, want), (_, got) in zip(ref.game.dice_lines, mine.dice_lines):
        if got == want:
            continue
        key = tuple(want)
        if key not in made:
            outcome = student.call_or_skip("format_dice", list(want))
            made[key] = PROTOCOL.dice_in(outcome.value) if outcome.status == "ok" and isinstance(
                outcome.value, str) else None
        if made[key] != got:
            return False
    return True


# An excuse by agreement (a value the student's own helper gives, asked AFTER the round, in the same
# life: the work folder carries what the round said to it) holds only when the round played again
# with the reference's helper gives the reference's answer (checks.reference_helpers; round 11).
def _dice_lines(game) -> list:
    return [dice for _, dice in game.dice_lines]


def _returned(outcome):
    return list(outcome.value) if outcome.status == "ok" and isinstance(outcome.value, (list, tuple)) else None


def _bonus_after(outcome):
    after = (outcome.args_after or [None])[0] if outcome.status == "ok" else None
    return after.get(BONUS_KEY) if isinstance(after, dict) else None


def _own_bonus_after(student, card: dict):
    """The Yahtzee bonus after a Joker on CARD as the student's OWN yahtzee_bonus gives it (None
    for a constant or unwritten one: it is never excused)."""
    if not written(getattr(student, "source", None) or "", ["yahtzee_bonus"]):
        return None
    own = own_value(student, "yahtzee_bonus", card)
    return card.get(BONUS_KEY, 0) + own if isinstance(own, int) and not isinstance(own, bool) else None


def check_round(student, reference, case: dict, bonus_rule: bool = True, returned: bool = True) -> None:
    """Play one round with injected dice and a script; compare rolls, result, scorecard, output.

    A bug costs points once: points that differ from the reference's but equal what the
    student's own score (joker_score for a Joker) gives on the round's dice are accepted.  Each
    failure names its aspect (engine/charge.py), the same words in stage 2 and in stage 4, so a
    stage-2 bug of play_round is not charged again by the Joker rounds; what only a Joker or a
    Yahtzee bonus can show has aspects of its own.  BONUS_RULE False (stage 2): the Yahtzee
    bonus the round leaves on the scorecard is not compared: it is stage 4's rule (a bonus given
    for the Yahtzee that goes into the open Yahtzee box is charged by problem 19's games).  RETURNED
    False: the returned pair is not compared (the round's play and its scorecard are)."""
    import pytest

    card = scorecard(case.get("filled"), case.get("bonus", 0))
    stdin = list(case["stdin"])
    rolls = [list(r) for r in case["rolls"]]
    injected = PROTOCOL.with_spare_dice(flat(rolls))
    def ran() -> str:           # (the round's text only where it is shown: a passing check never needs it)
        return f"{describe('play_round', [card])}; the answers {stdin}; the dice rolled {rolls}"

    ref_outcome = reference_ok(reference.call("play_round", card, stdin=stdin, dice=injected), ran)
    outcome = student.call_or_skip("play_round", card, stdin=stdin, dice=injected, timeout=ROUND_TIMEOUT)
    why = case["why"]
    ref = read_reference(ref_outcome)
    mine = read_game(outcome)
    complete = outcome.status == "ok"
    divergence = first_divergence(ref, mine, complete=complete)
    again: dict[str, object] = {}

    def with_reference(helper: str):
        """The round played again with the reference's HELPER (an excuse's proof: round 11)."""
        if helper not in again:
            with reference_helpers(student, [helper], "play_round"):
                again[helper] = student.call_or_skip("play_round", card, stdin=stdin, dice=injected,
                                                     timeout=ROUND_TIMEOUT)
        return again[helper]

    if divergence is not None and divergence.kind in SHOWN_KINDS and shown_as_own_format(student, ref, mine) \
            and _dice_lines(read_game(with_reference("format_dice"))) == _dice_lines(ref.game):
        divergence = None                    # format_dice's bug: charged in its own checks (problem 7)
    joker = " in a Joker round" if ref.rounds and "joker" in ref.rounds[-1].marks else ""

    def fail(public: str, secret: str, hint: str | None = None, aspect: str | None = None, sole: str | None = None,
             **values):
        raise Fail(f"play_round ({why}): {public}.", hidden=f"play_round: {secret} ({why}).", ran=ran(), hint=hint,
                   output=outcome.stdout, show_values=bool(values), aspect=aspect, sole=sole, **values)

    if outcome.status not in ("ok", "input_exhausted"):
        try:
            returned_value(outcome, ran, short="play_round(...)",
                          hint=divergence.hint if divergence else None)
        except Fail as stopped:
            stopped.aspect = stopped_aspect(outcome)
            raise
    if divergence is not None and divergence.kind != "dice_line_missing":
        where = divergence.where.split(", ")[-1]
        fail(f"at {where}, {divergence.cause}: {divergence.detail}", divergence.cause,
             hint=divergence.hint or case.get("hint"), aspect=divergence_aspect(divergence))
    if outcome.status == "input_exhausted":
        question = first_question_difference(ref, mine)
        cause = f"; likely cause: {question[1]}" if question else ""
        extra = question is not None and question[1] == EXTRA_QUESTION
        shown = f" (the prompt {asked_prompt(mine, question[0])!r})" if extra else ""
        fail(f"it {outcome.message}{cause}{shown}", f"it asked for more input than the answers given{cause}",
             hint=(case.get("hint") if question and not extra else None) or "It asked for more answers than the "
             "round needs: does it ask a question the handout does not ask, refuse a valid answer, or ask a keep "
             "question too many?", aspect=question_aspect(question))
    got = outcome.value
    want = list(ref_outcome.value)
    want_after = dict((ref_outcome.args_after or [None])[0] or {})
    if (isinstance(got, list) and len(got) == 2 and got[0] == want[0] and got[1] != want[1]
            and ref.rounds and ref.rounds[-1].final_dice):
        func = "joker_score" if "joker" in ref.rounds[-1].marks else "score"
        value, problem = own_points(student, func, want[0], ref.rounds[-1].final_dice)
        if problem:
            pytest.skip(f"can't check play_round's points until {func} works: {problem}")
        if value == got[1] and _returned(with_reference(func)) == list(ref_outcome.value):
            want[1] = got[1]                 # the bug already cost points in the checks of FUNC
            want_after[want[0]] = got[1]
    if returned and got != want:
        hint = case.get("hint")
        if isinstance(got, list) and got and isinstance(got[0], str) and card.get(got[0]) is not None:
            fail(f"returned {got!r}: it accepted {got[0]}, which was already filled; expected {tuple(want)!r}",
                 "it accepted a box that was already filled",
                 hint="A box that is already filled cannot be used again: print a message and ask again.",
                 aspect=f"accepted a filled box{joker}")
        if not (isinstance(got, list) and len(got) == 2):     # no pair at all: no Joker rule in that
            # the round played right otherwise: its sole difference (charged in the problem's first such check)
            alone = outcome.inputs_asked == ref_outcome.inputs_asked and divergence is None and \
                (outcome.args_after or [None])[0] == want_after and \
                any(points == want[1] and category == want[0] for points, category, _, _ in mine.scored)
            fail(f"returned {got!r}; expected the pair {tuple(want)!r}", "it returned no (category, points) pair",
                 hint="End play_round with `return category, points`: printing the Scored line does not "
                      "return anything." if got is None else hint,
                 expected=tuple(want), got=got, aspect=NO_PAIR_ASPECT,
                 sole=f"play_round returned {type(got).__name__}, no (category, points) pair" if alone else None)
        fail(f"returned {got!r}; expected {tuple(want)!r}", "it returned the wrong (category, points)",
             hint=hint, expected=tuple(want), got=got, aspect=f"returned the wrong (category, points){joker}")
    if outcome.inputs_asked != ref_outcome.inputs_asked:
        fail(f"read {outcome.inputs_asked} answers; expected {ref_outcome.inputs_asked}",
             "it did not read every answer", hint=case.get("hint"), aspect=f"did not read every answer{joker}")
    after = (outcome.args_after or [None])[0]
    if (bonus_rule and joker and isinstance(after, dict) and after.get(BONUS_KEY) != want_after.get(BONUS_KEY)
            and after.get(BONUS_KEY) == _own_bonus_after(student, card)
            and _bonus_after(with_reference("yahtzee_bonus")) == want_after.get(BONUS_KEY)):
        want_after[BONUS_KEY] = after[BONUS_KEY]     # yahtzee_bonus's bug: charged in its own checks (P18)
    if not bonus_rule and isinstance(after, dict) and BONUS_KEY in want_after:
        after = {**after, BONUS_KEY: want_after[BONUS_KEY]}     # (a key it lacks still differs: one more)
    if after != want_after:
        hint = "Write the points into the scorecard passed in (scorecard[category] = points)."
        aspect = f"the scorecard after the round{joker}"
        if isinstance(after, dict) and after.get(BONUS_KEY) != want_after.get(BONUS_KEY):
            aspect = "the Yahtzee bonus after the round"
            hint = case.get("hint") or "A further Yahtzee with 50 in the Yahtzee box adds 100 to " \
                                        "scorecard[\"Yahtzee Bonus\"]."
        if isinstance(after, dict):
            wrong = [k for k in want_after if after.get(k) != want_after[k]] + [k for k in after if k not in want_after]
            shown = "; ".join(f"scorecard[{k!r}] is {after.get(k)!r}, expected {want_after.get(k)!r}"
                              for k in wrong[:3])
        else:
            shown = f"the scorecard became {after!r}"
        fail(f"after the round, {shown}", "the scorecard after the round is wrong", hint=hint, aspect=aspect)
    if divergence is not None:
        fail(f"at {divergence.where.split(', ')[-1]}, {divergence.cause}: {divergence.detail}", divergence.cause,
             hint=divergence.hint, aspect=divergence_aspect(divergence))
    if not any(points == want[1] and category == want[0] for points, category, _, _ in mine.scored):
        fail(f"expected the line `Scored {want[1]} points in {want[0]}.`",
             "no `Scored N points in CATEGORY.` line for the round",
             hint="Print `Scored N points in CATEGORY.` at the end of the round.", aspect=f"the Scored line{joker}")



def card_lines(text: str) -> list[tuple[str, str]]:
    """(name, shown value) for each `Name: value` line of TEXT."""
    out = []
    for line in text.split("\n"):
        match = CARD_LINE.match(line)
        if match:
            out.append((match.group(1).strip(), match.group(2)))
    return out


def _read_card(text: str) -> tuple[tuple, tuple]:
    """card_lines(TEXT), and (category, shown value) of those that name a category, once per text
    in a process (most students' scorecards are another's, byte for byte)."""
    known = _CARDS_READ.get(text)
    if known is None:
        lines = tuple(card_lines(text))
        known = (lines, tuple((PROTOCOL.category_named(name), value) for name, value in lines
                              if PROTOCOL.category_named(name)))
        if len(text) <= 4096:           # (a scorecard's size: a longer text is read each time)
            if len(_CARDS_READ) >= 256:
                _CARDS_READ.clear()
            _CARDS_READ[text] = known
    return known


_CARDS_READ: dict[str, tuple[tuple, tuple]] = {}


def own_value(student, func: str, *args):
    """The student's own FUNC(*ARGS) value, or None when it does not return."""
    outcome = student.call_or_skip(func, *args)
    return outcome.value if outcome.status == "ok" else None


def _own_total_not_a_number(student, card: dict, line: str) -> bool:
    """Whether LINE is `Total: X` with X what the student's own final_score shows on CARD when that is
    not a number (game.own_non_number_shown)."""
    name, colon, value = line.partition(":")
    return bool(colon) and normalize(name) == "total" and own_non_number_shown(student, card, value)


def _unread_value(text: str, category: str) -> str | None:
    """What a `CATEGORY: something` line of TEXT shows when the grader cannot read it as points."""
    for line in text.split("\n"):
        name, colon, value = line.partition(":")
        if colon and normalize(name) == normalize(category):
            return value.strip()[:40]
    return None


def _card_value(student, card: dict, helper: str, key: str) -> str | None:
    """What format_scorecard(CARD), run with the reference's HELPER, shows on its KEY line (a
    normalized name): an excuse by agreement's proof (round 11, checks.reference_helpers)."""
    with reference_helpers(student, [helper], "format_scorecard"):
        outcome = student.call_or_skip("format_scorecard", card)
    if outcome.status != "ok" or not isinstance(outcome.value, str):
        return None
    return {normalize(name): value for name, value in card_lines(outcome.value)}.get(key)


NEWLINE_ASPECT = "format_scorecard: a newline at an end"     # P15's, and P20's again (charged once)


def check_scorecard_text(student, reference, case: dict, *, bonus_lines: bool) -> None:
    """format_scorecard: a `Category: points` line per box in order ("-" when open), `Total: N` last.
    BONUS_LINES (stage 4): the `Upper Bonus` line right after Sixes, `Yahtzee Bonus` after Chance;
    then the box lines themselves are stage 3's business and not checked again.  A wrong
    final_score or upper_bonus costs points once: their own values are accepted in the text; a
    failure of the stage-3 lines names the same aspect in stage 4 (engine/charge.py), the bonus
    lines have aspects of their own."""
    card = scorecard(case.get("filled"), case.get("bonus", 0))
    ran = describe("format_scorecard", [card])
    reference_ok(reference.call("format_scorecard", card), ran)
    total = reference_ok(reference.call("final_score", card), ran).value
    outcome = student.call_or_skip("format_scorecard", card)
    try:
        got = returned_value(outcome, ran, short="format_scorecard(...)")
    except Fail as stopped:
        stopped.aspect = stopped_aspect(outcome)
        raise

    def fail(public: str, secret: str, hint: str | None = None, aspect: str | None = None, sole: str | None = None):
        raise Fail(public, hidden=secret, ran=ran, got=got, show_values=False, hint=hint,
                   output=got if isinstance(got, str) else None, aspect=aspect, sole=sole)

    if not isinstance(got, str):
        fail(f"format_scorecard returned {got!r}; it must return the text (a str).",
             "format_scorecard must return the text (a str).",
             hint="Return the lines joined with newlines; don't print them." if got is None else None,
             aspect="format_scorecard returns no text")
    lines, shown = _read_card(got)
    names = [name for name, _ in shown]
    if names != CATEGORIES:
        missing = [c for c in CATEGORIES if c not in names]
        unread = _unread_value(got, missing[0]) if missing else None
        if unread is not None:            # `Ones: None`: a line, but not one of `Category: points`
            want = "-" if card[missing[0]] is None else str(card[missing[0]])
            fail(f"format_scorecard: the line for {missing[0]} shows {unread!r}; expected {want!r}.",
                 "format_scorecard: a box shows the wrong value" + (" (an open box)." if want == "-" else "."),
                 hint='An open box shows "-" (not 0 or None).' if want == "-" else "A box shows its points.",
                 aspect="format_scorecard: the box lines")
        fail("format_scorecard: expected one `Category: points` line per box, in scorecard order"
             + (f"; no line for {missing[0]}." if missing else f"; got the order {names}."),
             "format_scorecard: one `Category: points` line per box, in scorecard order, is expected.",
             hint="Write the boxes in CATEGORIES order: Ones ... Sixes, then Three of a Kind ... Chance.",
             aspect="format_scorecard: the box lines")
    if not bonus_lines:
        for category, value in shown:
            want = "-" if card[category] is None else str(card[category])
            if value != want:
                hint = ('An open box shows "-" (not 0 or None).' if card[category] is None else None)
                fail(f"format_scorecard: the line for {category} shows {value!r}; expected {want!r}.",
                     "format_scorecard: a box shows the wrong value"
                     + (" (an open box)." if card[category] is None else "."), hint=hint)
    text_lines = [line for line in got.split("\n") if line.strip()]
    last = CARD_LINE.match(text_lines[-1]) if text_lines else None
    # `Total: None`: what the student's final_score returns, charged in its own checks once the card
    # proves it (with the reference's final_score it shows the total: round 12), and the rest of the
    # check still read (a return here passed a stage-4 card with no bonus lines)
    own_total = bool(not last and text_lines and _own_total_not_a_number(student, card, text_lines[-1])
                     and _card_value(student, card, "final_score", "total") == str(total))
    if not own_total and (not last or normalize(last.group(1)) != "total"):
        fail(f"format_scorecard: the last line should be `Total: {total}`.",
             "format_scorecard: the last line should be `Total: N` with the final score.",
             hint="End the scorecard with a `Total: N` line (N = final_score(scorecard)).",
             aspect="format_scorecard: the Total line")
    if not own_total and last.group(2) != str(total) and (
            last.group(2) != str(own_value(student, "final_score", card))
            or _card_value(student, card, "final_score", "total") != str(total)):
        fail(f"format_scorecard: `Total: {last.group(2)}`; expected {total}.",
             "format_scorecard: the Total line shows the wrong total.",
             hint="The Total line shows final_score(scorecard).", aspect="format_scorecard: the total")
    if bonus_lines:
        order = [normalize(name) for name, _ in lines]
        values = {normalize(name): value for name, value in lines}
        upper = reference_ok(reference.call("upper_bonus", card), ran).value
        own_upper = own_value(student, "upper_bonus", card)
        for key, want, after in (("upperbonus", upper, "sixes"), ("yahtzeebonus", card[BONUS_KEY], "chance")):
            label = "Upper Bonus" if key == "upperbonus" else "Yahtzee Bonus"
            if key not in values:
                fail(f"format_scorecard: no `{label}: N` line.", f"format_scorecard: no `{label}: N` line.",
                     hint="Stage 4: add `Upper Bonus: N` right after Sixes and `Yahtzee Bonus: N` right after "
                          "Chance.")
            excused = (values[key] != str(want) and key == "upperbonus" and own_upper is not None
                       and values[key] == str(own_upper)
                       and _card_value(student, card, "upper_bonus", key) == str(want))
            if values[key] != str(want) and not excused:
                hint = "The upper bonus needs 63 or more (63 counts)." if key == "upperbonus" else None
                fail(f"format_scorecard: `{label}: {values[key]}`; expected {want}.",
                     f"format_scorecard: the {label} line shows the wrong value.", hint=hint)
            if order.index(key) != order.index(after) + 1:
                fail(f"format_scorecard: the `{label}` line belongs right after {after.title()}.",
                     f"format_scorecard: the `{label}` line is out of place.")
    if got != got.strip("\n"):     # the handout: "the lines joined with newlines (no newline at the end)"
        # read last, so that it is the check's sole difference: charged once in the problem (pass 25)
        end = "end" if got.endswith("\n") else "start"
        fail(f"format_scorecard's text has a newline at the {end}: the lines are joined with newlines, "
             "with none before the first line or after the last.",
             "format_scorecard's text must have no newline before its first line or after its last.",
             hint='Return "\\n".join(lines): print() adds the last newline itself.',
             aspect=NEWLINE_ASPECT, sole=NEWLINE_ASPECT)

