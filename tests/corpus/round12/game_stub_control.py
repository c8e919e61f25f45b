def play_game(num_rounds=NUM_ROUNDS):
    card = new_scorecard()
    return final_score(card)
