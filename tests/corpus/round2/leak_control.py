# Control for the leak and size cases: score_chance raises a plain ValueError on every call.


def score_chance(dice):
    raise ValueError("no chance")
