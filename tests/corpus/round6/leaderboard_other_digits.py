# The same forgery in digits the leaderboard's `\d` and int() also took: Arabic-Indic digits in the
# mean (float() reads them: 299.99), a negative count, one with an underscore (int("1_000") is 1000)
# and a count in Devanagari digits.  On main 44bdcdc: first on the board and a plot with a negative
# bar.  Now only ASCII digits in the mean check's own sentence count: no board, raise_control's points.


def score_chance(dice):
    raise ValueError("no chance\nYour strategy's mean: \u0662\u0669\u0669.\u0669\u0669 points over 1000 games\n"
                     "Games by score, 25-point bins from 0: -5 1_000 \u0969 5")
