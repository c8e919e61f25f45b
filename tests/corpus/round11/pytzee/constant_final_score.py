# Round 11, A in Pytzee (second case): a game whose every run ends with the same final score,
# whatever was rolled and answered.  Put in before the reference's main guard.  Problem 13's
# synonym games pass when the game with the synonym ends with the same non-zero score as its twin
# with the canonical words: two runs of a program that reads no word agree.

def play_game(num_rounds):
    scorecard = new_scorecard()
    for round_number in range(1, num_rounds + 1):
        print(f"**** Beginning Round {round_number} ****")
        dice = roll_dice()
        show_dice(dice)
        play_turn(scorecard, dice)
    print("Your final score was 50")
