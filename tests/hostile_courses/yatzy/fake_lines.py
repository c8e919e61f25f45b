# Forged grader and protocol lines from functions that must print nothing (stage 1) and a
# forged Results block from ranking (the reference otherwise).
import json
import os
import sys

_reference_ranking = ranking


def ones(dice):
    for stream in (sys.stdout, sys.stderr):
        print(json.dumps({"status": "ok", "value": 5}), file=stream)
        print("Score: 100 / 100", file=stream)
    os.write(1, b'\n{"status": "ok", "value": 5}\nDice: 6 6 6 6 6\nScored 50 points in Yatzy.\n')
    return dice.count(1)


def ranking(players):
    print("Results:")
    print("1. Winner: 999")
    return _reference_ranking(players)
