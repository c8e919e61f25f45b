def final_score(scorecard):
    """An honest slip: the total printed, not returned (None)."""
    total = sum(scorecard[category] or 0 for category in CATEGORIES)
    print(total + upper_bonus(scorecard) + scorecard[YAHTZEE_BONUS_KEY])


def format_scorecard(scorecard):
    """Stage 3's card (no bonus lines); its Total line shows final_score's None."""
    lines = [f"{category}: {'-' if scorecard[category] is None else scorecard[category]}" for category in CATEGORIES]
    lines.append(f"Total: {final_score(scorecard)}")
    return "\n".join(lines)
