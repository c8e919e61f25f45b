"""A correct Yahtzee in a beginner's style: if/elif chains, sorted lists, index loops,
chatty output (the open boxes before each round, the kept positions, a blank line after
each round).  It must score full marks."""

import random

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


def score_upper(dice, face):
    total = 0
    for i in range(len(dice)):
        if dice[i] == face:
            total = total + face
    return total


def biggest_group(dice):
    best = 0
    for face in range(1, 7):
        if dice.count(face) > best:
            best = dice.count(face)
    return best


def score_of_a_kind(dice, n):
    if biggest_group(dice) >= n:
        return sum(dice)
    else:
        return 0


def score_full_house(dice):
    s = sorted(dice)
    if s[0] == s[1] == s[2] and s[3] == s[4] and s[2] != s[3]:
        return 25
    elif s[0] == s[1] and s[2] == s[3] == s[4] and s[1] != s[2]:
        return 25
    else:
        return 0


def score_small_straight(dice):
    u = sorted(set(dice))
    for start in [1, 2, 3]:
        if start in u and start + 1 in u and start + 2 in u and start + 3 in u:
            return 30
    return 0


def score_large_straight(dice):
    s = sorted(dice)
    if s == [1, 2, 3, 4, 5] or s == [2, 3, 4, 5, 6]:
        return 40
    return 0


def score_yahtzee(dice):
    if biggest_group(dice) == 5:
        return 50
    return 0


def score_chance(dice):
    return sum(dice)


def check_dice(dice):
    if type(dice) is not list:
        raise ValueError("not a list")
    if len(dice) != 5:
        raise ValueError("wrong number of dice")
    for d in dice:
        if type(d) is not int:
            raise ValueError("a die is not an int")
        if d < 1 or d > 6:
            raise ValueError("a die is out of range")


def score(category, dice):
    check_dice(dice)
    if category == "Ones":
        return score_upper(dice, 1)
    elif category == "Twos":
        return score_upper(dice, 2)
    elif category == "Threes":
        return score_upper(dice, 3)
    elif category == "Fours":
        return score_upper(dice, 4)
    elif category == "Fives":
        return score_upper(dice, 5)
    elif category == "Sixes":
        return score_upper(dice, 6)
    elif category == "Three of a Kind":
        return score_of_a_kind(dice, 3)
    elif category == "Four of a Kind":
        return score_of_a_kind(dice, 4)
    elif category == "Full House":
        return score_full_house(dice)
    elif category == "Small Straight":
        return score_small_straight(dice)
    elif category == "Large Straight":
        return score_large_straight(dice)
    elif category == "Yahtzee":
        return score_yahtzee(dice)
    elif category == "Chance":
        return score_chance(dice)
    else:
        raise ValueError("unknown category")


def format_dice(dice):
    text = "Dice:"
    for d in dice:
        text = text + " " + str(d)
    return text


def parse_keep(text):
    t = text.strip().lower()
    if t == "" or t == "all":
        return [1, 2, 3, 4, 5]
    if t == "0" or t == "none":
        return []
    result = []
    for ch in t:
        if ch == " " or ch == ",":
            continue
        if ch not in ["1", "2", "3", "4", "5"]:
            raise ValueError("bad position " + ch)
        if int(ch) in result:
            raise ValueError("repeated position " + ch)
        result.append(int(ch))
    result.sort()
    return result


def reroll(dice, keep):
    how_many = 0
    for pos in range(1, 6):
        if pos not in keep:
            how_many += 1
    new_values = roll_dice(how_many)
    result = []
    k = 0
    for pos in range(1, 6):
        if pos in keep:
            result.append(dice[pos - 1])
        else:
            result.append(new_values[k])
            k += 1
    return result


def ask_keep():
    while True:
        text = input("Which dice do you want to keep? ")
        try:
            positions = parse_keep(text)
            print("You keep positions", positions)
            return positions
        except ValueError:
            print("I did not understand that. Please try again.")


def find_category(text):
    for c in CATEGORIES:
        if normalize_name(c) == normalize_name(text):
            return c
    return None


def ask_category(scorecard, allowed):
    while True:
        text = input("Where do you want to score? ")
        c = find_category(text)
        if c is None:
            print("Not a category.")
        elif scorecard[c] is not None:
            print("You already used", c)
        elif c not in allowed:
            print("Not allowed by the Joker rule.")
        else:
            return c


def play_round(scorecard):
    dice = roll_dice()
    print(format_dice(dice))
    rolls = 1
    while rolls < 3:
        keep = ask_keep()
        if len(keep) == 5:
            break
        dice = reroll(dice, keep)
        rolls = rolls + 1
        print(format_dice(dice))
    joker = is_joker(dice, scorecard)
    if joker:
        scorecard["Yahtzee Bonus"] = scorecard["Yahtzee Bonus"] + yahtzee_bonus(scorecard)
        allowed = joker_categories(dice, scorecard)
    else:
        allowed = open_categories(scorecard)
    c = ask_category(scorecard, allowed)
    if joker:
        points = joker_score(c, dice)
    else:
        points = score(c, dice)
    scorecard[c] = points
    print("Scored " + str(points) + " points in " + c + ".")
    return c, points


def new_scorecard():
    return {"Ones": None, "Twos": None, "Threes": None, "Fours": None, "Fives": None,
            "Sixes": None, "Three of a Kind": None, "Four of a Kind": None, "Full House": None,
            "Small Straight": None, "Large Straight": None, "Yahtzee": None, "Chance": None,
            "Yahtzee Bonus": 0}


def final_score(scorecard):
    total = 0
    for c in CATEGORIES:
        if scorecard[c] is not None:
            total = total + scorecard[c]
    total = total + upper_bonus(scorecard)
    total = total + scorecard["Yahtzee Bonus"]
    return total


def format_scorecard(scorecard):
    text = ""
    for c in CATEGORIES:
        if scorecard[c] is None:
            text = text + c + ": -\n"
        else:
            text = text + c + ": " + str(scorecard[c]) + "\n"
        if c == "Sixes":
            text = text + "Upper Bonus: " + str(upper_bonus(scorecard)) + "\n"
    text = text + "Yahtzee Bonus: " + str(scorecard["Yahtzee Bonus"]) + "\n"
    text = text + "Total: " + str(final_score(scorecard))
    return text


def play_game(num_rounds=NUM_ROUNDS):
    if num_rounds < 1 or num_rounds > 13:
        raise ValueError("bad number of rounds")
    scorecard = new_scorecard()
    for r in range(num_rounds):
        print("Round " + str(r + 1))
        print("Open boxes:", ", ".join(open_categories(scorecard)))
        play_round(scorecard)
        print("")
    print("Game over! Here is your scorecard:")
    print(format_scorecard(scorecard))
    total = final_score(scorecard)
    print("Final score: " + str(total))
    return total


def upper_bonus(scorecard):
    upper = 0
    for c in UPPER_CATEGORIES:
        if scorecard[c] is not None:
            upper = upper + scorecard[c]
    if upper >= 63:
        return 35
    return 0


def is_joker(dice, scorecard):
    if score_yahtzee(dice) == 50 and scorecard["Yahtzee"] is not None:
        return True
    return False


def yahtzee_bonus(scorecard):
    if scorecard["Yahtzee"] == 50:
        return 100
    return 0


def joker_categories(dice, scorecard):
    own = UPPER_CATEGORIES[dice[0] - 1]
    if scorecard[own] is None:
        return [own]
    result = []
    for c in LOWER_CATEGORIES:
        if scorecard[c] is None:
            result.append(c)
    if len(result) > 0:
        return result
    for c in UPPER_CATEGORIES:
        if scorecard[c] is None:
            result.append(c)
    return result


def joker_score(category, dice):
    if category == "Full House":
        return 25
    if category == "Small Straight":
        return 30
    if category == "Large Straight":
        return 40
    return score(category, dice)


if __name__ == "__main__":
    play_game()
