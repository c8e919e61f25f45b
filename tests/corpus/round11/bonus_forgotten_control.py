# Round 11, A's second control: the same final_score (no upper bonus), upper_bonus the
# reference's (no memory).  What problem 20's checks give a total that forgets the upper bonus.

def final_score(scorecard):
    total = sum(scorecard[category] or 0 for category in CATEGORIES) + scorecard[YAHTZEE_BONUS_KEY]
    return total
