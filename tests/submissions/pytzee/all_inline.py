# File:    pytzee.py
# Project: CMSC 201 Project 1
# Desc:    one-roll Yahtzee; everything in play_game (my own layout)

import random

NUM_DICE = 5
NUM_SIDES = 6


def roll_dice():
    dice = []
    for _ in range(NUM_DICE):
        dice.append(random.randint(1, NUM_SIDES))
    return dice


def play_game(num_rounds):
    counts_used = [False] * 7          # index 1..6
    counts_score = [0] * 7
    lower_names = ["three of a kind", "four of a kind", "full house", "small straight",
                   "large straight", "pytzee", "chance"]
    lower_used = [False] * 7
    lower_score = [0] * 7
    score = 0
    for turn in range(1, num_rounds + 1):
        print("==== Turn", turn, "of", num_rounds, "====")
        print("Current score:", score)
        dice = roll_dice()
        print("You rolled:", dice)
        tally = [0] * 7
        for d in dice:
            tally[d] += 1
        biggest = max(tally)
        total = sum(dice)
        done = False
        while not done:
            command = input("Your choice: ").strip().lower()
            if command == "skip":
                print("Skipped.")
                done = True
            elif command.startswith("count ") and command[6:] in ["1", "2", "3", "4", "5", "6"]:
                face = int(command[6:])
                if counts_used[face]:
                    print("There was already a score in that slot.")
                else:
                    counts_used[face] = True
                    counts_score[face] = face * tally[face]
                    score += counts_score[face]
                    done = True
            else:
                if command == "3 of a kind":
                    command = "three of a kind"
                if command == "4 of a kind":
                    command = "four of a kind"
                if command not in lower_names:
                    print("I don't know that command.")
                    continue
                i = lower_names.index(command)
                if command == "pytzee" and lower_used[i]:
                    if lower_score[i] >= 50 and biggest == 5:
                        lower_score[i] += 100
                        score += 100
                        print("Another pytzee! +100")
                        done = True
                    else:
                        print("There was already a score in that slot.")
                    continue
                if lower_used[i]:
                    print("There was already a score in that slot.")
                    continue
                points = 0
                if command == "three of a kind" and biggest >= 3:
                    points = total
                elif command == "four of a kind" and biggest >= 4:
                    points = total
                elif command == "full house" and 3 in tally and 2 in tally:
                    points = 25
                elif command == "small straight":
                    for low in (1, 2, 3):
                        if tally[low] and tally[low + 1] and tally[low + 2] and tally[low + 3]:
                            points = 30
                elif command == "large straight":
                    for low in (1, 2):
                        if tally[low] and tally[low + 1] and tally[low + 2] and tally[low + 3] and tally[low + 4]:
                            points = 40
                elif command == "pytzee" and biggest == 5:
                    points = 50
                elif command == "chance":
                    points = total
                lower_used[i] = True
                lower_score[i] = points
                score += points
                print("Counted as", command + ":", points, "points.")
                done = True
        print("Counts:", counts_score[1:], " Lower:", lower_score)
    bonus = 0
    if sum(counts_score) >= 63:
        bonus = 35
        print("You earned the 35 point bonus!")
    score += bonus
    print("Your final score was", score)


if __name__ == "__main__":
    num_rounds = int(input("What is the number of rounds that you want to play? "))
    seed = int(input("Enter the seed or 0 to skip: "))
    if seed != 0:
        random.seed(seed)
    play_game(num_rounds)
