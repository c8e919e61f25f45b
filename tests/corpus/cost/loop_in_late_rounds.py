# Appended to the reference: a round loops forever (no call in the loop) once nine boxes are
# filled, so only games of ten rounds or more reach it; every other request is answered.
_play_round_ok = play_round


def play_round(scorecard):
    if sum(scorecard.get(c) is not None for c in CATEGORIES) >= 9:
        waiting = True
        while waiting:
            pass
    return _play_round_ok(scorecard)
