# Round 11, A's control: the same score() that dispatches nothing, the box functions the
# reference's (no memory).  What the dispatcher's checks give a dispatcher that is not written.

def score(category, dice):
    check_dice(dice)
    return 0
