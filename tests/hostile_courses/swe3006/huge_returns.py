# Huge values come back: an int too long to print, a 20 MB string, a list nested 100,000 deep.
import sys

_Base = YahtzeeGame
sys.set_int_max_str_digits(0) if hasattr(sys, "set_int_max_str_digits") else None


def _deep():
    value = []
    for _ in range(100_000):
        value = [value]
    return value


class YahtzeeGame(_Base):
    def calculate_score(self):
        return {name: 10 ** 100_000 for name in ("Aces", "Twos", "Threes")}

    def is_straight(self, dice_set, is_small):
        return "x" * 20_000_000

    def roll_dices(self, kept_dices):
        return _deep()
