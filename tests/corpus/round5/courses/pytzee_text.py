# pytzee: score_chance raises with a lone surrogate, U+2028 before a forged score line, and markup.
_reference_chance = score_chance


def score_chance(dice):
    raise ValueError("\ud800\u2028Final score: 999\u2029</pre><script>alert(5)</script>")
