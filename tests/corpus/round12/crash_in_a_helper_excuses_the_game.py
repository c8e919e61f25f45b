_MADE = []


def new_scorecard():
    """A card; the first one a process asks for is refused (once: one check of P13 pays)."""
    _MADE.append(1)
    if len(_MADE) == 1: raise RuntimeError("no card yet")
    card = {category: None for category in CATEGORIES}
    card[YAHTZEE_BONUS_KEY] = 0
    return card


def play_game(num_rounds=NUM_ROUNDS):
    card = new_scorecard()
    return final_score(card)
