# SWE3006 Assignment 2 -- Yahtzee
# A correct submission in a plain style: if-chains, explicit loops, module-level helpers.
import random


def count_face(dice, face):
    n = 0
    for d in dice:
        if d == face:
            n = n + 1
    return n


def table_line():
    print("+--------------------+--------+")


class YahtzeeGame:
    NAMES = ["Aces", "Twos", "Threes", "Fours", "Fives", "Sixes", "Chance", "Three of a Kind",
             "Four of a Kind", "Full House", "Small Straight", "Large Straight", "Yahtzee"]

    def __init__(self):
        self.game_mode = 1
        self.current_round = 1
        self.current_player = 1
        self.dice_combination = []
        self.recorded_score_sheet = []

    def calculate_score(self):
        dice = self.dice_combination
        total_sum = 0
        for d in dice:
            total_sum = total_sum + d
        freq = []
        for face in range(1, 7):
            freq.append(count_face(dice, face))
        max_freq = max(freq)
        dice_set = set(dice)
        score_sheet = {}
        score_sheet["Aces"] = freq[0] * 1
        score_sheet["Twos"] = freq[1] * 2
        score_sheet["Threes"] = freq[2] * 3
        score_sheet["Fours"] = freq[3] * 4
        score_sheet["Fives"] = freq[4] * 5
        score_sheet["Sixes"] = freq[5] * 6
        score_sheet["Chance"] = total_sum
        if max_freq >= 3:
            score_sheet["Three of a Kind"] = total_sum
        else:
            score_sheet["Three of a Kind"] = 0
        if max_freq >= 4:
            score_sheet["Four of a Kind"] = total_sum
        else:
            score_sheet["Four of a Kind"] = 0
        if 3 in freq and 2 in freq:
            score_sheet["Full House"] = 25
        else:
            score_sheet["Full House"] = 0
        if self.is_straight(dice_set, True):
            score_sheet["Small Straight"] = 30
        else:
            score_sheet["Small Straight"] = 0
        if self.is_straight(dice_set, False):
            score_sheet["Large Straight"] = 40
        else:
            score_sheet["Large Straight"] = 0
        if max_freq == 5:
            score_sheet["Yahtzee"] = 50
        else:
            score_sheet["Yahtzee"] = 0
        return score_sheet

    def is_straight(self, dice_set, is_small):
        if is_small:
            small_straight_cond = [{1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}]
            for cond in small_straight_cond:
                if cond.issubset(dice_set):
                    return True
            return False
        return dice_set == {1, 2, 3, 4, 5} or dice_set == {2, 3, 4, 5, 6}

    def get_valid_input(self, valid_cond, error_message, prompt, is_numeric_list):
        while True:
            print(prompt)
            user = input("=> ")
            user = user.strip()
            if is_numeric_list == False:
                if user in valid_cond:
                    return user
            else:
                ok = True
                result = []
                for token in user.split():
                    if not token.isdigit():
                        ok = False
                        break
                    number = int(token)
                    if number < 1 or number > 5 or number in result:
                        ok = False
                        break
                    result.append(number)
                if ok:
                    return result
            print("")
            print("[WARN] " + error_message)

    def roll_dices(self, kept_dices):
        dice_combination = []
        for i in range(1, 6):
            if i in kept_dices:
                dice_combination.append(kept_dices[i])
            else:
                dice_combination.append(random.randint(1, 6))
        return dice_combination

    def rolling_phase(self):
        self.dice_combination = self.roll_dices({})
        print("Current dice combination: " + str(self.dice_combination))
        reroll = 0
        while reroll < 2:
            answer = self.get_valid_input(["y", "Y", "n", "N"], "Invalid input. Please type 'y' or 'n'",
                                          "Re-roll the dice? [y/n]", False)
            if answer == "n" or answer == "N":
                break
            keep = self.get_valid_input([], "Invalid input. Please enter unique numbers between 1 and 5. (Just Enter to re-roll all the dice)",
                                        "Enter the dice indexes to keep (e.g. 1 3 5)", True)
            kept_dices = {}
            for index in keep:
                kept_dices[index] = self.dice_combination[index - 1]
            self.dice_combination = self.roll_dices(kept_dices)
            print("Current dice combination: " + str(self.dice_combination))
            reroll = reroll + 1

    def print_score_table(self, score_sheet):
        table_line()
        print("| Category           | Score  |")
        table_line()
        for name in self.NAMES:
            if name in score_sheet:
                value = str(score_sheet[name])
            else:
                value = "-"
            print("| " + name + " " * (19 - len(name)) + "| " + value + " " * (7 - len(value)) + "|")
        table_line()

    def recording_phase(self):
        score_sheet = self.calculate_score()
        player_sheet = self.recorded_score_sheet[self.current_player - 1]
        for name in list(score_sheet):
            if name in player_sheet:
                del score_sheet[name]
        self.print_score_table(score_sheet)
        names = []
        for name in score_sheet:
            names.append(name)
        category = self.get_valid_input(names, "Invalid input. Please choose the category that is not recorded",
                                        "Choose the category to record the score", False)
        player_sheet[category] = score_sheet[category]

    def initialize_game(self):
        self.game_mode = 1
        self.current_round = 1
        self.current_player = 1
        self.dice_combination = []
        self.recorded_score_sheet = []
        print("#################################")
        print("#   Let's play Yahtzee!         #")
        print("#################################")
        mode = self.get_valid_input(["1", "2"], "Invalid input. Please enter 1 for Single Player or 2 for Two Players",
                                    "Choose the game mode:\n1. Single Player\n2. Two Players", False)
        if mode == "2":
            self.game_mode = 2
            self.recorded_score_sheet = [{}, {}]
        else:
            self.recorded_score_sheet = [{}]

    def get_option_choice(self):
        print("")
        if self.game_mode == 1:
            print("Round " + str(self.current_round))
        else:
            print("Round " + str(self.current_round) + " - Player " + str(self.current_player))
        return self.get_valid_input(["1", "2"], "Invalid input. Please enter 1 to roll the dice or 2 to check the score sheet",
                                    "Choose the option:\n1. Roll the dice\n2. Check the current score sheet", False)

    def print_score_info(self):
        if self.current_round == 14 and self.game_mode == 2:
            first = 0
            for value in self.recorded_score_sheet[0].values():
                first = first + value
            second = 0
            for value in self.recorded_score_sheet[1].values():
                second = second + value
            print("Player 1")
            self.print_score_table(self.recorded_score_sheet[0])
            print("Player 1 final score: " + str(first))
            print("Player 2")
            self.print_score_table(self.recorded_score_sheet[1])
            print("Player 2 final score: " + str(second))
            if first > second:
                print("Player 1 wins!")
            elif second > first:
                print("Player 2 wins!")
            else:
                print("It's a tie!")
        else:
            sheet = self.recorded_score_sheet[self.current_player - 1]
            total = 0
            for value in sheet.values():
                total = total + value
            self.print_score_table(sheet)
            if self.current_round == 14:
                print("Final score: " + str(total))
            else:
                print("Current score: " + str(total))

    def check_end_game(self):
        if self.current_round == 14:
            print("")
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
                if self.game_mode == 2:
                    if self.current_player == 1:
                        self.current_player = 2
                    else:
                        self.current_player = 1
                        self.current_round = self.current_round + 1
                else:
                    self.current_round = self.current_round + 1
                self.check_end_game()


if __name__ == "__main__":
    YahtzeeGame().play()
