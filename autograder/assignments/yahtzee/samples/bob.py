"""CS 101, Project 2: Yahtzee.

Author: Bob Okafor
"""


import random
from collections import Counter

# ---------------------------------------------------------------------------
# The rules, written once.  Everything below reads these names.
# ---------------------------------------------------------------------------

NUM_DICE = 5
NUM_FACES = 6
ROLLS_PER_ROUND = 3          # the first roll plus up to two re-rolls
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


# ---------------------------------------------------------------------------
# Given code: do not edit.  Every die in the game comes from roll_dice.
# ---------------------------------------------------------------------------

def roll_dice(count=NUM_DICE):
    """Roll COUNT six-sided dice and return their values as a list.

    The RNG contract: this is the only function that calls random, and it
    calls random.randint(1, 6) exactly once per die, left to right.  Keeping
    to it makes a seeded game reproducible, so the grader can replay yours.
    """
    return [random.randint(1, NUM_FACES) for _ in range(count)]


def face_counts(dice):
    """Return a dict mapping each face that appears in DICE to how often.

    >>> face_counts([2, 3, 2, 6, 2])
    {2: 3, 3: 1, 6: 1}
    """
    counts = {}
    for face in dice:
        counts[face] = counts.get(face, 0) + 1
    return counts


def normalize_name(text):
    """Lower-case TEXT and drop spaces, underscores and hyphens.

    The category prompt forgives case and spacing, so "full house",
    "FullHouse" and " Full  House " all name the same category.

    >>> normalize_name(" Full  House ")
    'fullhouse'
    """
    return "".join(ch for ch in text.lower() if ch not in " _-\t")


# ===========================================================================
# Stage 1: scoring.  Pure functions on a list of five dice.
# ===========================================================================

def score_upper(dice, face):
    total = 0
    for d in dice:
        if d == face:
            total += face
    return total


def score_of_a_kind(dice, n):
    most = Counter(dice).most_common(1)[0][1]
    return sum(dice) if most >= n else 0


def score_full_house(dice):
    counts = sorted(Counter(dice).values())
    return FULL_HOUSE_POINTS if counts == [2, 3] else 0


def score_small_straight(dice):
    faces = set(dice)
    for low in (1, 2, 3):
        if all(f in faces for f in range(low, low + 4)):
            return SMALL_STRAIGHT_POINTS
    return 0


def score_large_straight(dice):
    s = sorted(dice)
    if s == [1, 2, 3, 4, 5] or s == [2, 3, 4, 5, 6]:
        return LARGE_STRAIGHT_POINTS
    return 0


def score_yahtzee(dice):
    return YAHTZEE_POINTS if dice.count(dice[0]) == 5 else 0


def score_chance(dice):
    return sum(dice)


def check_dice(dice):
    """Raise ValueError unless DICE is a list of five ints, each from 1 to 6.

    >>> check_dice([1, 2, 3, 4, 5])
    >>> check_dice([1, 2, 3])
    Traceback (most recent call last):
    ...
    ValueError: dice must be a list of 5 dice, got 3
    >>> check_dice([1, 2, 3, 4, 7])
    Traceback (most recent call last):
    ...
    ValueError: each die must be an int from 1 to 6, got 7
    """
    if not isinstance(dice, list):
        raise ValueError(f"dice must be a list of {NUM_DICE} dice, got {type(dice).__name__}")
    if len(dice) != NUM_DICE:
        raise ValueError(f"dice must be a list of {NUM_DICE} dice, got {len(dice)}")
    for die in dice:
        if type(die) is not int or not 1 <= die <= NUM_FACES:
            raise ValueError(f"each die must be an int from 1 to {NUM_FACES}, got {die!r}")


def score(category, dice):
    """Return the points DICE would score in CATEGORY (no bonuses, no Joker).

    Raises ValueError for an unknown category or invalid dice.

    >>> score("Full House", [2, 2, 3, 3, 3])
    25
    >>> score("Sixes", [6, 1, 6, 2, 6])
    18
    >>> score("Full Houses", [2, 2, 3, 3, 3])
    Traceback (most recent call last):
    ...
    ValueError: unknown category 'Full Houses'
    """
    check_dice(dice)
    if category in UPPER_CATEGORIES:
        return score_upper(dice, UPPER_CATEGORIES.index(category) + 1)
    if category == "Three of a Kind":
        return score_of_a_kind(dice, 3)
    if category == "Four of a Kind":
        return score_of_a_kind(dice, 4)
    if category == "Full House":
        return score_full_house(dice)
    if category == "Small Straight":
        return score_small_straight(dice)
    if category == "Large Straight":
        return score_large_straight(dice)
    if category == "Yahtzee":
        return score_yahtzee(dice)
    if category == "Chance":
        return score_chance(dice)
    raise ValueError(f"unknown category {category!r}")


# ===========================================================================
# Stage 2: one round.  Roll, keep, re-roll up to twice, choose a category.
# ===========================================================================

def format_dice(dice):
    """Return the line that shows DICE to the player: "Dice: " and the values.

    The grader reads this line after every roll, so keep the word "Dice:"
    followed by the five values in position order.

    >>> format_dice([3, 1, 4, 1, 5])
    'Dice: 3 1 4 1 5'
    """
    return "Dice: " + " ".join(str(die) for die in dice)


def parse_keep(text):
    """Return the sorted positions (1..5) the player typed in TEXT to keep.

    An empty line or "all" keeps every die (and ends the rolling);
    "0" or "none" keeps nothing (re-roll all five).  Positions may be
    separated by spaces or commas, or typed together ("135").
    Raises ValueError for anything else, e.g. a position outside 1..5
    or the same position twice.

    >>> parse_keep("1 3 5")
    [1, 3, 5]
    >>> parse_keep("52")
    [2, 5]
    >>> parse_keep("")
    [1, 2, 3, 4, 5]
    >>> parse_keep("none")
    []
    >>> parse_keep("1 6")
    Traceback (most recent call last):
    ...
    ValueError: '6' is not a position from 1 to 5
    """
    text = text.strip().lower()
    if text in ("", "all"):
        return list(range(1, NUM_DICE + 1))
    if text in ("0", "none"):
        return []
    positions = []
    for char in text.replace(",", " ").replace(" ", ""):
        if char not in "12345":
            raise ValueError(f"{char!r} is not a position from 1 to {NUM_DICE}")
        position = int(char)
        if position in positions:
            raise ValueError(f"position {position} was typed twice")
        positions.append(position)
    return sorted(positions)


def reroll(dice, keep):
    """Return new dice: positions in KEEP stay, the others are rolled again.

    keep -- sorted positions (1..5) to keep, as returned by parse_keep

    The RNG contract: call roll_dice once for the unkept dice together,
    and fill them in position order (the first new value goes to the
    leftmost re-rolled position).  DICE itself is not changed.
    """
    rerolled = [pos for pos in range(1, NUM_DICE + 1) if pos not in keep]
    new_values = roll_dice(len(rerolled))
    new_dice = list(dice)
    for pos, value in zip(rerolled, new_values):
        new_dice[pos - 1] = value
    return new_dice


def ask_keep():
    """Ask which dice to keep until the answer is valid; return the positions."""
    while True:
        text = input("Which dice do you want to keep? ")
        try:
            return parse_keep(text)
        except ValueError as err:
            print(f"Invalid choice: {err}. Try again.")


def find_category(text):
    """Return the category TEXT names (case and spacing forgiven), or None.

    >>> find_category("full house")
    'Full House'
    >>> find_category("THREEOFAKIND")
    'Three of a Kind'
    >>> find_category("full") is None
    True
    """
    wanted = normalize_name(text)
    for category in CATEGORIES:
        if normalize_name(category) == wanted:
            return category
    return None


def ask_category(scorecard, allowed):
    """Ask for a category until the player names one in ALLOWED; return it.

    allowed -- the open categories this roll may go in (the Joker rule of
               stage 4 can narrow it; otherwise every open category)
    Unknown, empty and already-filled names get a message and a re-prompt.
    """
    while True:
        text = input("Category: ")
        category = find_category(text)
        if category is None:
            print(f"Unknown category {text.strip()!r}. Open: {', '.join(allowed)}.")
        elif scorecard[category] is not None:
            print(f"{category} is already filled ({scorecard[category]}). Choose an open category.")
        elif category not in allowed:
            print(f"The Joker rule does not allow {category} here. Choose from: {', '.join(allowed)}.")
        else:
            return category


def open_categories(scorecard):
    """Return the categories still open on SCORECARD, in scorecard order."""
    return [category for category in CATEGORIES if scorecard[category] is None]


def play_round(scorecard):
    """Play one round on SCORECARD; return (category, points) as recorded.

    Rolls five dice, lets the player keep and re-roll up to twice, asks for
    an open category, writes its points into SCORECARD and prints
    "Scored N points in CATEGORY.".
    """
    dice = roll_dice()
    print(format_dice(dice))
    for _ in range(ROLLS_PER_ROUND - 1):
        keep = ask_keep()
        if len(keep) == NUM_DICE:
            break
        dice = reroll(dice, keep)
        print(format_dice(dice))
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


# ===========================================================================
# Stage 3: the full game.
# ===========================================================================

def new_scorecard():
    """Return a scorecard with every category open and no Yahtzee bonus yet.

    >>> card = new_scorecard()
    >>> card["Chance"] is None, card[YAHTZEE_BONUS_KEY], len(card)
    (True, 0, 14)
    """
    scorecard = {category: None for category in CATEGORIES}
    scorecard[YAHTZEE_BONUS_KEY] = 0
    return scorecard


def final_score(scorecard):
    """Return the total of SCORECARD: every filled box plus the bonuses.

    Open boxes count 0.  (Stage 4 adds the upper bonus and the Yahtzee bonus.)

    >>> card = new_scorecard()
    >>> card["Chance"], card["Sixes"] = 20, 18
    >>> final_score(card)
    38
    """
    total = sum(scorecard[category] or 0 for category in CATEGORIES)
    total += upper_bonus(scorecard) + scorecard[YAHTZEE_BONUS_KEY]
    return total


def format_scorecard(scorecard):
    """Return the scorecard as text: one "Category: points" line per box.

    Open boxes show "-".  The bonus lines and the total close the card.
    """
    lines = []
    for category in CATEGORIES:
        points = scorecard[category]
        lines.append(f"{category}: {'-' if points is None else points}")
    lines.insert(len(UPPER_CATEGORIES), f"Upper Bonus: {upper_bonus(scorecard)}")
    lines.append(f"{YAHTZEE_BONUS_KEY}: {scorecard[YAHTZEE_BONUS_KEY]}")
    lines.append(f"Total: {final_score(scorecard)}")
    return "\n".join(lines)


def play_game(num_rounds=NUM_ROUNDS):
    """Play NUM_ROUNDS rounds (13 in a full game) and return the final score.

    Prints "Round N" before each round, the final scorecard at the end,
    then "Final score: TOTAL".
    """
    if not 1 <= num_rounds <= NUM_ROUNDS:
        raise ValueError(f"num_rounds must be from 1 to {NUM_ROUNDS}, got {num_rounds}")
    scorecard = new_scorecard()
    for round_number in range(1, num_rounds + 1):
        print(f"\nRound {round_number}")
        play_round(scorecard)
    print("\nFinal scorecard")
    print(format_scorecard(scorecard))
    total = final_score(scorecard)
    print(f"Final score: {total}")
    return total


# ===========================================================================
# Stage 4: bonuses and the Joker rule.
# ===========================================================================

def upper_bonus(scorecard):
    """Return 35 when the six upper boxes total 63 or more, else 0.

    >>> card = new_scorecard()
    >>> card.update(Ones=3, Twos=6, Threes=9, Fours=12, Fives=15, Sixes=18)
    >>> upper_bonus(card)                     # exactly 63: the bonus is earned
    35
    >>> card["Sixes"] = 17                    # (not a real Sixes score; 62 in all)
    >>> upper_bonus(card)
    0
    """
    upper_total = sum(scorecard[category] or 0 for category in UPPER_CATEGORIES)
    if upper_total >= UPPER_BONUS_THRESHOLD:
        return UPPER_BONUS_POINTS
    return 0


def is_joker(dice, scorecard):
    """Return True when DICE is a Yahtzee and the Yahtzee box is already filled.

    Such a roll earns the Yahtzee bonus (if the box holds 50) and is placed
    by the Joker rule.

    >>> card = new_scorecard()
    >>> is_joker([3, 3, 3, 3, 3], card)       # box open: an ordinary Yahtzee
    False
    >>> card["Yahtzee"] = 0
    >>> is_joker([3, 3, 3, 3, 3], card)       # box filled, even with 0
    True
    """
    return score_yahtzee(dice) == YAHTZEE_POINTS and scorecard["Yahtzee"] is not None


def yahtzee_bonus(scorecard):
    """Return the bonus a further Yahtzee earns: 100 if the box holds 50, else 0.

    >>> card = new_scorecard()
    >>> card["Yahtzee"] = 50
    >>> yahtzee_bonus(card)
    100
    >>> card["Yahtzee"] = 0                   # scratched Yahtzee box: no bonus
    >>> yahtzee_bonus(card)
    0
    """
    if scorecard["Yahtzee"] == YAHTZEE_POINTS:
        return YAHTZEE_BONUS_POINTS
    return 0


def joker_categories(dice, scorecard):
    """Return where a Joker Yahtzee (see is_joker) may go, by the forced rule.

    1. the matching upper box, if it is open (and then nowhere else);
    2. otherwise any open lower box;
    3. otherwise any open upper box (scored 0).

    >>> card = new_scorecard()
    >>> card["Yahtzee"] = 50
    >>> joker_categories([4, 4, 4, 4, 4], card)
    ['Fours']
    >>> card["Fours"] = 12
    >>> joker_categories([4, 4, 4, 4, 4], card)[:2]
    ['Three of a Kind', 'Four of a Kind']
    """
    matching = UPPER_CATEGORIES[dice[0] - 1]
    if scorecard[matching] is None:
        return [matching]
    open_lower = [c for c in LOWER_CATEGORIES if scorecard[c] is None]
    if open_lower:
        return open_lower
    return [c for c in UPPER_CATEGORIES if scorecard[c] is None]


def joker_score(category, dice):
    """Return the points a Joker Yahtzee scores in CATEGORY: lower boxes at full value.

    >>> joker_score("Large Straight", [2, 2, 2, 2, 2])
    40
    >>> joker_score("Chance", [2, 2, 2, 2, 2])
    10
    >>> joker_score("Sixes", [2, 2, 2, 2, 2])
    0
    """
    full_value = {
        "Full House": FULL_HOUSE_POINTS,
        "Small Straight": SMALL_STRAIGHT_POINTS,
        "Large Straight": LARGE_STRAIGHT_POINTS,
    }
    if category in full_value:
        return full_value[category]
    return score(category, dice)


if __name__ == "__main__":
    import sys

    if len(sys.argv) > 1:
        random.seed(int(sys.argv[1]))   # a seeded game replays exactly
    try:
        play_game()
    except (EOFError, KeyboardInterrupt):
        print("\nGame stopped.")
