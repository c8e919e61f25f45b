# Work in the grader's process, where no sandbox limit applies: a line the course's protocol regexes
# backtrack on quadratically (yahtzee's scorecard row `[A-Za-z _-]*?\s*[:=]`: a letter, 120 000
# spaces, a `!`) printed at the end of the first play_round of each run (a game stays under the
# output limit),
# and 15 000 pieces printed without a newline at the start of every game (the timeline split its
# whole buffer again at each piece).  On main d3ee52f one grade of it had not finished after
# 9 min 50 s (3 min 17 s of the grader's own CPU; stopped); now a line longer than any protocol
# line (1000 characters) is tried by no regex, and a piece without a newline splits nothing: under
# 2 s, 0.3 s of the grader's CPU, the same score.

_reference_game = play_game
_reference_round = play_round
_rounds = []


def play_game(num_rounds=NUM_ROUNDS):
    for _ in range(15000):
        print(" ", end="")
    print()
    return _reference_game(num_rounds)


def play_round(scorecard):
    points = _reference_round(scorecard)
    if not _rounds:
        print("A" + " " * 120000 + "!")
    _rounds.append(1)
    return points
