# File:    pytzee.py
# Author:  Jordan P.
# Section: 14
# Description: one-roll yahtzee. I did not use the helper functions from the
#   starter, I wrote my own game loop (the handout says that is allowed).

import random

NUM_DICE = 5
SIDES = 6


def roll_dice():
    dice = []
    for _ in range(NUM_DICE):
        dice.append(random.randint(1, SIDES))
    return dice


def counts_of(dice):
    counts = [0] * 7
    for d in dice:
        counts[d] += 1
    return counts


def points_for(slot, dice):
    counts = counts_of(dice)
    if slot.startswith("count "):
        face = int(slot[-1])
        return face * counts[face]
    if slot == "three of a kind":
        return sum(dice) if max(counts) >= 3 else 0
    if slot == "four of a kind":
        return sum(dice) if max(counts) >= 4 else 0
    if slot == "full house":
        return 25 if sorted(c for c in counts if c) == [2, 3] else 0
    if slot == "small straight":
        faces = set(dice)
        for low in (1, 2, 3):
            if {low, low + 1, low + 2, low + 3} <= faces:
                return 30
        return 0
    if slot == "large straight":
        return 40 if sorted(dice) in ([1, 2, 3, 4, 5], [2, 3, 4, 5, 6]) else 0
    if slot == "pytzee":
        return 50 if max(counts) == 5 else 0
    if slot == "chance":
        return sum(dice)
    return 0


SLOTS = ["count 1", "count 2", "count 3", "count 4", "count 5", "count 6",
         "three of a kind", "four of a kind", "full house", "small straight",
         "large straight", "pytzee", "chance"]


def play_game(num_rounds):
    card = {}
    for slot in SLOTS:
        card[slot] = None
    for turn in range(1, num_rounds + 1):
        score_so_far = sum(v for v in card.values() if v is not None)
        print("**** Beginning Round", turn, "****")
        print("\tYour score is:", score_so_far)
        dice = roll_dice()
        print("\t" + "\t".join(str(d) for d in dice))
        done = False
        while not done:
            answer = input("How would you like to count this dice roll? ").strip().lower()
            answer = answer.replace("3 of a kind", "three of a kind").replace("4 of a kind", "four of a kind")
            if answer == "skip":
                print("Skipping this roll.")
                done = True
            elif answer not in SLOTS:
                print("That is not a valid option.")
            elif card[answer] is None:
                card[answer] = points_for(answer, dice)
                print("You got", card[answer], "points.")
                done = True
            elif answer == "pytzee" and card["pytzee"] is not None and points_for("pytzee", dice) == 50:
                card["pytzee"] += 100
                print("Another pytzee! +100")
                done = True
            else:
                print("There was already a score in that slot.")
    upper = sum(card[s] for s in SLOTS[:6] if card[s] is not None)
    total = sum(v for v in card.values() if v is not None)
    if upper >= 63:
        total += 35
    print("Your final score was", total)
    return total


if __name__ == "__main__":
    num_rounds = int(input("What is the number of rounds that you want to play? "))
    seed = int(input("Enter the seed or 0 to skip: "))
    if seed != 0:
        random.seed(seed)
    play_game(num_rounds)
