# Carries each call's (hidden) dice out in the NAME of the exception class it raises.
# Hidden checks must not show the name; it scores exactly what leak_control scores.


def score_chance(dice):
    name = "LEAK_" + "_".join(str(d) for d in dice)
    raise type(name, (Exception,), {})()
