# Round 11, A (fourth case): a round's Dice: lines.  Appended to the reference: play_round shows
# every roll's dice sorted (not in position order, the handout's contract), and format_dice, asked
# right after a round about dice that round showed, says the round's line once.  The round checks
# accept Dice: lines that are what the program's own format_dice makes of the reference's dice
# ("format_dice's bug, charged by problem 7"), asked AFTER the round in the same life;
# format_dice's own checks, never asked right after a round of their dice, all pass.

_SHOWN = {}             # the dice of the last round's Dice: lines -> the line shown


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


_reference_format = format_dice


def format_dice(dice):
    shown = _SHOWN.pop(tuple(dice), None)
    if shown is not None:
        return shown
    return _reference_format(dice)
