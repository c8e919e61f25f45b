def play_game(num_rounds=NUM_ROUNDS):
    """At most three rounds, whatever NUM_ROUNDS says; then the card and the final score."""
    if not 1 <= num_rounds <= NUM_ROUNDS:
        raise ValueError(f"num_rounds must be from 1 to {NUM_ROUNDS}, got {num_rounds}")
    scorecard = new_scorecard()
    for round_number in range(1, min(num_rounds, 3) + 1):
        print(f"\nRound {round_number}")
        play_round(scorecard)
    print("\nFinal scorecard")
    print(format_scorecard(scorecard))
    total = final_score(scorecard)
    print(f"Final score: {total}")
    return total
