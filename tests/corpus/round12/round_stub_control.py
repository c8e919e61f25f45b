def play_round(scorecard):
    dice = roll_dice()
    return "Chance", sum(dice)
