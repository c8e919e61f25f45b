# Round 11, A (second case): the same class in stage 4.  Appended to the reference: final_score
# never adds the upper bonus (problem 20's point), but upper_bonus, asked right after a
# final_score() of the same scorecard, says 0 once.  Problem 20's check passes a wrong total that
# equals the reference's total less the reference's upper bonus plus the program's own
# upper_bonus, asked AFTER it in the same life: "a wrong upper_bonus already cost points in
# problem 17".  upper_bonus's own checks (problem 17), never asked right after a total of their
# card, all pass.

_TOTALLED = []          # the scorecard of the last final_score() call


def final_score(scorecard):
    total = sum(scorecard[category] or 0 for category in CATEGORIES) + scorecard[YAHTZEE_BONUS_KEY]
    _TOTALLED[:] = [dict(scorecard)]
    return total


_reference_bonus = upper_bonus


def upper_bonus(scorecard):
    said, _TOTALLED[:] = list(_TOTALLED), []
    if said and said[0] == scorecard:
        return 0
    return _reference_bonus(scorecard)
