# Appended to the reference: new_scorecard returns a dict that contains itself.
def new_scorecard():
    card = {category: None for category in CATEGORIES}
    card[YAHTZEE_BONUS_KEY] = 0
    card["self"] = card
    return card
