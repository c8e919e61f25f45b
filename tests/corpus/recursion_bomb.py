# Appended to the reference: joker_score calls itself forever (infinite recursion).
def joker_score(category, dice):
    return joker_score(category, list(dice))
