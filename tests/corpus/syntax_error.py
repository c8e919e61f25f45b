# A broken file: the reference with a syntax error half-way (a missing colon).
import random


def roll_dice(count=5)
    return [random.randint(1, 6) for _ in range(count)]


def score_upper(dice, face):
    return sum(die for die in dice if die == face)
