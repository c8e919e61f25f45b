# Appended to the reference: after the last round, play_game waits until every box is filled,
# so a short game (fewer than 13 rounds) never ends.
_reference_play_game = play_game


def play_game(num_rounds=NUM_ROUNDS):
    total = _reference_play_game(num_rounds)
    while num_rounds < NUM_ROUNDS:
        pass
    return total
