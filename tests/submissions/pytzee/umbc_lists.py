"""
File: pytzee.py
Author: A. Student
Date: 10/30/2024
Section: 21
E-mail: astudent@umbc.edu
Description: Pytzee, written the CMSC 201 way: one-dimensional lists, constants, no
dictionaries, no break/continue, -1 marks an unused slot.
"""

import random

COUNT_COMMAND = "count"
SKIP_COMMAND = "skip"
THREE_WORDS = ["three of a kind", "3 of a kind"]
FOUR_WORDS = ["four of a kind", "4 of a kind"]
FULL_HOUSE_WORD = "full house"
SMALL_WORD = "small straight"
LARGE_WORD = "large straight"
PYTZEE_WORD = "pytzee"
CHANCE_WORD = "chance"

SCORE_TYPES = ["1's", "2's", "3's", "4's", "5's", "6's", "Three of a Kind", "Four of a Kind",
               "Full House", "Small Straight", "Large Straight", "Pytzee", "Chance"]
THREE_INDEX = 6
FOUR_INDEX = 7
FULL_INDEX = 8
SMALL_INDEX = 9
LARGE_INDEX = 10
PYTZEE_INDEX = 11
CHANCE_INDEX = 12
UNUSED = -1
NUM_COUNTS = 6
BONUS_LINE = 63
BONUS = 35


def roll_dice():
    dice = []
    for i in range(5):
        dice.append(random.randint(1, 6))
    return dice


def count_dice(dice):
    # how_many[v] is how many dice show v
    how_many = [0, 0, 0, 0, 0, 0, 0]
    for die in dice:
        how_many[die] += 1
    return how_many


def biggest_group(dice):
    how_many = count_dice(dice)
    biggest = 0
    for amount in how_many:
        if amount > biggest:
            biggest = amount
    return biggest


def is_full_house(dice):
    # need a group of three and a group of two
    has_three = False
    has_two = False
    for amount in count_dice(dice):
        if amount == 3:
            has_three = True
        elif amount == 2:
            has_two = True
    return has_three and has_two


def longest_run(dice):
    how_many = count_dice(dice)
    longest = 0
    run = 0
    for value in range(1, 7):
        if how_many[value] > 0:
            run += 1
        else:
            run = 0
        if run > longest:
            longest = run
    return longest


def points_for(index, dice):
    # the points this roll is worth in slot number index
    total = 0
    for die in dice:
        total += die
    if index < NUM_COUNTS:
        return (index + 1) * count_dice(dice)[index + 1]
    if index == THREE_INDEX and biggest_group(dice) >= 3:
        return total
    if index == FOUR_INDEX and biggest_group(dice) >= 4:
        return total
    if index == FULL_INDEX and is_full_house(dice):
        return 25
    if index == SMALL_INDEX and longest_run(dice) >= 4:
        return 30
    if index == LARGE_INDEX and longest_run(dice) == 5:
        return 40
    if index == PYTZEE_INDEX and biggest_group(dice) == 5:
        return 50
    if index == CHANCE_INDEX:
        return total
    return 0


def find_slot(command):
    # returns the slot index, -2 for skip, -1 if the command is not known
    words = command.split()
    if len(words) == 2 and words[0] == COUNT_COMMAND and words[1] in ["1", "2", "3", "4", "5", "6"]:
        return int(words[1]) - 1
    if command == SKIP_COMMAND:
        return -2
    if command in THREE_WORDS:
        return THREE_INDEX
    if command in FOUR_WORDS:
        return FOUR_INDEX
    other_words = [FULL_HOUSE_WORD, SMALL_WORD, LARGE_WORD, PYTZEE_WORD, CHANCE_WORD]
    other_slots = [FULL_INDEX, SMALL_INDEX, LARGE_INDEX, PYTZEE_INDEX, CHANCE_INDEX]
    for i in range(len(other_words)):
        if command == other_words[i]:
            return other_slots[i]
    return -1


def total_score(scores, extra_pytzees):
    upper = 0
    lower = 0
    for i in range(len(scores)):
        if scores[i] != UNUSED:
            if i < NUM_COUNTS:
                upper += scores[i]
            else:
                lower += scores[i]
    total = upper + lower + 100 * extra_pytzees
    if upper >= BONUS_LINE:
        total += BONUS
    return total


def print_card(scores, extra_pytzees):
    print("Scorecard:")
    for i in range(len(scores)):
        value = scores[i]
        if value == UNUSED:
            value = 0
        if i == PYTZEE_INDEX:
            value += 100 * extra_pytzees
        print(SCORE_TYPES[i], value, sep=": ", end="\t")
    print()


def play_game(num_rounds):
    scores = []
    for i in range(len(SCORE_TYPES)):
        scores.append(UNUSED)
    extra_pytzees = 0
    for turn in range(num_rounds):
        print("***** Round", turn + 1, "*****")
        print("Your score is:", total_score(scores, extra_pytzees))
        dice = roll_dice()
        print("You rolled:", dice[0], dice[1], dice[2], dice[3], dice[4])
        done = False
        while not done:
            command = input("How would you like to count this dice roll? ").strip().lower()
            slot = find_slot(command)
            if slot == -2:
                done = True
            elif slot == -1:
                print("I don't know that option.")
            elif slot == PYTZEE_INDEX and scores[slot] == 50 and biggest_group(dice) == 5:
                extra_pytzees += 1
                print("Another pytzee! 100 more points.")
                done = True
            elif scores[slot] != UNUSED:
                print("There was already a score in that slot.")
            else:
                scores[slot] = points_for(slot, dice)
                print("You get", scores[slot], "points.")
                done = True
        print_card(scores, extra_pytzees)
    print("Final Score:", total_score(scores, extra_pytzees))


if __name__ == '__main__':
    rounds = int(input("What is the number of rounds that you want to play? "))
    seed = int(input("Enter the seed or 0 to skip: "))
    if seed != 0:
        random.seed(seed)
    play_game(rounds)
