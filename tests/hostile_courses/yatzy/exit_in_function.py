# Functions that end the interpreter: sys.exit in two_pairs, os._exit in roll, SystemExit
# from print_results (the reference otherwise).
import os
import sys


def two_pairs(dice):
    sys.exit(0)


def roll(player, faces=None, keep=()):
    os._exit(0)


def print_results(players):
    raise SystemExit("bye")
