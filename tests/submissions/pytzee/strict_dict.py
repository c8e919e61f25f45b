"""Pytzee with a dict scorecard.  This one refuses a slot the dice do not fit (and asks
again), returns the final score from play_game, and offers another game at the end."""

import random
from collections import Counter

UPPER = {f"count {face}": face for face in range(1, 7)}
ALIASES = {"3 of a kind": "three of a kind", "4 of a kind": "four of a kind"}
LOWER = ["three of a kind", "four of a kind", "full house", "small straight", "large straight",
         "pytzee", "chance"]


def roll_dice():
    return [random.randint(1, 6) for _ in range(5)]


def value(slot, dice):
    """None when DICE do not fit SLOT, else the points."""
    counts = Counter(dice)
    shape = sorted(counts.values())
    faces = set(dice)
    if slot in UPPER:
        return UPPER[slot] * counts[UPPER[slot]]
    if slot == "three of a kind":
        return sum(dice) if shape[-1] >= 3 else None
    if slot == "four of a kind":
        return sum(dice) if shape[-1] >= 4 else None
    if slot == "full house":
        return 25 if shape == [2, 3] else None
    if slot == "small straight":
        runs = ({1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6})
        return 30 if any(run <= faces for run in runs) else None
    if slot == "large straight":
        return 40 if faces in ({1, 2, 3, 4, 5}, {2, 3, 4, 5, 6}) else None
    if slot == "pytzee":
        return 50 if shape == [5] else None
    return sum(dice)


def score_of(card):
    upper = sum(card.get(slot, 0) for slot in UPPER)
    return sum(card.values()) + (35 if upper >= 63 else 0)


def take_turn(card, dice):
    while True:
        answer = input("Where do you want to put this roll? ").strip().lower()
        answer = ALIASES.get(answer, answer)
        if answer == "skip":
            print("Roll skipped.")
            return
        if answer not in UPPER and answer not in LOWER:
            print(f"'{answer}' is not an option.")
            continue
        points = value(answer, dice)
        if answer == "pytzee" and card.get("pytzee", 0) >= 50 and points:
            card["pytzee"] += 100
            print("Extra pytzee: +100!")
            return
        if answer in card:
            print(f"You already used {answer}.")
            continue
        if points is None:
            print(f"{dice} is not a {answer}; choose again or skip.")
            continue
        card[answer] = points
        print(f"{answer}: {points} points")
        return


def play_game(num_rounds):
    card = {}
    for turn in range(1, num_rounds + 1):
        print(f"--- Turn {turn} of {num_rounds} (score so far {score_of(card)}) ---")
        dice = roll_dice()
        print("Dice:", *dice)
        take_turn(card, dice)
        print(" | ".join(f"{slot}={card.get(slot, 0)}" for slot in [*UPPER, *LOWER]))
    final = score_of(card)
    print(f"Game over! Your final score: {final} points.")
    return final


if __name__ == "__main__":
    again = "y"
    while again == "y":
        rounds = int(input("What is the number of rounds that you want to play? "))
        random.seed(int(input("Enter the seed or 0 to skip: ")) or None)
        play_game(rounds)
        again = input("Play again? (y/n) ").strip().lower()
