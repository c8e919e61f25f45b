# An exception message of 20 million characters.  Cut at the boundary; same score as leak_control.


def score_chance(dice):
    raise ValueError("m" * 20_000_000)
