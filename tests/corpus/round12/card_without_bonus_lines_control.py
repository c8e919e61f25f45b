def format_scorecard(scorecard):
    """Stage 3's card: no bonus lines (the same card as the echo's, with its right total)."""
    lines = [f"{category}: {'-' if scorecard[category] is None else scorecard[category]}" for category in CATEGORIES]
    lines.append(f"Total: {final_score(scorecard)}")
    return "\n".join(lines)
