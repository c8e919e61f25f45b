def play_game():
    """One round (the first category) whatever the rules say; then the results."""
    players = add_players()
    random.shuffle(players)
    print("Order: " + ", ".join(player.name for player in players))
    print(f"Round 1: {CATEGORIES[0]}")
    for player in players:
        play_turn(player, CATEGORIES[0])
    return print_results(players)
