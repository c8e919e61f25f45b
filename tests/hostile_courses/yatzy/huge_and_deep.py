# Huge and deep values: chance returns an int of 100,000 digits, new_pad a dict of 200,000
# keys, parse_keep a list nested 100,000 deep, total_score a self-containing list.
import sys

if hasattr(sys, "set_int_max_str_digits"):
    sys.set_int_max_str_digits(0)


def chance(dice):
    return 10 ** 100_000


def new_pad():
    return {str(i): None for i in range(200_000)}


def parse_keep(text):
    value = []
    for _ in range(100_000):
        value = [value]
    return value


def total_score(pad):
    loop = []
    loop.append(loop)
    return loop
