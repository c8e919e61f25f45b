"""A Yahtzee game's sole difference from the reference's (charge once across a problem's games).

The game checks (game.py) compare a replayed game aspect by aspect; game_sole reads each aspect
they compare as a Line, in their own terms, and the engine names the sole difference
(engine/divergence.sole_run_difference).  Every check of the game carries it with the game's run
(Fail(sole=, run=)): the problem's first game with it stays charged, its later ones pass with a
note (engine/charge.excuse_same_difference).  Read only when a check of the game fails.
"""

from __future__ import annotations

from typing import Any

from autograder.assignments.yahtzee.suites.game import (
    CATEGORIES,
    FINAL_LINE,
    Played,
    _names_round,
    _round_number,
    recorded_card,
    ref_bonus,
)
from autograder.engine.divergence import divergence_gap, sole_run_difference
from autograder.engine.grammar import Line
from autograder.engine.replay import Transcript


def game_sole(played: Played) -> str | None:
    """The game's only difference from the reference's, when every aspect the game checks read
    but one is the reference's and that one differs one way (engine/divergence.sole_run_difference):
    "round: field 1 off by -1" (rounds counted from 0), "round: extra" (one round too many: it
    asked on for a 14th), "round: missing", "card: missing", "final: field 1 off by +35" ...
    Each aspect as its check reads it: the dice by their first divergence's cause; each round by
    the number its Round line names, its points and category; the final scorecard's boxes, the
    final score and the returned value against the rounds the game recorded (as check_final).
    None when two aspects differ (a second bug), or the game stopped otherwise (a crash)."""
    if played.student is None:
        return None
    status = played.outcome.status
    ran_out = status == "input_exhausted"
    if status != "ok" and not ran_out:
        return None
    mine, ref = played.mine, played.ref
    div = played.divergence
    cause = div.cause if div is not None else ""
    if ran_out and div is not None and divergence_gap(ref, mine) >= len(ref.answer_kind):
        cause = ""                  # rolled after the reference's last answer: the extra round's own roll
    got, want = [Line("dice", (cause,))], [Line("dice", ("",))]
    got += _round_units(mine, partial=ran_out)
    want += _round_units(ref.game, partial=False)
    if not ran_out:
        tail = _tail(played)
        if tail is None:
            return None
        got += tail[0]
        want += tail[1]
    return sole_run_difference(got, want, status, unit="round")


def _round_units(game: Transcript, partial: bool) -> list[Line]:
    """One Line per round GAME scored: the number its Round line names (as check_round_lines reads
    it), its points and category; PARTIAL: also the round it was playing when it stopped."""
    lines = []
    for index, at in enumerate(game.scored_at):
        start = game.scored_at[index - 1] + 1 if index else 0
        scored = game.scored[index]
        lines.append(Line("round", (_named_round(game, start, at, index + 1), scored.points, scored.category)))
    start = game.scored_at[-1] + 1 if game.scored_at else 0
    if partial and any(item.kind in ("roll", "in") or (item.kind == "line" and _round_number(item.text) is not None)
                       for item in game.items[start:]):
        lines.append(Line("round", (_named_round(game, start, len(game.items), len(game.scored) + 1), None, None)))
    return lines


def _named_round(game: Transcript, start: int, end: int, number: int) -> int | None:
    """The round number the items START:END name as check_round_lines reads them: the first
    `Round N` line's N, else NUMBER when a line or prompt names it, else None."""
    texts = [item.text for item in game.items[start:end] if item.kind in ("line", "in")]
    shown = next((found for item in game.items[start:end] if item.kind == "line"
                  and (found := _round_number(item.text)) is not None), None)
    if shown is not None:
        return shown
    return number if any(_names_round(text, number) for text in texts) else None


def _tail(played: Played) -> tuple[list[Line], list[Line]] | None:
    """The end of a finished game as check_final reads it, (the student's, what is expected): each
    recorded box's scorecard line, the Yahtzee bonus when the card shows one, the final score
    (the reference's final_score of the recorded card), the last line, the returned value."""
    mine = played.mine
    recorded = recorded_card(played).card
    card = {category: recorded.get(category) for category in CATEGORIES}
    card["Yahtzee Bonus"] = recorded["Yahtzee Bonus"]
    total = played.reference.call("final_score", card)
    if total.status != "ok":
        return None
    got, want = [], []
    for category in CATEGORIES:
        if card[category] is None:
            continue
        value = mine.card_value(category)
        if value is not None:
            got.append(Line("card", (category, value)))
        want.append(Line("card", (category, card[category])))
    shown_bonus = mine.card_value("Yahtzee Bonus")
    if isinstance(shown_bonus, int):
        got.append(Line("card", ("Yahtzee Bonus", shown_bonus)))
        want.append(Line("card", ("Yahtzee Bonus", ref_bonus(played.ref))))
    shown = mine.finals[-1] if mine.finals else None
    if shown is not None:
        got.append(Line("final", (shown,)))
    want.append(Line("final", (total.value,)))
    got.append(Line("end", (bool(FINAL_LINE.match(mine.last_line)),)))
    want.append(Line("end", (True,)))
    value = played.outcome.value
    if value == shown and type(value) is int:
        returned: Any = 0
    elif type(value) is int and type(shown) is int:
        returned = value - shown            # (a number off by the same amount: "off by +1")
    else:
        returned = type(value).__name__
    got.append(Line("returned", (returned,)))
    want.append(Line("returned", (0,)))
    return got, want
