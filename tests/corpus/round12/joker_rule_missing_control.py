def play_round(scorecard):
    """Stage 2's round, no Joker rule (the honest way to hand in stage 2 only)."""
    dice = roll_dice()
    print(format_dice(dice))
    for _ in range(ROLLS_PER_ROUND - 1):
        keep = ask_keep()
        if len(keep) == NUM_DICE:
            break
        dice = reroll(dice, keep)
        print(format_dice(dice))
    category = ask_category(scorecard, open_categories(scorecard))
    points = score(category, dice)
    scorecard[category] = points
    print(f"Scored {points} points in {category}.")
    return category, points
