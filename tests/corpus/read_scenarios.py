# Appended to the reference: score_chance tries to read the scenario files and prints them
# (a student hoping to see the hidden games), then scores as the reference does.
import os


def score_chance(dice):
    folder = "@REPO@/autograder/assignments/yahtzee/scenarios"
    try:
        for name in os.listdir(folder):
            with open(os.path.join(folder, name)) as f:
                print(f.read())
    except OSError as err:
        print(f"no scenarios: {type(err).__name__}")
    return sum(dice)
