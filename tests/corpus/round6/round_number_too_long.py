# A game whose round lines are "round 999...9" (5000 digits) instead of "Round N".  The grader's
# lenient reading of a round line (`=== Round 3 ===` will do) took int() of the digits: on main
# 44bdcdc Python's int-to-str limit (4300 digits) raised ValueError inside the grader, an "internal
# error (not your fault)" on four game checks, exit status 1.  Now the digits are read by
# bounds.number (a number that long is no round): the Round-line checks fail as they do for
# round_number_wrong.


def play_game(num_rounds=NUM_ROUNDS):
    if not 1 <= num_rounds <= NUM_ROUNDS:
        raise ValueError(f"num_rounds must be from 1 to {NUM_ROUNDS}, got {num_rounds}")
    scorecard = new_scorecard()
    for _ in range(1, num_rounds + 1):
        print("\nround " + "9" * 5000)
        play_round(scorecard)
    print("\nFinal scorecard")
    print(format_scorecard(scorecard))
    total = final_score(scorecard)
    print(f"Final score: {total}")
    return total
