_TOTALS = []


def final_score(scorecard):
    """The total; the first one a process asks for crashes (once: one check of P14 pays)."""
    _TOTALS.append(1)
    if len(_TOTALS) == 1: raise RuntimeError("no total yet")
    total = sum(scorecard[category] or 0 for category in CATEGORIES)
    return total + upper_bonus(scorecard) + scorecard[YAHTZEE_BONUS_KEY]


def play_game(num_rounds=NUM_ROUNDS):
    card = new_scorecard()
    return final_score(card)
