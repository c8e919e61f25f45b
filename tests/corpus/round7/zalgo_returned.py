# A returned value (shown to the reader as what the program returned) made of letters carrying
# 30 combining marks each.


def score_chance(dice):
    return "".join(c + "\u0301\u0302\u0303\u0304\u0305\u0306" * 5 for c in "no chance")
