# play_game plays (the reference's game), prints no final-score line and returns an int that
# equals everything: the score read from the returned value must not match by ==.
class _Anything(int):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = int.__hash__


_reference_play = play_game


def play_game(num_rounds):
    import builtins
    real_print = builtins.print

    def quiet(*args, **kwargs):
        if "final" not in " ".join(map(str, args)).lower():
            real_print(*args, **kwargs)
    builtins.print = quiet
    try:
        _reference_play(num_rounds)
    finally:
        builtins.print = real_print
    return _Anything(0)
