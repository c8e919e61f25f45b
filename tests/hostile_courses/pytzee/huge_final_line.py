# The final-score line holds a 100,000-digit number and a 20 MB line follows it; play_game also
# returns a list nested 100,000 deep (the reference's game otherwise).
_reference_play = play_game


def play_game(num_rounds):
    _reference_play(num_rounds)
    print("Your final score was " + "9" * 100_000)
    print("x" * 20_000_000)
    value = []
    for _ in range(100_000):
        value = [value]
    return value
