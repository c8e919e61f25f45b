def final_score(scorecard):
    """An honest slip: the total printed, not returned (None); the card is the reference's."""
    total = sum(scorecard[category] or 0 for category in CATEGORIES)
    print(total + upper_bonus(scorecard) + scorecard[YAHTZEE_BONUS_KEY])
