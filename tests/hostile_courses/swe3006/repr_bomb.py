# Values whose repr/str recurse without end (and whose == raises): the grader must show them
# without recursing itself.
_Base = YahtzeeGame


class _Bomb:
    def __repr__(self):
        return repr(_Bomb()) + "!"

    __str__ = __repr__

    def __eq__(self, other):
        raise RecursionError("no")

    __hash__ = object.__hash__


class YahtzeeGame(_Base):
    def calculate_score(self):
        return {"Aces": _Bomb()}

    def is_straight(self, dice_set, is_small):
        return _Bomb()
