# Yatzy with plain loops and if-chains, no helpers from collections (a correct submission in
# another style than the reference: full marks expected).
import random
import collections

Player = collections.namedtuple("Player", ["name", "pad", "dice"])
ORDER = ["Ones", "Twos", "Threes", "Fours", "Fives", "Sixes", "Pair", "Two Pairs", "Three of a kind",
         "Four of a kind", "Small straight", "Large straight", "Full house", "Chance", "Yatzy"]


def count(dice, face):
    n = 0
    for d in dice:
        if d == face:
            n = n + 1
    return n


def ones(dice):
    return count(dice, 1) * 1


def twos(dice):
    return count(dice, 2) * 2


def threes(dice):
    return count(dice, 3) * 3


def fours(dice):
    return count(dice, 4) * 4


def fives(dice):
    return count(dice, 5) * 5


def sixes(dice):
    return count(dice, 6) * 6


def pair(dice):
    face = 6
    while face >= 1:
        if count(dice, face) >= 2:
            return face * 2
        face = face - 1
    return 0


def two_pairs(dice):
    found = []
    for face in range(6, 0, -1):
        if count(dice, face) >= 2:
            found.append(face)
    if len(found) < 2:
        return 0
    return found[0] * 2 + found[1] * 2


def three_of_a_kind(dice):
    for face in range(1, 7):
        if count(dice, face) >= 3:
            return face * 3
    return 0


def four_of_a_kind(dice):
    for face in range(1, 7):
        if count(dice, face) >= 4:
            return face * 4
    return 0


def small_straight(dice):
    for face in range(1, 6):
        if count(dice, face) != 1:
            return 0
    return 15


def large_straight(dice):
    for face in range(2, 7):
        if count(dice, face) != 1:
            return 0
    return 20


def full_house(dice):
    three = two = False
    for face in range(1, 7):
        if count(dice, face) == 3:
            three = True
        elif count(dice, face) == 2:
            two = True
    if three and two:
        return sum(dice)
    return 0


def chance(dice):
    total = 0
    for d in dice:
        total += d
    return total


def yatzy(dice):
    if count(dice, dice[0]) == 5:
        return 50
    return 0


def score(category, dice):
    if category == "Ones":
        return ones(dice)
    elif category == "Twos":
        return twos(dice)
    elif category == "Threes":
        return threes(dice)
    elif category == "Fours":
        return fours(dice)
    elif category == "Fives":
        return fives(dice)
    elif category == "Sixes":
        return sixes(dice)
    elif category == "Pair":
        return pair(dice)
    elif category == "Two Pairs":
        return two_pairs(dice)
    elif category == "Three of a kind":
        return three_of_a_kind(dice)
    elif category == "Four of a kind":
        return four_of_a_kind(dice)
    elif category == "Small straight":
        return small_straight(dice)
    elif category == "Large straight":
        return large_straight(dice)
    elif category == "Full house":
        return full_house(dice)
    elif category == "Chance":
        return chance(dice)
    elif category == "Yatzy":
        return yatzy(dice)
    raise KeyError(category)


def die():
    while True:
        value = random.randint(1, 6)
        yield value


def new_pad():
    pad = {}
    for category in ORDER:
        pad[category] = None
    return pad


def new_player(name):
    dice = []
    for _ in range(5):
        dice.append(die())
    return Player(name, new_pad(), dice)


def parse_keep(text):
    text = text.strip()
    if text.lower() == "all":
        return [1, 2, 3, 4, 5]
    result = []
    for ch in text:
        if ch == " " or ch == ",":
            continue
        if ch not in "12345":
            return None
        if int(ch) in result:
            return None
        result.append(int(ch))
    result.sort()
    return result


def ask_keep():
    while True:
        answer = input("Keep (positions, all, or Enter for none)> ")
        keep = parse_keep(answer)
        if keep is None:
            print("Invalid: " + answer)
        else:
            return keep


def roll(player, faces=None, keep=()):
    result = []
    for i in range(5):
        if faces is not None and (i + 1) in keep:
            result.append(faces[i])
        else:
            result.append(next(player.dice[i]))
    return result


def play_turn(player, category):
    print("Player: " + player.name)
    faces = roll(player)
    print("Dice: " + " ".join(str(f) for f in faces))
    keep = ask_keep()
    if len(keep) < 5:
        faces = roll(player, faces, keep)
        print("Dice: " + " ".join(str(f) for f in faces))
        keep = ask_keep()
        if len(keep) < 5:
            faces = roll(player, faces, keep)
            print("Dice: " + " ".join(str(f) for f in faces))
    points = score(category, faces)
    player.pad[category] = points
    print("Scored " + str(points) + " points in " + category + ".")
    return points


def add_players():
    players = []
    names = []
    while True:
        name = input("Who plays? (start to begin) ").strip()
        if name.lower() == "start":
            if len(players) > 0:
                return players
            print("Nobody has joined yet.")
        elif name == "":
            print("Please type a name.")
        elif name in names:
            print("That name is taken.")
        else:
            names.append(name)
            players.append(new_player(name))


def upper_bonus(pad):
    upper = 0
    for category in ORDER[:6]:
        if pad[category] is not None:
            upper += pad[category]
    if upper >= 63:
        return 50
    return 0


def total_score(pad):
    total = upper_bonus(pad)
    for category in pad:
        if pad[category] is not None:
            total += pad[category]
    return total


def ranking(players):
    ranked = list(players)
    # insertion sort, highest first; equal totals keep their order
    for i in range(1, len(ranked)):
        j = i
        while j > 0 and total_score(ranked[j - 1].pad) < total_score(ranked[j].pad):
            ranked[j - 1], ranked[j] = ranked[j], ranked[j - 1]
            j -= 1
    return ranked


def print_results(players):
    ranked = ranking(players)
    print()
    print("Results:")
    place = 1
    for player in ranked:
        print(str(place) + ". " + player.name + ": " + str(total_score(player.pad)))
        place += 1
    return ranked


def play_game():
    players = add_players()
    random.shuffle(players)
    print("Order: " + ", ".join([p.name for p in players]))
    round_number = 0
    for category in ORDER:
        round_number += 1
        print("Round " + str(round_number) + ": " + category)
        for player in players:
            play_turn(player, category)
    return print_results(players)


if __name__ == "__main__":
    play_game()
