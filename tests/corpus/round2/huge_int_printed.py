# Plays the reference game, then prints a final score with 5000 digits (int() refuses more than
# 4300): before the fix the game checks became "grader internal error".  Now the number is read
# as a (wrong) number and the checks that read it fail plainly.
_play = play_game  # noqa: F821


def play_game(num_rounds=NUM_ROUNDS):  # noqa: F821
    total = _play(num_rounds)
    print("Final score: " + "9" * 5000)
    return total
