"""A correct Yahtzee built around small classes (a dice cup, a round), with padded scorecard
columns, other wording and decorations.  It must score full marks."""

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


class Hand:
    """Five dice and the questions about their shape."""

    def __init__(self, dice):
        self.dice = list(dice)
        self.tally = [0] * 7
        for die in self.dice:
            self.tally[die] += 1

    def most(self):
        return max(self.tally)

    def has_run(self, length):
        run = best = 0
        for face in range(1, 7):
            run = run + 1 if self.tally[face] else 0
            best = max(best, run)
        return best >= length

    def total(self):
        return sum(self.dice)


def score_upper(dice, face):
    return Hand(dice).tally[face] * face


def score_of_a_kind(dice, n):
    hand = Hand(dice)
    return hand.total() if hand.most() >= n else 0


def score_full_house(dice):
    tally = sorted(t for t in Hand(dice).tally if t)
    return FULL_HOUSE_POINTS if tally == [2, 3] else 0


def score_small_straight(dice):
    return SMALL_STRAIGHT_POINTS if Hand(dice).has_run(4) else 0


def score_large_straight(dice):
    return LARGE_STRAIGHT_POINTS if Hand(dice).has_run(5) else 0


def score_yahtzee(dice):
    return YAHTZEE_POINTS if Hand(dice).most() == 5 else 0


def score_chance(dice):
    return Hand(dice).total()


def check_dice(dice):
    if not isinstance(dice, list):
        raise ValueError("dice must be a list")
    if len(dice) != NUM_DICE:
        raise ValueError(f"expected {NUM_DICE} dice, not {len(dice)}")
    for die in dice:
        if isinstance(die, bool) or not isinstance(die, int) or die not in range(1, 7):
            raise ValueError(f"not a die: {die!r}")


def score(category, dice):
    check_dice(dice)
    if category in UPPER_CATEGORIES:
        return score_upper(dice, UPPER_CATEGORIES.index(category) + 1)
    scorers = {
        "Three of a Kind": lambda: score_of_a_kind(dice, 3),
        "Four of a Kind": lambda: score_of_a_kind(dice, 4),
        "Full House": lambda: score_full_house(dice),
        "Small Straight": lambda: score_small_straight(dice),
        "Large Straight": lambda: score_large_straight(dice),
        "Yahtzee": lambda: score_yahtzee(dice),
        "Chance": lambda: score_chance(dice),
    }
    try:
        return scorers[category]()
    except KeyError:
        raise ValueError(f"{category!r} is not a category") from None


def format_dice(dice):
    return "Dice: " + " ".join(map(str, dice))


def parse_keep(text):
    words = text.lower().replace(",", " ").split()
    if not words or words == ["all"]:
        return [1, 2, 3, 4, 5]
    if words in (["0"], ["none"]):
        return []
    positions = set()
    for char in "".join(words):
        if not char.isdigit() or not 1 <= int(char) <= 5:
            raise ValueError(f"{char} is not a position")
        if int(char) in positions:
            raise ValueError(f"{char} twice")
        positions.add(int(char))
    return sorted(positions)


def reroll(dice, keep):
    free = [i for i in range(NUM_DICE) if i + 1 not in keep]
    result = dice[:]
    for index, value in zip(free, roll_dice(len(free))):
        result[index] = value
    return result


def ask_keep():
    answer = input("keep> ")
    while True:
        try:
            return parse_keep(answer)
        except ValueError as err:
            print(f"  ({err}) -- type positions like 1 3 5, Enter for all, 0 for none")
            answer = input("keep> ")


def find_category(text):
    wanted = normalize_name(text)
    matches = [c for c in CATEGORIES if normalize_name(c) == wanted]
    return matches[0] if matches else None


def ask_category(scorecard, allowed):
    category = None
    while category is None:
        text = input("category> ")
        category = find_category(text)
        if category is None:
            print("  no box is called that")
        elif scorecard[category] is not None:
            print("  that box is full")
            category = None
        elif category not in allowed:
            print("  the Joker rule says:", " / ".join(allowed))
            category = None
    return category


class Round:
    def __init__(self, scorecard):
        self.card = scorecard
        self.dice = []

    def show(self):
        print(format_dice(self.dice))

    def roll_phase(self):
        self.dice = roll_dice()
        self.show()
        for _ in range(ROLLS_PER_ROUND - 1):
            keep = ask_keep()
            if len(keep) == NUM_DICE:
                return
            self.dice = reroll(self.dice, keep)
            self.show()

    def choose_phase(self):
        if is_joker(self.dice, self.card):
            self.card[YAHTZEE_BONUS_KEY] += yahtzee_bonus(self.card)
            print("*** Joker! ***")
            category = ask_category(self.card, joker_categories(self.dice, self.card))
            return category, joker_score(category, self.dice)
        category = ask_category(self.card, open_categories(self.card))
        return category, score(category, self.dice)

    def play(self):
        self.roll_phase()
        category, points = self.choose_phase()
        self.card[category] = points
        print(f"Scored {points} points in {category}.")
        return category, points


def play_round(scorecard):
    return Round(scorecard).play()


def new_scorecard():
    card = {}
    for category in CATEGORIES:
        card[category] = None
    card["Yahtzee Bonus"] = 0
    return card


def final_score(scorecard):
    total = 0
    for category in CATEGORIES:
        if scorecard[category]:
            total += scorecard[category]
    return total + upper_bonus(scorecard) + scorecard["Yahtzee Bonus"]


def format_scorecard(scorecard):
    def line(name, value):
        return f"{name + ':':<17}{value:>4}"
    out = []
    for category in CATEGORIES:
        value = scorecard[category]
        out.append(line(category, "-" if value is None else value))
        if category == "Sixes":
            out.append(line("Upper Bonus", upper_bonus(scorecard)))
    out.append(line("Yahtzee Bonus", scorecard["Yahtzee Bonus"]))
    out.append(line("Total", final_score(scorecard)))
    return "\n".join(out)


def play_game(num_rounds=NUM_ROUNDS):
    if not isinstance(num_rounds, int) or not 1 <= num_rounds <= NUM_ROUNDS:
        raise ValueError("num_rounds must be 1..13")
    card = new_scorecard()
    number = 0
    while number < num_rounds:
        number += 1
        print()
        print(f"Round {number}")
        play_round(card)
        print(f"(running total: {final_score(card)})")
    print()
    print(format_scorecard(card))
    result = final_score(card)
    print(f"Final score: {result}")
    return result


def upper_bonus(scorecard):
    return UPPER_BONUS_POINTS if sum(scorecard[c] or 0 for c in UPPER_CATEGORIES) >= 63 else 0


def is_joker(dice, scorecard):
    return score_yahtzee(dice) > 0 and scorecard["Yahtzee"] is not None


def yahtzee_bonus(scorecard):
    return YAHTZEE_BONUS_POINTS if scorecard["Yahtzee"] == YAHTZEE_POINTS else 0


def joker_categories(dice, scorecard):
    upper = UPPER_CATEGORIES[dice[0] - 1]
    if scorecard[upper] is None:
        return [upper]
    for section in (LOWER_CATEGORIES, UPPER_CATEGORIES):
        choices = [c for c in section if scorecard[c] is None]
        if choices:
            return choices
    return []


def joker_score(category, dice):
    if category == "Full House":
        return FULL_HOUSE_POINTS
    if category == "Small Straight":
        return SMALL_STRAIGHT_POINTS
    if category == "Large Straight":
        return LARGE_STRAIGHT_POINTS
    return score(category, dice)


if __name__ == "__main__":
    play_game()
