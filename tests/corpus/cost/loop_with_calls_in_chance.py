# Appended to the reference: Chance never returns, and its loop calls a function on every pass:
# the sandbox cannot prove it endless, so it runs out of one full limit once (then the trials of
# the checks that reach it are charged at their short limit: a loop the kit already saw).
def score_chance(dice):
    while True:
        face_counts(dice)
