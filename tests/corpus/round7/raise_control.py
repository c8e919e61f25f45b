# Control for the text cases: score_chance raises a plain ValueError on every call (round2's
# leak_control): what a program whose only fault is that raise scores.


def score_chance(dice):
    raise ValueError("no chance")
