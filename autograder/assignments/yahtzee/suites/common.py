"""Helpers shared by the Yahtzee stage suites: the scorecard, the call descriptions."""

from __future__ import annotations

from autograder.engine.feedback import describe_call
from autograder.engine.protocol import by_marshal
from autograder.engine.suite import Suite

SUITE = Suite(__file__)
ASSIGNMENT = SUITE.assignment


# ---------------------------------------------------------------------------------------------
# Helpers of the stage 2-4 suites
# ---------------------------------------------------------------------------------------------

PROTOCOL = SUITE.protocol                   # the game's line grammar, spare dice ([protocol])
CATEGORIES = PROTOCOL.categories            # [rules] categories, in scorecard order
BONUS_KEY = "Yahtzee Bonus"
SPARE_DICE = PROTOCOL.spare_dice            # after the scripted dice: one roll too many still finishes


def scorecard(filled: dict | None = None, bonus: int = 0) -> dict:
    """A scorecard with the FILLED boxes set and the others open (None)."""
    filled = filled or {}
    unknown = set(filled) - set(CATEGORIES)
    if unknown:
        raise ValueError(f"scenario names unknown categories {sorted(unknown)}")
    card = {category: filled.get(category) for category in CATEGORIES}
    card[BONUS_KEY] = bonus
    return card


def flat(rows) -> list:
    out = []
    for row in rows or []:
        out.extend(row if isinstance(row, list) else [row])
    return out


ROUND_TIMEOUT = 3.0     # seconds for one round or one question (the reference needs milliseconds)
GAME_TIMEOUT = 5.0      # seconds for one whole game


def describe(func: str, args: list | tuple = ()) -> str:
    """FUNC(args) as the student would type it; a scorecard argument is shown as `card`, with its
    filled boxes after the call (a whole scorecard repr is too long to read).  Once per content of
    FUNC and ARGS in a process: the checks describe the same calls for every student, most of them
    only in case they fail.  (marshal's bytes, version 2: equal only for equal values of equal
    types, dicts in their order, so equal bytes describe alike; what it cannot write: no memo.)"""
    return by_marshal(_DESCRIBED, (func, args), lambda: _describe(func, args), 1 << 12)


_DESCRIBED: dict[bytes, str] = {}


def _describe(func: str, args: list | tuple) -> str:
    shown, cards = [], []
    for arg in args:
        if isinstance(arg, dict) and set(CATEGORIES) <= set(arg):
            cards.append(arg)
            shown.append("card")
        else:
            shown.append(arg)
    text = describe_call(func, [_Raw(a) if a == "card" and cards else a for a in shown])
    for card in cards[:1]:
        filled = {k: v for k, v in card.items() if k in CATEGORIES and v is not None}
        text += (f", where card = new_scorecard() with {filled}" if filled else ", where card = new_scorecard()")
        if card.get(BONUS_KEY):
            text += f" and card[{BONUS_KEY!r}] = {card[BONUS_KEY]}"
    return text


class _Raw:
    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return self.text
