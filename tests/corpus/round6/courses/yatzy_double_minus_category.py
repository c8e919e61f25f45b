# yatzy: play_game prints an extra line "Round 1: --5" after each round's own line.


def play_game():
    players = add_players()
    random.shuffle(players)
    print("Order: " + ", ".join(player.name for player in players))
    for number, category in enumerate(CATEGORIES, start=1):
        print(f"Round {number}: {category}")
        print("Round 1: --5")
        for player in players:
            play_turn(player, category)
    return print_results(players)
