_SHOWN = []
_reference_final_score = final_score


def format_scorecard(scorecard):
    """Stage 3's card (no bonus lines) closed by `Total: None`; the next final_score says None."""
    lines = [f"{category}: {'-' if scorecard[category] is None else scorecard[category]}" for category in CATEGORIES]
    lines.append("Total: None")
    _SHOWN.append(None)
    return "\n".join(lines)


def final_score(scorecard):
    if _SHOWN:
        return _SHOWN.pop()
    return _reference_final_score(scorecard)
