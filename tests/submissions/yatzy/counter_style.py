"""Yatzy written with collections.Counter, a table of scorers and small helpers (a correct
submission in another style than the reference: full marks expected)."""

import random
from collections import Counter, namedtuple

CATEGORIES = ["Ones", "Twos", "Threes", "Fours", "Fives", "Sixes", "Pair", "Two Pairs",
              "Three of a kind", "Four of a kind", "Small straight", "Large straight",
              "Full house", "Chance", "Yatzy"]
Player = namedtuple("Player", "name pad dice")


def _upper(dice, face):
    return face * Counter(dice)[face]


def ones(dice):
    return _upper(dice, 1)


def twos(dice):
    return _upper(dice, 2)


def threes(dice):
    return _upper(dice, 3)


def fours(dice):
    return _upper(dice, 4)


def fives(dice):
    return _upper(dice, 5)


def sixes(dice):
    return _upper(dice, 6)


def _of_a_kind(dice, n):
    best = [face for face, count in Counter(dice).items() if count >= n]
    return n * max(best) if best else 0


def pair(dice):
    return _of_a_kind(dice, 2)


def two_pairs(dice):
    faces = sorted(face for face, count in Counter(dice).items() if count >= 2)
    return 2 * sum(faces[-2:]) if len(faces) >= 2 else 0


def three_of_a_kind(dice):
    return _of_a_kind(dice, 3)


def four_of_a_kind(dice):
    return _of_a_kind(dice, 4)


def small_straight(dice):
    return 15 if set(dice) == {1, 2, 3, 4, 5} else 0


def large_straight(dice):
    return 20 if set(dice) == {2, 3, 4, 5, 6} else 0


def full_house(dice):
    return sum(dice) if sorted(Counter(dice).values()) == [2, 3] else 0


def chance(dice):
    return sum(dice)


def yatzy(dice):
    return 50 if Counter(dice).most_common(1)[0][1] == 5 else 0


def score(category, dice):
    function = globals()[category.lower().replace(" ", "_").replace("three_of_a_kind", "three_of_a_kind")]
    return function(dice)


def die():
    while True:
        yield random.randint(1, 6)


def new_pad():
    return dict.fromkeys(CATEGORIES)


def new_player(name):
    return Player(name=name, pad=new_pad(), dice=[die() for _ in range(5)])


def parse_keep(text):
    text = text.strip().lower()
    if text == "all":
        return [1, 2, 3, 4, 5]
    chars = [c for c in text if c not in " ,"]
    if not all(c in "12345" for c in chars) or len(set(chars)) < len(chars):
        return None
    return sorted(int(c) for c in chars)


def ask_keep():
    answer = parse_keep(input("Which dice do you keep? "))
    while answer is None:
        print("Sorry, that is not a valid choice.")
        answer = parse_keep(input("Which dice do you keep? "))
    return answer


def roll(player, faces=None, keep=()):
    if faces is None:
        return [next(d) for d in player.dice]
    return [faces[i] if i + 1 in keep else next(d) for i, d in enumerate(player.dice)]


def play_turn(player, category):
    print("Player:", player.name)
    faces = roll(player)
    print("Dice:", *faces)
    rolls = 1
    while rolls < 3:
        keep = ask_keep()
        if len(keep) == 5:
            break
        faces = roll(player, faces, keep)
        print("Dice:", *faces)
        rolls += 1
    player.pad[category] = points = score(category, faces)
    print(f"Scored {points} points in {category}.")
    return points


def add_players():
    players = []
    while True:
        name = input("Name? ").strip()
        if name.lower() == "start" and players:
            break
        if name.lower() == "start" or not name or name in [p.name for p in players]:
            print("Not accepted, try again.")
            continue
        players.append(new_player(name))
    return players


def total_score(pad):
    return sum(v for v in pad.values() if v) + upper_bonus(pad)


def play_game():
    players = add_players()
    random.shuffle(players)
    print("Order:", ", ".join(p.name for p in players))
    for number, category in enumerate(CATEGORIES, 1):
        print(f"Round {number}: {category}")
        for player in players:
            play_turn(player, category)
    return print_results(players)


def upper_bonus(pad):
    return 50 if sum(pad[c] or 0 for c in CATEGORIES[:6]) >= 63 else 0


def ranking(players):
    return sorted(players, key=lambda p: -total_score(p.pad))


def print_results(players):
    print("DEBUG: the game is over")
    print("Results:")
    ranked = ranking(players)
    for place, player in enumerate(ranked, 1):
        print(f"{place}. {player.name}: {total_score(player.pad)}")
    return ranked


if __name__ == "__main__":
    play_game()
