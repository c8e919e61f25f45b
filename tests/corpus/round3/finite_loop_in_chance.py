# score_chance first skips through an iterator with `in` (each `0 in it` consumes the iterator up
# to the next 0: C code, no Python frame), a loop whose only name keeps the same object.  It ran
# past the proof's first look (10 ms) and was proved endless: every check of Chance a timeout,
# 97.9714 (what a score_chance that raises scores, round2's leak_control).  An `in` now counts as
# still only on a list, tuple, str, bytes, dict, set, frozenset or range: full marks.
_score_chance = score_chance   # noqa: F821 -- the solution's, above


def score_chance(dice):
    it = iter([0] * 1_000_000 + [1])
    while 0 in it:
        pass
    return _score_chance(dice)
