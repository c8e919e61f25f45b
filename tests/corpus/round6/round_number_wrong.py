# Control for round_number_too_long: the round lines say "round 99999" (a wrong round number of
# five digits): what a game whose rounds do not start with their `Round N` line scores.


def play_game(num_rounds=NUM_ROUNDS):
    if not 1 <= num_rounds <= NUM_ROUNDS:
        raise ValueError(f"num_rounds must be from 1 to {NUM_ROUNDS}, got {num_rounds}")
    scorecard = new_scorecard()
    for _ in range(1, num_rounds + 1):
        print("\nround " + "9" * 5)
        play_round(scorecard)
    print("\nFinal scorecard")
    print(format_scorecard(scorecard))
    total = final_score(scorecard)
    print(f"Final score: {total}")
    return total
