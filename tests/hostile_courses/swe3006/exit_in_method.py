# Methods that end the interpreter: sys.exit in calculate_score, os._exit in is_straight,
# raise SystemExit from print_score_table (the reference otherwise).
import os
import sys

_Base = YahtzeeGame


class YahtzeeGame(_Base):
    def calculate_score(self):
        sys.exit(0)

    def is_straight(self, dice_set, is_small):
        os._exit(0)

    def print_score_table(self, score_sheet):
        raise SystemExit("bye")
