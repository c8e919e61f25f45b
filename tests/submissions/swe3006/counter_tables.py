"""SWE3006 Yahtzee, written with collections.Counter, a table of scoring rules and a compact
score table (a correct submission in another style: different banner, borders and prompt)."""

import random
from collections import Counter

ORDER = ("Aces", "Twos", "Threes", "Fours", "Fives", "Sixes", "Chance", "Three of a Kind",
         "Four of a Kind", "Full House", "Small Straight", "Large Straight", "Yahtzee")


def _upper(face):
    return lambda dice, counts, game: face * counts[face]


RULES = {name: _upper(face) for face, name in enumerate(ORDER[:6], 1)}
RULES.update({
    "Chance": lambda dice, counts, game: sum(dice),
    "Three of a Kind": lambda dice, counts, game: sum(dice) if max(counts.values()) >= 3 else 0,
    "Four of a Kind": lambda dice, counts, game: sum(dice) if max(counts.values()) >= 4 else 0,
    "Full House": lambda dice, counts, game: 25 if sorted(counts.values()) == [2, 3] else 0,
    "Small Straight": lambda dice, counts, game: 30 if game.is_straight(set(dice), True) else 0,
    "Large Straight": lambda dice, counts, game: 40 if game.is_straight(set(dice), False) else 0,
    "Yahtzee": lambda dice, counts, game: 50 if len(counts) == 1 else 0,
})


class YahtzeeGame:
    def __init__(self):
        self.game_mode = 1
        self.current_round = 1
        self.current_player = 1
        self.dice_combination = []
        self.recorded_score_sheet = []

    def calculate_score(self):
        dice = list(self.dice_combination)
        counts = Counter(dice)
        return {name: RULES[name](dice, counts, self) for name in ORDER}

    def is_straight(self, dice_set, is_small):
        runs = ((1, 2, 3, 4), (2, 3, 4, 5), (3, 4, 5, 6)) if is_small else ((1, 2, 3, 4, 5), (2, 3, 4, 5, 6))
        return any(all(v in dice_set for v in run) for run in runs)

    def get_valid_input(self, valid_cond, error_message, prompt, is_numeric_list):
        while True:
            print(prompt)
            text = input(">> ").strip()
            if is_numeric_list:
                tokens = text.split()
                if all(t in ("1", "2", "3", "4", "5") for t in tokens) and len(tokens) == len(set(tokens)):
                    return [int(t) for t in tokens]
            elif text in valid_cond:
                return text
            print("\n[WARN] " + error_message)

    def roll_dices(self, kept_dices):
        dice = []
        for position in range(1, 6):
            dice.append(kept_dices[position] if position in kept_dices else random.randint(1, 6))
        return dice

    def rolling_phase(self):
        self.dice_combination = self.roll_dices({})
        print("Current dice combination:", self.dice_combination)
        rerolls = 0
        while rerolls < 2:
            again = self.get_valid_input(list("ynYN"), "Invalid input. Please type 'y' or 'n'",
                                         "Re-roll the dice? [y/n]", False)
            if again in "nN":
                return
            keep = self.get_valid_input(None, "Invalid input. Please enter unique numbers between 1 and 5. "
                                        "(Just Enter to re-roll all the dice)",
                                        "Enter the dice indexes to keep (e.g. 1 3 5)", True)
            self.dice_combination = self.roll_dices({p: self.dice_combination[p - 1] for p in keep})
            print("Current dice combination:", self.dice_combination)
            rerolls += 1

    def print_score_table(self, score_sheet):
        print("=" * 26)
        print("| Category | Score |")
        print("-" * 26)
        for name in ORDER:
            print("| %s | %s |" % (name.ljust(16), str(score_sheet.get(name, "-")).rjust(3)))
        print("=" * 26)

    def recording_phase(self):
        mine = self.recorded_score_sheet[self.current_player - 1]
        options = {k: v for k, v in self.calculate_score().items() if k not in mine}
        self.print_score_table(options)
        choice = self.get_valid_input(list(options), "Invalid input. Please choose the category that is not recorded",
                                      "Choose the category to record the score", False)
        mine[choice] = options[choice]

    def initialize_game(self):
        self.game_mode, self.current_round, self.current_player = 1, 1, 1
        self.dice_combination, self.recorded_score_sheet = [], []
        print("*** Yahtzee ***")
        mode = self.get_valid_input(["1", "2"], "Invalid input. Please enter 1 for Single Player or 2 for Two Players",
                                    "Choose the game mode:\n1. Single Player\n2. Two Players", False)
        self.game_mode = 1 if mode == "1" else 2
        self.recorded_score_sheet = [{} for _ in range(self.game_mode)]

    def get_option_choice(self):
        who = f" - Player {self.current_player}" if self.game_mode == 2 else ""
        print(f"\nRound {self.current_round}{who}")
        return self.get_valid_input(["1", "2"], "Invalid input. Please enter 1 to roll the dice or 2 to check the "
                                    "score sheet", "Choose the option:\n1. Roll the dice\n2. Check the current score sheet",
                                    False)

    def print_score_info(self):
        over = self.current_round == 14
        if self.game_mode == 2 and over:
            totals = {}
            for number in (1, 2):
                print(f"Player {number}")
                self.print_score_table(self.recorded_score_sheet[number - 1])
                totals[number] = sum(self.recorded_score_sheet[number - 1].values())
                print(f"Player {number} final score: {totals[number]}")
            if totals[1] > totals[2]:
                print("Player 1 wins!")
            elif totals[2] > totals[1]:
                print("Player 2 wins!")
            else:
                print("It's a tie!")
            return
        sheet = self.recorded_score_sheet[self.current_player - 1]
        self.print_score_table(sheet)
        print(("Final" if over else "Current") + " score: " + str(sum(sheet.values())))

    def check_end_game(self):
        if self.current_round != 14:
            return False
        print("\nGame Over! Final Scores:")
        self.print_score_info()
        input("Press Enter to start a new game.\n")
        self.initialize_game()
        return True

    def play(self):
        self.initialize_game()
        while True:
            while self.get_option_choice() == "2":
                self.print_score_info()
            self.rolling_phase()
            self.recording_phase()
            if self.game_mode == 2:
                self.current_player = 3 - self.current_player
                if self.current_player == 1:
                    self.current_round += 1
            else:
                self.current_round += 1
            self.check_end_game()


if __name__ == "__main__":
    game = YahtzeeGame()
    game.play()
