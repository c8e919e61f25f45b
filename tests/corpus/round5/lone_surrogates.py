# Text no encoder takes: lone surrogates (JSON may spell "\ud800"; Python keeps it in a str) in an
# exception message and in what a function returns.  On main d3ee52f the grader's own output raised
# UnicodeEncodeError: `grade` printed a traceback instead of feedback, and in a batch the gradebook
# (SQLite) refused the row and stopped grade-all: every classmate after it lost their grade.  Now
# the text comes back with each lone surrogate as its visible escape (\ud800).


def score_chance(dice):
    raise ValueError("lone \ud800 high, \udcff low, and a real \U0001F3B2 die")


def normalize_name(text):
    return "\udfff" + " ".join(text.lower().split())
