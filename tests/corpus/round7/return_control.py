# Control for zalgo_returned: score_chance returns a string on every call.


def score_chance(dice):
    return "no chance"
