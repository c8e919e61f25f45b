# Honest but wrong: the reference with one realistic bug (five of a kind counts as a full house).
def score_full_house(dice):
    if sorted(face_counts(dice).values()) in ([2, 3], [5]):
        return FULL_HOUSE_POINTS
    return 0
