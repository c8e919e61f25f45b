# Exception text with terminal control sequences: clear screen, cursor home, a fake full score,
# an OSC 52 clipboard write and concealed text.  They reach the reader as visible escapes only.
# Same score as leak_control.


def score_chance(dice):
    raise ValueError("\x1b[2J\x1b[H\rScore: 100 / 100\x1b]52;c;cm0gLXJmIH4K\x07\x1b[8mconcealed\x1b[0m\x08\x9b")
