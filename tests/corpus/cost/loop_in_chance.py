# Appended to the reference: Chance never returns (mallory's loop, on the reference).
def score_chance(dice):
    while True:
        pass
