"""Yahtzee as a class, for one or two players (after SWE3006 Programming Languages, Assignment 2).

Starter file: write your code in each region that starts with a
``# BEGIN PROBLEM N`` comment and ends with ``# END PROBLEM N``.  Until you do,
the region raises NotImplementedError naming its problem.  Leave the given code
outside the regions as it is.  The handout (handout-swe3006.md) says what each
problem must do.

Play a game:  python swe3006.py

The rules in one breath: five dice, 13 rounds per player; each round the player may look at
the score sheet or roll, then re-roll up to twice, keeping dice by their positions, and
records the roll in one category not used yet.  There is no upper bonus, no Yahtzee bonus
and no Joker rule (the course's rules; the kit's main track has them).  In the two-player
mode the players alternate (26 turns), and the higher total wins (or it is a tie).
Every answer is validated: a bad one prints ``[WARN] Invalid input. ...`` and asks again.
"""

import random  # noqa: F401  (roll_dices uses it: the starter stubs it out)

NUM_DICE = 5
NUM_ROUNDS = 13
CATEGORIES = ["Aces", "Twos", "Threes", "Fours", "Fives", "Sixes", "Chance",
              "Three of a Kind", "Four of a Kind", "Full House", "Small Straight",
              "Large Straight", "Yahtzee"]
UPPER = CATEGORIES[:6]          # Aces..Sixes: the face value times how many dice show it
FULL_HOUSE_POINTS = 25
SMALL_STRAIGHT_POINTS = 30
LARGE_STRAIGHT_POINTS = 40
YAHTZEE_POINTS = 50
SMALL_STRAIGHTS = [{1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}]
LARGE_STRAIGHTS = [{1, 2, 3, 4, 5}, {2, 3, 4, 5, 6}]

PROMPT = "=> "
MODE_PROMPT = "Choose the game mode:\n1. Single Player\n2. Two Players"
MODE_ERROR = "Invalid input. Please enter 1 for Single Player or 2 for Two Players"
OPTION_PROMPT = "Choose the option:\n1. Roll the dice\n2. Check the current score sheet"
OPTION_ERROR = "Invalid input. Please enter 1 to roll the dice or 2 to check the score sheet"
REROLL_PROMPT = "Re-roll the dice? [y/n]"
REROLL_ERROR = "Invalid input. Please type 'y' or 'n'"
KEEP_PROMPT = "Enter the dice indexes to keep (e.g. 1 3 5)"
KEEP_ERROR = ("Invalid input. Please enter unique numbers between 1 and 5. "
              "(Just Enter to re-roll all the dice)")
CATEGORY_PROMPT = "Choose the category to record the score"
CATEGORY_ERROR = "Invalid input. Please choose the category that is not recorded"
NEW_GAME = "Press Enter to start a new game."


class YahtzeeGame:
    """The whole game: its state in five attributes, one method per step of a round."""

    def __init__(self):
        """Given: the starting state (the grader sets these attributes directly).

        >>> game = YahtzeeGame()
        >>> game.game_mode, game.current_round, game.current_player
        (1, 1, 1)
        >>> game.dice_combination, game.recorded_score_sheet
        ([], [])
        """
        self.game_mode = 1               # 1: single player, 2: two players
        self.current_round = 1           # 1..13; 14 once the game is over
        self.current_player = 1          # whose turn it is (1 or 2)
        self.dice_combination = []       # the five dice of the current turn
        self.recorded_score_sheet = []   # one dict per player: category -> recorded score

    # ======================================================================
    # Stage 1: scoring the dice
    # ======================================================================

    def calculate_score(self):
        """The score of the current dice (self.dice_combination) in every category, as a dict
        in the order of CATEGORIES.

        >>> game = YahtzeeGame()
        >>> game.dice_combination = [2, 2, 3, 4, 6]
        >>> sheet = game.calculate_score()
        >>> list(sheet)  # every category, in the order of the score table
        ['Aces', 'Twos', 'Threes', 'Fours', 'Fives', 'Sixes', 'Chance', 'Three of a Kind', 'Four of a Kind', 'Full House', 'Small Straight', 'Large Straight', 'Yahtzee']
        >>> sheet["Twos"], sheet["Chance"], sheet["Three of a Kind"]
        (4, 17, 0)
        >>> game.dice_combination = [5, 5, 5, 5, 5]
        >>> sheet = game.calculate_score()
        >>> sheet["Fives"], sheet["Four of a Kind"], sheet["Yahtzee"]
        (25, 25, 50)

        Five alike is not a full house (three of one number and two of ANOTHER):

        >>> sheet["Full House"]
        0
        >>> game.dice_combination = [3, 3, 6, 6, 6]
        >>> game.calculate_score()["Full House"]
        25

        A large straight is a small straight too:

        >>> game.dice_combination = [2, 3, 4, 5, 6]
        >>> sheet = game.calculate_score()
        >>> sheet["Small Straight"], sheet["Large Straight"]
        (30, 40)
        """
        # BEGIN PROBLEM 1
        dice = self.dice_combination
        counts = {face: dice.count(face) for face in range(1, 7)}
        total = sum(dice)
        most = max(counts.values())
        sheet = {}
        for i, name in enumerate(UPPER):
            sheet[name] = counts[i + 1] * (i + 1)
        sheet["Chance"] = total
        sheet["Three of a Kind"] = total if most >= 3 else 0
        sheet["Four of a Kind"] = total if most >= 4 else 0
        sheet["Full House"] = FULL_HOUSE_POINTS if sorted(c for c in counts.values() if c) == [2, 3] else 0
        sheet["Small Straight"] = SMALL_STRAIGHT_POINTS if self.is_straight(set(dice), True) else 0
        sheet["Large Straight"] = LARGE_STRAIGHT_POINTS if self.is_straight(set(dice), False) else 0
        sheet["Yahtzee"] = YAHTZEE_POINTS if most == 5 else 0
        return sheet
        # END PROBLEM 1

    def is_straight(self, dice_set, is_small):
        """Whether the set of dice values DICE_SET holds a small straight (IS_SMALL: four in a
        row) or a large one (five in a row).

        >>> game = YahtzeeGame()
        >>> game.is_straight({1, 2, 3, 4, 6}, True), game.is_straight({1, 2, 3, 4, 6}, False)
        (True, False)
        >>> game.is_straight({1, 2, 3, 5, 6}, True)
        False
        >>> game.is_straight({2, 3, 4, 5, 6}, True), game.is_straight({2, 3, 4, 5, 6}, False)
        (True, True)
        """
        # BEGIN PROBLEM 2
        straights = SMALL_STRAIGHTS if is_small else LARGE_STRAIGHTS
        return any(straight <= dice_set for straight in straights)
        # END PROBLEM 2

    # ======================================================================
    # Stage 2: one turn -- validated input, the dice, the score table, recording
    # ======================================================================

    def get_valid_input(self, valid_cond, error_message, prompt, is_numeric_list):
        """Print PROMPT and read an answer after "=> " until it is valid; return it.

        An answer is stripped of surrounding spaces first.  Not IS_NUMERIC_LIST: it must be
        one of VALID_COND, and is returned as the string typed.  IS_NUMERIC_LIST: it must be
        unique numbers 1..5 separated by spaces (or nothing at all), returned as a list of
        ints in the order typed.  Each invalid answer prints an empty line and
        "[WARN] " + ERROR_MESSAGE, then PROMPT again.
        """
        # BEGIN PROBLEM 3
        while True:
            print(prompt)
            answer = input(PROMPT).strip()
            if not is_numeric_list:
                if answer in valid_cond:
                    return answer
            else:
                parts = answer.split()
                if all(p in ("1", "2", "3", "4", "5") for p in parts) and len(set(parts)) == len(parts):
                    return [int(p) for p in parts]
            print()
            print("[WARN] " + error_message)
        # END PROBLEM 3

    def roll_dices(self, kept_dices):
        """Five dice: position p (1..5) keeps KEPT_DICES[p] when it is there, otherwise rolls
        random.randint(1, 6) -- one call per rolled die, in position order.

        >>> random.seed(1)
        >>> YahtzeeGame().roll_dices({1: 6, 3: 6})
        [6, 2, 6, 5, 1]
        """
        # BEGIN PROBLEM 5
        dice = []
        for position in range(1, NUM_DICE + 1):
            if position in kept_dices:
                dice.append(kept_dices[position])
            else:
                dice.append(random.randint(1, 6))
        return dice
        # END PROBLEM 5

    def rolling_phase(self):
        """Roll all five dice, then offer up to two re-rolls ([y/n], either case), each keeping
        the dice at the positions typed.  Prints the dice after every roll."""
        # BEGIN PROBLEM 5
        self.dice_combination = self.roll_dices({})
        print(f"Current dice combination: {self.dice_combination}")
        for _ in range(2):
            again = self.get_valid_input(["y", "n", "Y", "N"], REROLL_ERROR, REROLL_PROMPT, False)
            if again.lower() == "n":
                break
            keep = self.get_valid_input(None, KEEP_ERROR, KEEP_PROMPT, True)
            kept = {p: self.dice_combination[p - 1] for p in keep}
            self.dice_combination = self.roll_dices(kept)
            print(f"Current dice combination: {self.dice_combination}")
        # END PROBLEM 5

    def print_score_table(self, score_sheet):
        """Print SCORE_SHEET as a table: a header row, then one row per category of CATEGORIES
        in order, "-" where SCORE_SHEET has no score.

        >>> YahtzeeGame().print_score_table({"Aces": 3, "Full House": 25})  # doctest: +ELLIPSIS
        +-----------------+-------+
        | Category        | Score |
        +-----------------+-------+
        | Aces            |     3 |
        | Twos            |     - |
        ...
        | Full House      |    25 |
        ...
        +-----------------+-------+
        """
        # BEGIN PROBLEM 6
        line = "+" + "-" * 17 + "+" + "-" * 7 + "+"
        print(line)
        print(f"| {'Category':<15} | {'Score':>5} |")
        print(line)
        for name in CATEGORIES:
            value = score_sheet.get(name)
            shown = "-" if value is None else str(value)
            print(f"| {name:<15} | {shown:>5} |")
        print(line)
        # END PROBLEM 6

    def recording_phase(self):
        """Show what the dice would score in each category the current player has not used,
        ask for one of them by name, and record its score in the player's sheet."""
        # BEGIN PROBLEM 7
        possible = self.calculate_score()
        sheet = self.recorded_score_sheet[self.current_player - 1]
        open_ones = {name: points for name, points in possible.items() if name not in sheet}
        self.print_score_table(open_ones)
        choice = self.get_valid_input(list(open_ones), CATEGORY_ERROR, CATEGORY_PROMPT, False)
        sheet[choice] = open_ones[choice]
        # END PROBLEM 7

    # ======================================================================
    # Stage 3: the single-player game
    # ======================================================================

    def initialize_game(self):
        """Reset the state, print the banner, ask for the game mode (1 or 2) and give every
        player an empty score sheet."""
        # BEGIN PROBLEM 8
        self.current_round = 1
        self.current_player = 1
        self.dice_combination = []
        print("=" * 40)
        print("             Y A H T Z E E")
        print("=" * 40)
        mode = self.get_valid_input(["1", "2"], MODE_ERROR, MODE_PROMPT, False)
        self.game_mode = int(mode)
        self.recorded_score_sheet = [{} for _ in range(self.game_mode)]
        # END PROBLEM 8

    def get_option_choice(self):
        """Print the round ("Round 3", or "Round 3 - Player 2" with two players) and the menu;
        return the option chosen, "1" or "2"."""
        # BEGIN PROBLEM 9
        if self.game_mode == 2:
            print(f"Round {self.current_round} - Player {self.current_player}")
        else:
            print(f"Round {self.current_round}")
        return self.get_valid_input(["1", "2"], OPTION_ERROR, OPTION_PROMPT, False)
        # END PROBLEM 9

    def print_score_info(self):
        """Print the current player's sheet and "Current score: N" during a game; at its end
        (current_round 14) "Final score: N", or with two players each player's sheet and final
        score, then the winner ("Player 1 wins!") or "It's a tie!"."""
        game_over = self.current_round > NUM_ROUNDS
        if self.game_mode == 1 or not game_over:
            # BEGIN PROBLEM 10
            sheet = self.recorded_score_sheet[self.current_player - 1]
            self.print_score_table(sheet)
            if game_over:
                print(f"Final score: {sum(sheet.values())}")
            else:
                print(f"Current score: {sum(sheet.values())}")
            # END PROBLEM 10
            return
        # BEGIN PROBLEM 13
        totals = []
        for p, sheet in enumerate(self.recorded_score_sheet, start=1):
            print(f"Player {p}")
            self.print_score_table(sheet)
            totals.append(sum(sheet.values()))
            print(f"Player {p} final score: {totals[-1]}")
        if totals[0] > totals[1]:
            print("Player 1 wins!")
        elif totals[1] > totals[0]:
            print("Player 2 wins!")
        else:
            print("It's a tie!")
        # END PROBLEM 13

    def check_end_game(self):
        """After the last turn (current_round 14): print "Game Over! Final Scores:" and the
        scores, wait for Enter, start a new game and return True.  Otherwise return False."""
        # BEGIN PROBLEM 10
        if self.current_round <= NUM_ROUNDS:
            return False
        print("Game Over! Final Scores:")
        self.print_score_info()
        print(NEW_GAME)
        input(PROMPT)
        self.initialize_game()
        return True
        # END PROBLEM 10

    def play(self):
        """The game loop: choose the mode; every round show the sheet on request, roll,
        record, move on; after the last round offer a new game (for ever: the program ends
        when its input does)."""
        # BEGIN PROBLEM 11
        self.initialize_game()
        while True:
            option = self.get_option_choice()
            if option == "2":
                self.print_score_info()
                continue
            self.rolling_phase()
            self.recording_phase()
            if self.game_mode == 2 and self.current_player == 1:
                self.current_player = 2
            else:
                self.current_player = 1
                self.current_round += 1
            self.check_end_game()
        # END PROBLEM 11


if __name__ == "__main__":
    YahtzeeGame().play()
