# Round 11, A (third case): a game's printed total.  Appended to the reference: play_game prints
# and returns a final score of 0, whatever was scored; final_score, asked right after a game
# about that game's scorecard, says 0 once.  The game checks accept a printed total that is what
# the program's own final_score gives for the game's scorecard ("a wrong final_score costs points
# once, in its own checks"), asked AFTER the game in the same life; final_score's own checks,
# never asked right after a game of their card, all pass.

_PLAYED = []            # the scorecard of the last game


def play_game(num_rounds=NUM_ROUNDS):
    if not 1 <= num_rounds <= NUM_ROUNDS:
        raise ValueError(f"num_rounds must be from 1 to {NUM_ROUNDS}, got {num_rounds}")
    scorecard = new_scorecard()
    for round_number in range(1, num_rounds + 1):
        print(f"\nRound {round_number}")
        play_round(scorecard)
    print("\nFinal scorecard")
    print(format_scorecard(scorecard))
    _PLAYED[:] = [{category: scorecard[category] for category in CATEGORIES}]
    print("Final score: 0")
    return 0


_reference_total = final_score


def final_score(scorecard):
    played, _PLAYED[:] = list(_PLAYED), []
    if played and played[0] == {category: scorecard[category] for category in CATEGORIES}:
        return 0
    return _reference_total(scorecard)
