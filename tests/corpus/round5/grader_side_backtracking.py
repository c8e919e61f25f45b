# Work in the grader's process, where no sandbox limit applies: a line the course's protocol regexes
# backtrack on quadratically (yahtzee's scorecard row `[A-Za-z _-]*?\s*[:=]`: a letter, 14 000
# spaces, a `!`) printed at the start of every round, and 15 000 pieces printed without a newline
# at the start of every game (the timeline split its whole buffer again at each piece).  On main
# d3ee52f a grade of it cost minutes of the grader's own CPU; now a line longer than any protocol
# line (1000 characters) is tried by no regex, and a piece without a newline splits nothing.

_reference_game = play_game
_reference_round = play_round


def play_game(num_rounds=NUM_ROUNDS):
    for _ in range(15000):
        print(" ", end="")
    print()
    return _reference_game(num_rounds)


def play_round(scorecard):
    print("A" + " " * 14000 + "!")
    return _reference_round(scorecard)
