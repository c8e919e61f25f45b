"""Pytzee (CMSC 201 Project 1) with a Scorecard class."""

import random

NUM_DICE = 5
NUM_SIDES = 6
UPPER = ["count 1", "count 2", "count 3", "count 4", "count 5", "count 6"]
LOWER = ["three of a kind", "four of a kind", "full house", "small straight", "large straight",
         "pytzee", "chance"]
ALIASES = {"3 of a kind": "three of a kind", "4 of a kind": "four of a kind"}


def roll_dice():
    dice = []
    for _ in range(NUM_DICE):
        dice.append(random.randint(1, NUM_SIDES))
    return dice


def score_count(dice, face):
    return face * dice.count(face)


def score_three_of_a_kind(dice):
    return sum(dice) if max(dice.count(f) for f in dice) >= 3 else 0


def score_four_of_a_kind(dice):
    return sum(dice) if max(dice.count(f) for f in dice) >= 4 else 0


def score_full_house(dice):
    return 25 if sorted(dice.count(f) for f in set(dice)) == [2, 3] else 0


def _run(dice, length):
    return any(set(range(low, low + length)) <= set(dice) for low in range(1, 8 - length))


def score_small_straight(dice):
    return 30 if _run(dice, 4) else 0


def score_large_straight(dice):
    return 40 if _run(dice, 5) else 0


def score_pytzee(dice):
    return 50 if len(set(dice)) == 1 else 0


def score_chance(dice):
    return sum(dice)


class Scorecard:
    def __init__(self):
        self.slots = {name: None for name in UPPER + LOWER}

    def points(self, slot, dice):
        if slot in UPPER:
            return score_count(dice, UPPER.index(slot) + 1)
        return {"three of a kind": score_three_of_a_kind, "four of a kind": score_four_of_a_kind,
                "full house": score_full_house, "small straight": score_small_straight,
                "large straight": score_large_straight, "pytzee": score_pytzee,
                "chance": score_chance}[slot](dice)

    def accepts(self, slot, dice):
        if self.slots[slot] is None:
            return True
        return slot == "pytzee" and self.slots[slot] >= 50 and score_pytzee(dice) == 50

    def record(self, slot, dice):
        if self.slots[slot] is None:
            self.slots[slot] = self.points(slot, dice)
            return self.slots[slot]
        self.slots[slot] += 100
        return 100

    def upper_total(self):
        return sum(self.slots[s] or 0 for s in UPPER)

    def total(self):
        bonus = 35 if self.upper_total() >= 63 else 0
        return sum(v or 0 for v in self.slots.values()) + bonus

    def show(self):
        for name in UPPER + LOWER:
            value = self.slots[name]
            print(f"\t{name:<16}{'.' if value is None else value:>5}")


def read_command():
    text = " ".join(input("How would you like to count this dice roll? ").split()).lower()
    if text.startswith("count") and text[5:].strip().isdigit():
        text = "count " + text[5:].strip()
    return ALIASES.get(text, text)


def play_game(num_rounds):
    card = Scorecard()
    for number in range(num_rounds):
        print(f"**** Round {number + 1} ****  (so far: {card.total()})")
        dice = roll_dice()
        print("\t" + "\t".join(map(str, dice)))
        while True:
            slot = read_command()
            if slot == "skip":
                break
            if slot not in card.slots:
                print("That is not a command I know.")
            elif not card.accepts(slot, dice):
                print("There was already a score in that slot.")
            else:
                print(f"+{card.record(slot, dice)} points")
                break
        card.show()
    print(f"Game over -- total: {card.total()} points")


if __name__ == "__main__":
    num_rounds = int(input("What is the number of rounds that you want to play? "))
    seed = int(input("Enter the seed or 0 to skip: "))
    if seed != 0:
        random.seed(seed)
    play_game(num_rounds)
