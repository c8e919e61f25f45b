# Appended to the reference: ask_category asks again whenever anything goes wrong, end of input
# included, and does not accept names typed with underscores (so some scripts run out).
def ask_category(scorecard, allowed):
    while True:
        try:
            text = input("Score this roll in which category? ")
        except BaseException:
            continue
        if "_" in text:
            print("Type the name with spaces, not underscores.")
            continue
        category = find_category(text)
        if category is None:
            print(f"Unknown category {text.strip()!r}. Open: {', '.join(allowed)}.")
        elif scorecard[category] is not None:
            print(f"{category} is already filled ({scorecard[category]}). Choose an open category.")
        elif category not in allowed:
            print(f"The Joker rule does not allow {category} here. Choose from: {', '.join(allowed)}.")
        else:
            return category
