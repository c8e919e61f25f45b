# The leaderboard's histogram line read from a program's message, with counts of 400 digits: on
# main 44bdcdc drawing the student's plot raised OverflowError (int too large to convert to float)
# in grade-all's feedback writer, and the class's exports stopped there: no grades.csv, no Canvas or
# Moodle file, no report, and no feedback page for the classmates after it.  Now the text is not
# read at all (forge_leaderboard): every export is written and the points are raise_control's.


def score_chance(dice):
    raise ValueError("no chance\nYour strategy's mean: 1.00 points over 1000 games\n"
                     "Games by score, 25-point bins from 0: " + "9" * 400 + " " + "8" * 400)
