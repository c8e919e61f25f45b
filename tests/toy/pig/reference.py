"""Pig, solitaire: roll a die as often as you dare, but a 1 loses the turn's points.

Reach the goal in as few turns as you can.  Run it with `python pig.py`.
"""

import random

GOAL = 20


def roll_die():
    """One roll of a six-sided die (the only use of random)."""
    return random.randint(1, 6)


def turn_score(rolls):
    """The points a turn's ROLLS earn: their sum, or 0 when one of them is a 1.

    >>> turn_score([3, 5, 2])
    10
    >>> turn_score([6, 1])
    0
    """
    # BEGIN PROBLEM 1
    if 1 in rolls:
        return 0
    return sum(rolls)
    # END PROBLEM 1


def parse_choice(text):
    """"roll" or "hold" for what the player typed (r, roll, h, hold, in any case, spaces
    around ignored); None for anything else.

    >>> parse_choice(" Hold ")
    'hold'
    """
    # BEGIN PROBLEM 2
    word = text.strip().lower()
    if word in ("r", "roll"):
        return "roll"
    if word in ("h", "hold"):
        return "hold"
    return None
    # END PROBLEM 2


def play_game(goal=GOAL):
    """Play turns until the score reaches GOAL; return the number of turns taken."""
    # BEGIN PROBLEM 3
    score, turns = 0, 0
    while score < goal:
        turns += 1
        rolls = []
        while True:
            rolls.append(roll_die())
            print(f"Turn {turns}: rolled {rolls[-1]}")
            if rolls[-1] == 1:
                print("Pig! No points this turn.")
                break
            choice = parse_choice(input(f"Turn total {turn_score(rolls)}. Roll or hold? "))
            while choice is None:
                choice = parse_choice(input("Please type r or h: "))
            if choice == "hold":
                break
        score += turn_score(rolls)
        print(f"Score: {score}")
    print(f"Final: {score} points in {turns} turns")
    return turns
    # END PROBLEM 3


if __name__ == "__main__":
    play_game()
