"""A correct Yahtzee written differently from the reference: Counter, lookup tables,
other prompts and messages, extra output and DEBUG: lines.  It must score full marks."""

import random
from collections import Counter

NUM_DICE = 5
NUM_FACES = 6
ROLLS_PER_ROUND = 3
NUM_ROUNDS = 13

UPPER_CATEGORIES = ["Ones", "Twos", "Threes", "Fours", "Fives", "Sixes"]
LOWER_CATEGORIES = [
    "Three of a Kind", "Four of a Kind", "Full House",
    "Small Straight", "Large Straight", "Yahtzee", "Chance",
]
CATEGORIES = UPPER_CATEGORIES + LOWER_CATEGORIES

FULL_HOUSE_POINTS = 25
SMALL_STRAIGHT_POINTS = 30
LARGE_STRAIGHT_POINTS = 40
YAHTZEE_POINTS = 50
UPPER_BONUS_THRESHOLD = 63
UPPER_BONUS_POINTS = 35
YAHTZEE_BONUS_POINTS = 100
YAHTZEE_BONUS_KEY = "Yahtzee Bonus"

SMALL_STRAIGHTS = [{1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}]
LARGE_STRAIGHTS = [{1, 2, 3, 4, 5}, {2, 3, 4, 5, 6}]


def roll_dice(count=NUM_DICE):
    return [random.randint(1, NUM_FACES) for _ in range(count)]


def face_counts(dice):
    counts = {}
    for face in dice:
        counts[face] = counts.get(face, 0) + 1
    return counts


def normalize_name(text):
    return "".join(ch for ch in text.lower() if ch not in " _-\t")


def open_categories(scorecard):
    return [category for category in CATEGORIES if scorecard[category] is None]


# --- stage 1 -----------------------------------------------------------------------------------

def score_upper(dice, face):
    return Counter(dice)[face] * face


def score_of_a_kind(dice, n):
    (_, most), = Counter(dice).most_common(1)
    return sum(dice) if most >= n else 0


def score_full_house(dice):
    shape = sorted(Counter(dice).values())
    return FULL_HOUSE_POINTS if shape == [2, 3] else 0


def score_small_straight(dice):
    present = "".join(str(f) for f in sorted(set(dice)))
    return SMALL_STRAIGHT_POINTS if any(run in present for run in ("1234", "2345", "3456")) else 0


def score_large_straight(dice):
    return LARGE_STRAIGHT_POINTS if sorted(dice) in ([1, 2, 3, 4, 5], [2, 3, 4, 5, 6]) else 0


def score_yahtzee(dice):
    return YAHTZEE_POINTS if dice.count(dice[0]) == 5 else 0


def score_chance(dice):
    total = 0
    for die in dice:
        total += die
    return total


def check_dice(dice):
    if type(dice) is not list or len(dice) != 5:
        raise ValueError("need a list of five dice")
    bad = [d for d in dice if type(d) is not int or d < 1 or d > 6]
    if bad:
        raise ValueError(f"bad die {bad[0]!r}")


RULES = {
    "Three of a Kind": lambda d: score_of_a_kind(d, 3),
    "Four of a Kind": lambda d: score_of_a_kind(d, 4),
    "Full House": score_full_house,
    "Small Straight": score_small_straight,
    "Large Straight": score_large_straight,
    "Yahtzee": score_yahtzee,
    "Chance": score_chance,
}
for _face, _name in enumerate(UPPER_CATEGORIES, 1):
    RULES[_name] = (lambda f: lambda d: score_upper(d, f))(_face)


def score(category, dice):
    check_dice(dice)
    if category not in RULES:
        raise ValueError("no such category: " + str(category))
    return RULES[category](dice)


# --- stage 2 -----------------------------------------------------------------------------------

def format_dice(dice):
    return "Dice: {} {} {} {} {}".format(*dice)


def parse_keep(text):
    cleaned = text.strip().lower()
    if cleaned in {"", "all"}:
        return [1, 2, 3, 4, 5]
    if cleaned in {"0", "none"}:
        return []
    chars = [c for c in cleaned if c not in ", "]
    if not chars or any(c not in "12345" for c in chars):
        raise ValueError("positions are 1 to 5")
    if len(set(chars)) != len(chars):
        raise ValueError("a position was repeated")
    return sorted(int(c) for c in chars)


def reroll(dice, keep):
    fresh = iter(roll_dice(NUM_DICE - len(keep)))
    return [die if pos in keep else next(fresh) for pos, die in enumerate(dice, 1)]


def ask_keep():
    while True:
        answer = input("Which positions do you keep? ")
        try:
            return parse_keep(answer)
        except ValueError as problem:
            print("Sorry:", problem)


def find_category(text):
    table = {normalize_name(c): c for c in CATEGORIES}
    return table.get(normalize_name(text))


def ask_category(scorecard, allowed):
    while True:
        category = find_category(input("Box? "))
        if category in allowed and scorecard[category] is None:
            return category
        print("That box can't be used now. Pick one of:", ", ".join(allowed))


def play_round(scorecard):
    dice = roll_dice()
    print(format_dice(dice))
    print("DEBUG: first roll", dice)
    rerolls_left = ROLLS_PER_ROUND - 1
    while rerolls_left:
        keep = ask_keep()
        if keep == [1, 2, 3, 4, 5]:
            break
        dice = reroll(dice, keep)
        print(format_dice(dice))
        rerolls_left -= 1
    if is_joker(dice, scorecard):
        bonus = yahtzee_bonus(scorecard)
        scorecard[YAHTZEE_BONUS_KEY] += bonus
        allowed = joker_categories(dice, scorecard)
        print("JOKER! bonus", bonus, "- allowed:", allowed)
        category = ask_category(scorecard, allowed)
        points = joker_score(category, dice)
    else:
        category = ask_category(scorecard, open_categories(scorecard))
        points = score(category, dice)
    scorecard[category] = points
    print(f"Scored {points} points in {category}.")
    return (category, points)


# --- stage 3 -----------------------------------------------------------------------------------

def new_scorecard():
    card = dict.fromkeys(CATEGORIES)
    card[YAHTZEE_BONUS_KEY] = 0
    return card


def final_score(scorecard):
    filled = [scorecard[c] for c in CATEGORIES if scorecard[c] is not None]
    return sum(filled) + upper_bonus(scorecard) + scorecard[YAHTZEE_BONUS_KEY]


def format_scorecard(scorecard):
    def show(c):
        return "-" if scorecard[c] is None else str(scorecard[c])
    rows = [f"{c}: {show(c)}" for c in UPPER_CATEGORIES]
    rows.append(f"Upper Bonus: {upper_bonus(scorecard)}")
    rows += [f"{c}: {show(c)}" for c in LOWER_CATEGORIES]
    rows.append(f"Yahtzee Bonus: {scorecard[YAHTZEE_BONUS_KEY]}")
    rows.append(f"Total: {final_score(scorecard)}")
    return "\n".join(rows)


def play_game(num_rounds=NUM_ROUNDS):
    if num_rounds not in range(1, 14):
        raise ValueError("between 1 and 13 rounds")
    card = new_scorecard()
    print("Welcome to Yahtzee!")
    for n in range(num_rounds):
        print("=" * 20)
        print("Round", n + 1)
        play_round(card)
        print("DEBUG: card is now", card)
    print(format_scorecard(card))
    total = final_score(card)
    print("Final score:", total)
    return total


# --- stage 4 -----------------------------------------------------------------------------------

def upper_bonus(scorecard):
    upper = sum(scorecard[c] or 0 for c in UPPER_CATEGORIES)
    return UPPER_BONUS_POINTS if upper >= UPPER_BONUS_THRESHOLD else 0


def is_joker(dice, scorecard):
    return len(set(dice)) == 1 and scorecard["Yahtzee"] is not None


def yahtzee_bonus(scorecard):
    return YAHTZEE_BONUS_POINTS if scorecard["Yahtzee"] == 50 else 0


def joker_categories(dice, scorecard):
    own = UPPER_CATEGORIES[dice[0] - 1]
    if scorecard[own] is None:
        return [own]
    lower = [c for c in LOWER_CATEGORIES if scorecard[c] is None]
    return lower if lower else [c for c in UPPER_CATEGORIES if scorecard[c] is None]


def joker_score(category, dice):
    fixed = {"Full House": 25, "Small Straight": 30, "Large Straight": 40}
    return fixed.get(category, score(category, dice))


if __name__ == "__main__":
    import sys
    if sys.argv[1:]:
        random.seed(int(sys.argv[1]))
    play_game()
