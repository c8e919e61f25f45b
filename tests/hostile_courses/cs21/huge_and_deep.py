# Huge and deep return values: an int of 100,000 digits, a 20 MB string, a list nested
# 100,000 deep, and a self-containing list (the reference otherwise).
import sys

if hasattr(sys, "set_int_max_str_digits"):
    sys.set_int_max_str_digits(0)


def sumDice(dielist):
    return 10 ** 100_000


def yahtzee(dielist):
    return "5" * 20_000_000


def roll():
    value = []
    for _ in range(100_000):
        value = [value]
    return value


def slotScore(dielist, slot):
    loop = []
    loop.append(loop)
    return loop
