# Appended to the reference: yahtzee_bonus returns, and joker_categories raises, objects whose
# __repr__, __str__, __format__, __eq__ and __hash__ never return.
def _forever(*args):
    while True:
        pass


class Tarpit(int):
    __repr__ = __str__ = __format__ = __eq__ = __ne__ = __hash__ = __bool__ = _forever


class TarpitError(ValueError):
    __repr__ = __str__ = _forever


def yahtzee_bonus(scorecard):
    return Tarpit(YAHTZEE_BONUS_POINTS if scorecard["Yahtzee"] == YAHTZEE_POINTS else 0)


def joker_categories(dice, scorecard):
    raise TarpitError(Tarpit(1), "no categories")
