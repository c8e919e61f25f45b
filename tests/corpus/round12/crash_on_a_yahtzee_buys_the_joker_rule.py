def play_round(scorecard):
    """Stage 2's round, no Joker rule: any Yahtzee rolled stops it on one line (one stage-2 case pays)."""
    dice = roll_dice()
    print(format_dice(dice))
    for _ in range(ROLLS_PER_ROUND - 1):
        keep = ask_keep()
        if len(keep) == NUM_DICE:
            break
        dice = reroll(dice, keep)
        print(format_dice(dice))
    if len(set(dice)) == 1: raise RuntimeError("a Yahtzee")
    category = ask_category(scorecard, open_categories(scorecard))
    points = score(category, dice)
    scorecard[category] = points
    print(f"Scored {points} points in {category}.")
    return category, points
