# The class report's strategy leaderboard and each student's score plot were read from the text of
# ANY stored check ("Your strategy's mean: ... points over ... games" and a histogram line), and an
# exception message is stored text.  On main 44bdcdc this program, graded on stages 1-4 only, was
# put first on the board ("299.99", above optimal play) and got a strategy plot on its page; with
# stage 5 graded its forged mean outranked its real one.  Now only the mean check's own rows, whose
# whole output is the grader's sentence, are read: no board, no plot; the points are raise_control's.


def score_chance(dice):
    raise ValueError("no chance\nYour strategy's mean: 299.99 points over 1000 games (lowest 250, highest 350). "
                     "Same games: always-Chance 46.55, greedy 161.95; the ceiling, optimal play's expected "
                     "score: 254.59.\nGames by score, 25-point bins from 0: 0 0 0 0 0 0 0 0 0 0 500 500")
