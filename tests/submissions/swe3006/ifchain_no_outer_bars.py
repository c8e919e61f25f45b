"""My Yahtzee for SWE3006 (a beginner's if-chains)."""

import random


class YahtzeeGame:

    def __init__(self):
        self.game_mode = 1
        self.current_round = 1
        self.current_player = 1
        self.dice_combination = []
        self.recorded_score_sheet = []

    def calculate_score(self):
        d = self.dice_combination
        scores = {}
        scores["Aces"] = d.count(1) * 1
        scores["Twos"] = d.count(2) * 2
        scores["Threes"] = d.count(3) * 3
        scores["Fours"] = d.count(4) * 4
        scores["Fives"] = d.count(5) * 5
        scores["Sixes"] = d.count(6) * 6
        total = 0
        for x in d:
            total = total + x
        scores["Chance"] = total
        most = 0
        for face in range(1, 7):
            if d.count(face) > most:
                most = d.count(face)
        if most >= 3:
            scores["Three of a Kind"] = total
        else:
            scores["Three of a Kind"] = 0
        if most >= 4:
            scores["Four of a Kind"] = total
        else:
            scores["Four of a Kind"] = 0
        has3 = False
        has2 = False
        for face in range(1, 7):
            if d.count(face) == 3:
                has3 = True
            if d.count(face) == 2:
                has2 = True
        if has3 and has2:
            scores["Full House"] = 25
        else:
            scores["Full House"] = 0
        if self.is_straight(set(d), True):
            scores["Small Straight"] = 30
        else:
            scores["Small Straight"] = 0
        if self.is_straight(set(d), False):
            scores["Large Straight"] = 40
        else:
            scores["Large Straight"] = 0
        if most == 5:
            scores["Yahtzee"] = 50
        else:
            scores["Yahtzee"] = 0
        return scores

    def is_straight(self, dice_set, is_small):
        if is_small:
            if 1 in dice_set and 2 in dice_set and 3 in dice_set and 4 in dice_set:
                return True
            if 2 in dice_set and 3 in dice_set and 4 in dice_set and 5 in dice_set:
                return True
            if 3 in dice_set and 4 in dice_set and 5 in dice_set and 6 in dice_set:
                return True
            return False
        else:
            if 1 in dice_set and 2 in dice_set and 3 in dice_set and 4 in dice_set and 5 in dice_set:
                return True
            if 2 in dice_set and 3 in dice_set and 4 in dice_set and 5 in dice_set and 6 in dice_set:
                return True
            return False

    def get_valid_input(self, valid_cond, error_message, prompt, is_numeric_list):
        while True:
            print(prompt)
            answer = input(">> ").strip()
            if is_numeric_list == False:
                if answer in valid_cond:
                    return answer
            else:
                if answer == "":
                    return []
                parts = answer.split()
                ok = True
                numbers = []
                for p in parts:
                    if p == "1" or p == "2" or p == "3" or p == "4" or p == "5":
                        if int(p) in numbers:
                            ok = False
                        else:
                            numbers.append(int(p))
                    else:
                        ok = False
                if ok:
                    return numbers
            print()
            print("[WARN] " + error_message)

    def roll_dices(self, kept_dices):
        dice = []
        for position in range(1, 6):
            if position in kept_dices:
                dice.append(kept_dices[position])
            else:
                dice.append(random.randint(1, 6))
        return dice

    def rolling_phase(self):
        self.dice_combination = self.roll_dices({})
        print("Current dice combination: " + str(self.dice_combination))
        rerolls = 0
        while rerolls < 2:
            answer = self.get_valid_input(["y", "n", "Y", "N"], "Invalid input. Please type 'y' or 'n'",
                                          "Re-roll the dice? [y/n]", False)
            if answer == "n" or answer == "N":
                break
            keep = self.get_valid_input([], "Invalid input. Please enter unique numbers between 1 and 5. "
                                        "(Just Enter to re-roll all the dice)",
                                        "Enter the dice indexes to keep (e.g. 1 3 5)", True)
            kept = {}
            for k in keep:
                kept[k] = self.dice_combination[k - 1]
            self.dice_combination = self.roll_dices(kept)
            print("Current dice combination: " + str(self.dice_combination))
            rerolls = rerolls + 1

    def print_score_table(self, score_sheet):
        names = ["Aces", "Twos", "Threes", "Fours", "Fives", "Sixes", "Chance", "Three of a Kind",
                 "Four of a Kind", "Full House", "Small Straight", "Large Straight", "Yahtzee"]
        print("Category | Score")
        print("-----------------")
        for name in names:
            if name in score_sheet:
                print(name + " | " + str(score_sheet[name]))
            else:
                print(name + " | -")

    def recording_phase(self):
        scores = self.calculate_score()
        sheet = self.recorded_score_sheet[self.current_player - 1]
        showing = {}
        for name in scores:
            if name not in sheet:
                showing[name] = scores[name]
        self.print_score_table(showing)
        choices = []
        for name in scores:
            if name not in sheet:
                choices.append(name)
        name = self.get_valid_input(choices, "Invalid input. Please choose the category that is not recorded",
                                    "Choose the category to record the score", False)
        sheet[name] = scores[name]
        print("You recorded " + str(scores[name]) + " points in " + name + ".")

    def initialize_game(self):
        self.game_mode = 1
        self.current_round = 1
        self.current_player = 1
        self.dice_combination = []
        self.recorded_score_sheet = []
        print("*** Welcome to Yahtzee! ***")
        mode = self.get_valid_input(["1", "2"],
                                    "Invalid input. Please enter 1 for Single Player or 2 for Two Players",
                                    "Choose the game mode:\n  1) Single Player\n  2) Two Players", False)
        if mode == "1":
            self.game_mode = 1
            self.recorded_score_sheet = [{}]
        else:
            self.game_mode = 2
            self.recorded_score_sheet = [{}, {}]

    def get_option_choice(self):
        print()
        if self.game_mode == 1:
            print("Round " + str(self.current_round))
        else:
            print("Round " + str(self.current_round) + " - Player " + str(self.current_player))
        return self.get_valid_input(["1", "2"],
                                    "Invalid input. Please enter 1 to roll the dice or 2 to check the score sheet",
                                    "Choose the option:\n  1) Roll the dice\n  2) Check the score sheet", False)

    def print_score_info(self):
        if self.game_mode == 1:
            sheet = self.recorded_score_sheet[0]
            self.print_score_table(sheet)
            total = 0
            for name in sheet:
                total = total + sheet[name]
            if self.current_round == 14:
                print("Final score: " + str(total))
            else:
                print("Current score: " + str(total))
        elif self.current_round < 14:
            sheet = self.recorded_score_sheet[self.current_player - 1]
            self.print_score_table(sheet)
            total = 0
            for name in sheet:
                total = total + sheet[name]
            print("Current score: " + str(total))
        else:
            total1 = 0
            for name in self.recorded_score_sheet[0]:
                total1 = total1 + self.recorded_score_sheet[0][name]
            total2 = 0
            for name in self.recorded_score_sheet[1]:
                total2 = total2 + self.recorded_score_sheet[1][name]
            print("Player 1")
            self.print_score_table(self.recorded_score_sheet[0])
            print("Player 1 final score: " + str(total1))
            print("Player 2")
            self.print_score_table(self.recorded_score_sheet[1])
            print("Player 2 final score: " + str(total2))
            if total1 > total2:
                print("Player 1 wins!")
            elif total2 > total1:
                print("Player 2 wins!")
            else:
                print("It's a tie!")

    def check_end_game(self):
        if self.current_round == 14:
            print("Game Over! Final Scores:")
            self.print_score_info()
            print("Press Enter to start a new game.")
            input()
            self.initialize_game()
            return True
        return False

    def play(self):
        self.initialize_game()
        while True:
            option = self.get_option_choice()
            if option == "2":
                self.print_score_info()
            else:
                self.rolling_phase()
                self.recording_phase()
                if self.game_mode == 1:
                    self.current_round = self.current_round + 1
                elif self.current_player == 1:
                    self.current_player = 2
                else:
                    self.current_player = 1
                    self.current_round = self.current_round + 1
                self.check_end_game()


if __name__ == "__main__":
    YahtzeeGame().play()
