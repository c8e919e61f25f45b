# Appended to the reference: Full House scoring looks for the pair with a loop that never ends
# when no face appears exactly twice and none three times (two pairs, straights, ...).
def score_full_house(dice):
    counts = sorted(face_counts(dice).values())
    if 2 in counts and 3 in counts:
        return FULL_HOUSE_POINTS
    i = 0
    while 3 not in counts:
        i = (i + 1) % len(counts)
    return 0
