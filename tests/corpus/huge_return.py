# Appended to the reference: joker_categories returns ~200 MB of JSON (one string, shared 2000 times).
def joker_categories(dice, scorecard):
    return ["Chance" * 16_000] * 2000
