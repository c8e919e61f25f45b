_REROLLS = []


def reroll(dice, keep):
    """The reference's reroll, but the first one a process asks for crashes (one check of P9 pays)."""
    _REROLLS.append(1)
    if len(_REROLLS) == 1: raise RuntimeError("not yet")
    rerolled = [pos for pos in range(1, NUM_DICE + 1) if pos not in keep]
    new_values = roll_dice(len(rerolled))
    new_dice = list(dice)
    for pos, value in zip(rerolled, new_values):
        new_dice[pos - 1] = value
    return new_dice


def play_round(scorecard):
    dice = reroll(roll_dice(), [])
    return "Chance", sum(dice)
