# Round 11, A's fourth control: the same round that shows its dice sorted, the reference's
# format_dice (no memory).

_SHOWN = {}


def _show(dice):
    line = "Dice: " + " ".join(str(die) for die in sorted(dice))
    _SHOWN[tuple(dice)] = line
    return line


def play_round(scorecard):
    _SHOWN.clear()
    dice = roll_dice()
    print(_show(dice))
    for _ in range(ROLLS_PER_ROUND - 1):
        keep = ask_keep()
        if len(keep) == NUM_DICE:
            break
        dice = reroll(dice, keep)
        print(_show(dice))
    joker = is_joker(dice, scorecard)
    if joker:
        bonus = yahtzee_bonus(scorecard)
        if bonus:
            scorecard[YAHTZEE_BONUS_KEY] += bonus
            print(f"Yahtzee bonus! +{bonus} points.")
        allowed = joker_categories(dice, scorecard)
        print(f"Joker rule: score this Yahtzee in {', '.join(allowed)}.")
    else:
        allowed = open_categories(scorecard)
    category = ask_category(scorecard, allowed)
    points = joker_score(category, dice) if joker else score(category, dice)
    scorecard[category] = points
    print(f"Scored {points} points in {category}.")
    return category, points


