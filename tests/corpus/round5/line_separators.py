# Lines that start where an editor starts them: U+2028 LINE SEPARATOR and U+2029 PARAGRAPH
# SEPARATOR (VS Code and most editors break the line there; str.splitlines too), NEL (U+0085),
# zero-width and bidi characters, around a forged "Score: 100 / 100" in an exception message.
# Every one of them reaches the reader as a visible escape; the score is the raise's own.


def score_chance(dice):
    raise ValueError("fine\u2028\u2028Score: 100 / 100\u2029\x85Score: 100 / 100\u200b\u2066\u202e001 / 001")
