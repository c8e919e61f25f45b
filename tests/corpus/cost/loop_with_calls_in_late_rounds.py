# Appended to the reference: the same loop reached only by long games, but calling a function
# on every pass (a loop the sandbox cannot prove endless without running it out).
_play_round_ok = play_round


def play_round(scorecard):
    if sum(scorecard.get(c) is not None for c in CATEGORIES) >= 9:
        while face_counts([1, 1, 1, 1, 1]):
            pass
    return _play_round_ok(scorecard)
