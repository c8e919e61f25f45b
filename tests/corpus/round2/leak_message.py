# Carries each call's (hidden) dice out in the exception's message.  Same score as leak_control.


def score_chance(dice):
    raise ValueError(f"LEAKMSG {dice!r}")
