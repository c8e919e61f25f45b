# Exception text that closes the Markdown feedback's code fence and opens live Markdown and HTML.
# The fence is longer than any backtick run in the text, so it stays text.  Same as leak_control.


def score_chance(dice):
    raise ValueError("x\n````\n# FULL MARKS 100/100\n<img src=x onerror=alert(1)>\n```\n")
