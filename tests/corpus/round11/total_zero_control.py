# Round 11, A's third control: the same game that prints and returns a final score of 0, the
# reference's final_score (no memory).

def play_game(num_rounds=NUM_ROUNDS):
    if not 1 <= num_rounds <= NUM_ROUNDS:
        raise ValueError(f"num_rounds must be from 1 to {NUM_ROUNDS}, got {num_rounds}")
    scorecard = new_scorecard()
    for round_number in range(1, num_rounds + 1):
        print(f"\nRound {round_number}")
        play_round(scorecard)
    print("\nFinal scorecard")
    print(format_scorecard(scorecard))
    print("Final score: 0")
    return 0
