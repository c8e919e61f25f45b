# U+061C ARABIC LETTER MARK is a bidi control (Bidi_Control, category Cf) that the reader's list of
# bidi characters missed: around "0 / 100" a browser draws "100 / 0" (seen in chromium on main).


def score_chance(dice):
    raise ValueError("no chance \u061c0 / 100\u061c")
