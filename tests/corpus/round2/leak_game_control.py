# Control for leak_game_answers: plays the game, then raises a plain ValueError.
_play = play_game  # noqa: F821


def play_game(num_rounds=NUM_ROUNDS):  # noqa: F821
    _play(num_rounds)
    raise ValueError("after the game")
