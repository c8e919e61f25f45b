# play_game returns a value whose repr/str/format recurse without end and whose == raises,
# and prints no final-score line (the reference's game otherwise).
class _Bomb(int):
    def __repr__(self):
        return repr(_Bomb()) + "!"

    __str__ = __repr__
    __format__ = lambda self, spec: repr(self)  # noqa: E731

    def __eq__(self, other):
        raise RecursionError("no")

    __hash__ = int.__hash__


_reference_play = play_game


def play_game(num_rounds):
    import builtins
    real_print = builtins.print
    builtins.print = lambda *args, **kwargs: None if "final" in " ".join(map(str, args)).lower() \
        else real_print(*args, **kwargs)
    try:
        _reference_play(num_rounds)
    finally:
        builtins.print = real_print
    return _Bomb(92)
