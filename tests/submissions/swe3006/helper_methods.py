"""SWE3006 assignment 2: Yahtzee, written with small helpers and a Counter."""

import random
import re
from collections import Counter

CATEGORIES = ("Aces", "Twos", "Threes", "Fours", "Fives", "Sixes", "Chance", "Three of a Kind",
              "Four of a Kind", "Full House", "Small Straight", "Large Straight", "Yahtzee")
FACES = dict(zip(CATEGORIES[:6], range(1, 7)))
POSITIONS = re.compile(r"[1-5](?:\s+[1-5])*")


class YahtzeeGame:

    def __init__(self):
        self.game_mode = 1
        self.current_round = 1
        self.current_player = 1
        self.dice_combination = []
        self.recorded_score_sheet = []

    # -- helpers of mine --------------------------------------------------------------------
    def _ask(self, prompt):
        print(prompt)
        return input("=> ")

    @staticmethod
    def _total(sheet):
        return sum(sheet.values())

    def _sheet(self):
        return self.recorded_score_sheet[self.current_player - 1]

    # -- stage 1 ----------------------------------------------------------------------------
    def calculate_score(self):
        dice = list(self.dice_combination)
        counts = Counter(dice)
        top = max(counts.values())
        total = sum(dice)
        result = {name: face * counts[face] for name, face in FACES.items()}
        result["Chance"] = total
        result["Three of a Kind"] = total if top >= 3 else 0
        result["Four of a Kind"] = total if top >= 4 else 0
        result["Full House"] = 25 if sorted(counts.values()) == [2, 3] else 0
        result["Small Straight"] = 30 if self.is_straight(set(dice), True) else 0
        result["Large Straight"] = 40 if self.is_straight(set(dice), False) else 0
        result["Yahtzee"] = 50 if top == 5 else 0
        return {name: result[name] for name in CATEGORIES}

    def is_straight(self, dice_set, is_small):
        run = 4 if is_small else 5
        return any(set(range(low, low + run)) <= set(dice_set) for low in range(1, 8 - run))

    # -- stage 2 ----------------------------------------------------------------------------
    def get_valid_input(self, valid_cond, error_message, prompt, is_numeric_list):
        while True:
            answer = self._ask(prompt).strip()
            if not is_numeric_list and answer in set(valid_cond):
                return answer
            if is_numeric_list:
                if answer == "":
                    return []
                if POSITIONS.fullmatch(answer):
                    numbers = [int(n) for n in answer.split()]
                    if len(set(numbers)) == len(numbers):
                        return numbers
            print(f"\n[WARN] {error_message}")

    def roll_dices(self, kept_dices):
        return [kept_dices[p] if p in kept_dices else random.randint(1, 6) for p in range(1, 6)]

    def _show_dice(self):
        print(f"Current dice combination: {self.dice_combination}")

    def rolling_phase(self):
        self.dice_combination = self.roll_dices({})
        self._show_dice()
        for _ in range(2):
            again = self.get_valid_input("yYnN", "Invalid input. Please type 'y' or 'n'",
                                         "Re-roll the dice? [y/n]", False)
            if again.lower() != "y":
                return
            keep = self.get_valid_input(None, "Invalid input. Please enter unique numbers between 1 and 5. "
                                              "(Just Enter to re-roll all the dice)",
                                        "Enter the dice indexes to keep (e.g. 1 3 5)", True)
            self.dice_combination = self.roll_dices({p: self.dice_combination[p - 1] for p in keep})
            self._show_dice()

    def print_score_table(self, score_sheet):
        line = "+" + "=" * 22 + "+" + "=" * 9 + "+"
        print(line)
        print(f"|  {'Category':<20}|{'Score':^9}|")
        print(line)
        for name in CATEGORIES:
            print(f"|  {name:<20}|{score_sheet.get(name, '-')!s:^9}|")
        print(line)

    def recording_phase(self):
        scores = self.calculate_score()
        sheet = self._sheet()
        open_ones = [name for name in CATEGORIES if name not in sheet]
        self.print_score_table({name: scores[name] for name in open_ones})
        name = self.get_valid_input(open_ones, "Invalid input. Please choose the category that is not recorded",
                                    "Choose the category to record the score", False)
        sheet[name] = scores[name]

    # -- stage 3 ----------------------------------------------------------------------------
    def initialize_game(self):
        self.__init__()
        print("#" * 30)
        print("#   Y  A  H  T  Z  E  E      #")
        print("#" * 30)
        mode = self.get_valid_input(("1", "2"), "Invalid input. Please enter 1 for Single Player or 2 for Two Players",
                                    "Choose the game mode:\n[1] Single Player\n[2] Two Players", False)
        self.game_mode = int(mode)
        self.recorded_score_sheet = [dict() for _ in range(self.game_mode)]

    def get_option_choice(self):
        title = f"Round {self.current_round}"
        if self.game_mode == 2:
            title += f" - Player {self.current_player}"
        print("\n" + title)
        return self.get_valid_input({"1", "2"},
                                    "Invalid input. Please enter 1 to roll the dice or 2 to check the score sheet",
                                    "Choose the option:\n[1] Roll the dice\n[2] Check the current score sheet",
                                    False)

    def print_score_info(self):
        over = self.current_round > 13
        if over and self.game_mode == 2:
            totals = [self._total(s) for s in self.recorded_score_sheet]
            for number, sheet in enumerate(self.recorded_score_sheet, start=1):
                print(f"Player {number}")
                self.print_score_table(sheet)
                print(f"Player {number} final score: {totals[number - 1]}")
            if totals[0] == totals[1]:
                print("It's a tie!")
            else:
                print(f"Player {1 if totals[0] > totals[1] else 2} wins!")
            return
        sheet = self._sheet()
        self.print_score_table(sheet)
        print(f"{'Final' if over else 'Current'} score: {self._total(sheet)}")

    def check_end_game(self):
        if self.current_round <= 13:
            return False
        print("Game Over! Final Scores:")
        self.print_score_info()
        print("Press Enter to start a new game.")
        input("=> ")
        self.initialize_game()
        return True

    def _next_turn(self):
        if self.game_mode == 2 and self.current_player == 1:
            self.current_player = 2
            print("(Player 2's turn)")
        else:
            self.current_player = 1
            self.current_round += 1

    def play(self):
        self.initialize_game()
        while True:
            if self.get_option_choice() == "2":
                self.print_score_info()
                continue
            self.rolling_phase()
            self.recording_phase()
            self._next_turn()
            self.check_end_game()


if __name__ == "__main__":
    try:
        YahtzeeGame().play()
    except (EOFError, KeyboardInterrupt):
        print("\nBye!")
