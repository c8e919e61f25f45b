"""Yatzy: the Scandinavian dice game of fifteen forced categories, for one player or more.

Starter file: write your code in each region that starts with a
``# BEGIN PROBLEM N`` comment and ends with ``# END PROBLEM N``.  Until you do,
the region raises NotImplementedError naming its problem.  Leave the given code
outside the regions as it is.  The handout (handout-yatzy.md) says what each
problem must do.

Play a game:      python yatzy.py            (or: python yatzy.py SEED)
Run the doctests: python -m doctest yatzy.py

Glossary used by every docstring:
    dice       -- a list of five ints, each 1..6, in position order (position 1 first)
    category   -- one of the fifteen names in CATEGORIES, e.g. "Full house"
    pad        -- a scoring pad: a dict mapping each category to its points (None while open)
    positions  -- dice positions as the player types them: 1..5, left to right
    player     -- a Player namedtuple: (name, pad, dice), where dice holds five die generators

Unlike Yahtzee there is no choice of box: turn N scores category N for every player, and
where the dice fit a category in more than one way (two pairs in a roll scored as Pair),
the highest scoring way counts.
"""

import random
from collections import namedtuple

# ---------------------------------------------------------------------------
# The rules, written once.  Everything below reads these names.
# ---------------------------------------------------------------------------

NUM_DICE = 5
NUM_FACES = 6
ROLLS_PER_TURN = 3           # the first roll plus up to two re-rolls

UPPER_CATEGORIES = ["Ones", "Twos", "Threes", "Fours", "Fives", "Sixes"]
LOWER_CATEGORIES = [
    "Pair", "Two Pairs", "Three of a kind", "Four of a kind",
    "Small straight", "Large straight", "Full house", "Chance", "Yatzy",
]
CATEGORIES = UPPER_CATEGORIES + LOWER_CATEGORIES     # the order of the turns

SMALL_STRAIGHT = [1, 2, 3, 4, 5]
LARGE_STRAIGHT = [2, 3, 4, 5, 6]
SMALL_STRAIGHT_POINTS = 15
LARGE_STRAIGHT_POINTS = 20
YATZY_POINTS = 50
UPPER_BONUS_THRESHOLD = 63
UPPER_BONUS_POINTS = 50

START = "start"              # typed instead of a name: the game begins
NAME_PROMPT = "Player name (or start): "
KEEP_PROMPT = "Keep which dice? (e.g. 1 3 5; Enter re-rolls all; all keeps all): "

# A player: a name, a scoring pad (dict) and the five die generators the player rolls.
Player = namedtuple("Player", ["name", "pad", "dice"])


# ---------------------------------------------------------------------------
# Given code: do not edit.
# ---------------------------------------------------------------------------

def face_counts(dice):
    """Return a dict mapping each face that appears in DICE to how often.

    >>> face_counts([2, 3, 2, 6, 2])
    {2: 3, 3: 1, 6: 1}
    """
    counts = {}
    for face in dice:
        counts[face] = counts.get(face, 0) + 1
    return counts


def format_dice(dice):
    """Return the line that shows DICE: "Dice: " and the five values.

    >>> format_dice([4, 6, 4, 6, 2])
    'Dice: 4 6 4 6 2'
    """
    return "Dice: " + " ".join(str(face) for face in dice)


# Trying your functions by hand (python -i yatzy.py): the try_ functions build a player with
# your new_player and call your functions with it.  The grader calls them too (its own copy).

def try_die(count):
    """Make one die() and roll it COUNT times: {"generator": is it one, "faces": the faces}."""
    generator = die()
    if not (hasattr(generator, "__next__") and hasattr(generator, "send")):
        return {"generator": False, "faces": None}
    return {"generator": True, "faces": [next(generator) for _ in range(count)]}


def try_player(name):
    """new_player(NAME), described as plain data."""
    player = new_player(name)
    return {
        "namedtuple": isinstance(player, tuple) and hasattr(player, "_fields"),
        "fields": list(getattr(player, "_fields", [])),
        "name": player.name,
        "pad": player.pad,
        "dice": [hasattr(d, "__next__") and hasattr(d, "send") for d in player.dice],
        "distinct": len({id(d) for d in player.dice}),
    }


def try_roll(faces=None, keep=(), rolls=1, loaded=None):
    """ROLLS rolls of roll(player, faces, keep) for a new player; the list of their results.

    loaded -- five lists of faces: the player's dice are then generators yielding those
              (die N yields loaded[N-1] in order), instead of new_player's die()s."""
    if loaded is None:
        player = new_player("Tester")
    else:
        player = Player("Tester", new_pad(), [(face for face in faces_of_die) for faces_of_die in loaded])
    results = []
    for _ in range(rolls):
        faces = roll(player, faces, list(keep))
        results.append(faces)
    return results


def try_join():
    """add_players(), described as plain data: the names, in order, and whether every pad is new."""
    players = add_players()
    return {"names": [player.name for player in players],
            "new": [player.pad == new_pad() and len(player.dice) == NUM_DICE for player in players]}


def try_turn(name, category, scored=None):
    """A new player NAME (with the categories of SCORED already scored) plays CATEGORY.

    Returns {"points": what play_turn returned, "pad": the player's pad after it}."""
    player = new_player(name)
    player.pad.update(scored or {})
    points = play_turn(player, category)
    return {"points": points, "pad": player.pad}


def try_ranking(entries):
    """ENTRIES: [name, pad] pairs in playing order; the names as ranking() orders them."""
    return [player.name for player in ranking([Player(name, pad, []) for name, pad in entries])]


def try_results(entries):
    """ENTRIES: [name, pad] pairs in playing order; print_results on them (returns the names)."""
    return [player.name for player in print_results([Player(name, pad, []) for name, pad in entries])]


# ===========================================================================
# Stage 1: the categories.  Pure functions: a list of five dice in, points out.
# ===========================================================================

def ones(dice):
    """Return the points of Ones: 1 for each die showing one.

    >>> ones([1, 3, 1, 5, 1])
    3
    """
    # BEGIN PROBLEM 1
    return dice.count(1) * 1
    # END PROBLEM 1


def twos(dice):
    """Return the points of Twos: 2 for each die showing two.

    >>> twos([2, 3, 2, 5, 1])
    4
    """
    # BEGIN PROBLEM 1
    return dice.count(2) * 2
    # END PROBLEM 1


def threes(dice):
    """Return the points of Threes: 3 for each die showing three.

    >>> threes([1, 3, 3, 5, 3])
    9
    """
    # BEGIN PROBLEM 1
    return dice.count(3) * 3
    # END PROBLEM 1


def fours(dice):
    """Return the points of Fours: 4 for each die showing four.

    >>> fours([4, 4, 4, 4, 4])
    20
    """
    # BEGIN PROBLEM 1
    return dice.count(4) * 4
    # END PROBLEM 1


def fives(dice):
    """Return the points of Fives: 5 for each die showing five.

    >>> fives([1, 2, 3, 4, 6])    # no fives: the category still takes 0
    0
    """
    # BEGIN PROBLEM 1
    return dice.count(5) * 5
    # END PROBLEM 1


def sixes(dice):
    """Return the points of Sixes: 6 for each die showing six.

    >>> sixes([6, 2, 6, 2, 2])
    12
    """
    # BEGIN PROBLEM 1
    return dice.count(6) * 6
    # END PROBLEM 1


def pair(dice):
    """Return the points of Pair: the two dice of the highest pair added together.

    Two dice showing the same face make a pair; three or more alike hold one too.
    With two pairs to choose from, the higher one counts.

    >>> pair([3, 3, 5, 5, 1])     # 3 3 or 5 5: the higher pair
    10
    >>> pair([2, 2, 2, 6, 1])
    4
    >>> pair([1, 2, 3, 4, 6])
    0
    """
    # BEGIN PROBLEM 2
    # look from the top face down: the first face with two dice is the best pair
    for face in range(6, 0, -1):
        if dice.count(face) >= 2:
            return face * 2
    return 0
    # END PROBLEM 2


def two_pairs(dice):
    """Return the points of Two Pairs: two pairs of DIFFERENT faces, the four dice added.

    Three alike and two alike hold two pairs; four alike do not (one face only).

    >>> two_pairs([3, 3, 5, 5, 1])
    16
    >>> two_pairs([2, 2, 2, 6, 6])   # 2 2 and 6 6
    16
    >>> two_pairs([4, 4, 4, 4, 1])   # the same face twice is not two pairs
    0
    """
    # BEGIN PROBLEM 2
    faces = []
    for face in range(6, 0, -1):
        if dice.count(face) >= 2:
            faces.append(face)
    if len(faces) >= 2:
        return faces[0] * 2 + faces[1] * 2
    return 0
    # END PROBLEM 2


def three_of_a_kind(dice):
    """Return the points of Three of a kind: three dice showing the same face, added.

    Only those three count, not the other two dice; four or five alike hold three.

    >>> three_of_a_kind([4, 4, 4, 2, 6])
    12
    >>> three_of_a_kind([5, 5, 5, 5, 1])
    15
    >>> three_of_a_kind([4, 4, 2, 2, 6])
    0
    """
    # BEGIN PROBLEM 3
    for face in range(6, 0, -1):
        if dice.count(face) >= 3:
            return face * 3
    return 0
    # END PROBLEM 3


def four_of_a_kind(dice):
    """Return the points of Four of a kind: four dice showing the same face, added.

    >>> four_of_a_kind([2, 2, 2, 2, 6])
    8
    >>> four_of_a_kind([6, 6, 6, 6, 6])
    24
    >>> four_of_a_kind([3, 3, 3, 5, 5])
    0
    """
    # BEGIN PROBLEM 3
    for face in range(6, 0, -1):
        if dice.count(face) >= 4:
            return face * 4
    return 0
    # END PROBLEM 3


def small_straight(dice):
    """Return the points of Small straight: 15 for exactly 1, 2, 3, 4, 5 in any order.

    >>> small_straight([5, 3, 1, 2, 4])
    15
    >>> small_straight([2, 3, 4, 5, 6])   # that is the large straight
    0
    """
    # BEGIN PROBLEM 4
    if sorted(dice) == SMALL_STRAIGHT:
        return SMALL_STRAIGHT_POINTS
    return 0
    # END PROBLEM 4


def large_straight(dice):
    """Return the points of Large straight: 20 for exactly 2, 3, 4, 5, 6 in any order.

    >>> large_straight([6, 2, 5, 3, 4])
    20
    >>> large_straight([1, 2, 3, 4, 5])
    0
    """
    # BEGIN PROBLEM 4
    if sorted(dice) == LARGE_STRAIGHT:
        return LARGE_STRAIGHT_POINTS
    return 0
    # END PROBLEM 4


def full_house(dice):
    """Return the points of Full house: three of one face and a pair of ANOTHER, all five added.

    >>> full_house([2, 2, 5, 5, 5])
    19
    >>> full_house([4, 4, 4, 4, 4])   # five alike: no pair of another face
    0
    >>> full_house([3, 3, 3, 3, 6])
    0
    """
    # BEGIN PROBLEM 5
    counts = sorted(face_counts(dice).values())
    if counts == [2, 3]:
        return sum(dice)
    return 0
    # END PROBLEM 5


def chance(dice):
    """Return the points of Chance: all five dice added.

    >>> chance([1, 3, 6, 6, 2])
    18
    """
    # BEGIN PROBLEM 6
    total = 0
    for d in dice:
        total += d
    return total
    # END PROBLEM 6


def yatzy(dice):
    """Return the points of Yatzy: 50 when all five dice show the same face.

    >>> yatzy([3, 3, 3, 3, 3])
    50
    >>> yatzy([3, 3, 3, 3, 1])
    0
    """
    # BEGIN PROBLEM 6
    if len(set(dice)) == 1:
        return YATZY_POINTS
    return 0
    # END PROBLEM 6


def score(category, dice):
    """Return the points DICE make in CATEGORY (its function above); KeyError for an unknown one.

    >>> score("Two Pairs", [6, 6, 1, 1, 3])
    14
    >>> score("Yatzy", [2, 2, 2, 2, 2])
    50
    """
    # BEGIN PROBLEM 6
    functions = {
        "Ones": ones, "Twos": twos, "Threes": threes, "Fours": fours, "Fives": fives, "Sixes": sixes,
        "Pair": pair, "Two Pairs": two_pairs, "Three of a kind": three_of_a_kind,
        "Four of a kind": four_of_a_kind, "Small straight": small_straight,
        "Large straight": large_straight, "Full house": full_house, "Chance": chance, "Yatzy": yatzy,
    }
    return functions[category](dice)
    # END PROBLEM 6


# ===========================================================================
# Stage 2: a die, a player, one turn.
# ===========================================================================

def die():
    """A die: a generator that yields a new face, random.randint(1, 6), every time it is asked.

    It never ends: next(d) rolls it once more.

    >>> random.seed(1)
    >>> d = die()
    >>> [next(d) for _ in range(4)]
    [2, 5, 1, 3]
    """
    # BEGIN PROBLEM 7
    while True:
        yield random.randint(1, NUM_FACES)
    # END PROBLEM 7


def new_pad():
    """Return an empty scoring pad: every category, in order, with None (not scored yet).

    >>> pad = new_pad()
    >>> list(pad)[:3], pad["Yatzy"], len(pad)
    (['Ones', 'Twos', 'Threes'], None, 15)
    """
    # BEGIN PROBLEM 8
    pad = {}
    for category in CATEGORIES:
        pad[category] = None
    return pad
    # END PROBLEM 8


def new_player(name):
    """Return a Player named NAME with an empty pad and five dice of their own (five die()s).

    >>> ann = new_player("Ann")
    >>> ann.name, ann.pad == new_pad(), len(ann.dice)
    ('Ann', True, 5)
    """
    # BEGIN PROBLEM 8
    dice = [die() for _ in range(NUM_DICE)]
    return Player(name, new_pad(), dice)
    # END PROBLEM 8


def parse_keep(text):
    """Return the positions (1..5, ascending) that the answer TEXT keeps, or None when invalid.

    Positions may be written with or without spaces or commas; "all" keeps all five; an
    empty answer keeps none (all five are re-rolled).  Case and outer spaces do not matter.
    A position outside 1..5, a position given twice, or anything else is invalid.

    >>> parse_keep("3 1 5")
    [1, 3, 5]
    >>> parse_keep("24")
    [2, 4]
    >>> parse_keep(" ALL ")
    [1, 2, 3, 4, 5]
    >>> parse_keep("")
    []
    >>> parse_keep("1 1") is None, parse_keep("6") is None, parse_keep("two") is None
    (True, True, True)
    """
    # BEGIN PROBLEM 9
    text = text.strip().lower()
    if text == "all":
        return [1, 2, 3, 4, 5]
    positions = []
    for ch in text:
        if ch in " ,":
            continue
        if ch not in "12345":
            return None
        pos = int(ch)
        if pos in positions:
            return None
        positions.append(pos)
    return sorted(positions)
    # END PROBLEM 9


def ask_keep():
    """Ask which dice to keep until the answer is valid; return its positions (parse_keep).

    An invalid answer prints a message and asks again (it never rolls a die).
    """
    # BEGIN PROBLEM 9
    while True:
        answer = input(KEEP_PROMPT)
        keep = parse_keep(answer)
        if keep is not None:
            return keep
        print("Type the positions (1 to 5) of the dice to keep, e.g. 1 3 5; all keeps all.")
    # END PROBLEM 9


def roll(player, faces=None, keep=()):
    """Roll PLAYER's dice and return the five new faces.

    faces -- the faces before this roll, or None for the first roll of a turn (all five roll)
    keep  -- the positions (1..5) that keep their face; every other die is rolled, once,
             with next() on that die's own generator, in position order (left to right)

    >>> random.seed(1)
    >>> roll(new_player("Ann"))
    [2, 5, 1, 3, 1]
    >>> random.seed(1)
    >>> roll(new_player("Bo"), [6, 6, 6, 6, 6], [1, 3, 5])     # positions 2 and 4 roll
    [6, 2, 6, 5, 6]
    """
    # BEGIN PROBLEM 10
    new = []
    for position in range(1, NUM_DICE + 1):
        if faces is not None and position in keep:
            new.append(faces[position - 1])
        else:
            new.append(next(player.dice[position - 1]))
    return new
    # END PROBLEM 10


def play_turn(player, category):
    """Play PLAYER's turn at CATEGORY; write its points on the player's pad and return them.

    Prints "Player: NAME", then "Dice: ..." after every roll.  After the first and the second
    roll it asks which dice to keep; keeping all five ends the rolling.  Then it scores the
    dice in CATEGORY (the best way, score()) and prints "Scored N points in CATEGORY."
    """
    # BEGIN PROBLEM 11
    print("Player: " + player.name)
    dice = roll(player)
    print(format_dice(dice))
    for _ in range(ROLLS_PER_TURN - 1):
        keep = ask_keep()
        if len(keep) == NUM_DICE:
            break
        dice = roll(player, dice, keep)
        print(format_dice(dice))
    points = score(category, dice)
    player.pad[category] = points
    print(f"Scored {points} points in {category}.")
    return points
    # END PROBLEM 11


# ===========================================================================
# Stage 3: totals, the upper bonus and the ranking.
# ===========================================================================

def total_score(pad):
    """Return the total of PAD: every scored category (open ones count 0) plus the upper bonus.

    >>> pad = new_pad()
    >>> pad.update({"Pair": 12, "Chance": 20})
    >>> total_score(pad)
    32
    """
    # BEGIN PROBLEM 12
    total = 0
    for category in CATEGORIES:
        if pad[category] is not None:
            total += pad[category]
    return total + upper_bonus(pad)
    # END PROBLEM 12


def upper_bonus(pad):
    """Return 50 when Ones..Sixes on PAD add up to 63 or more, else 0 (open ones count 0).

    >>> pad = new_pad()
    >>> pad.update({"Ones": 3, "Twos": 6, "Threes": 9, "Fours": 12, "Fives": 15, "Sixes": 18})
    >>> upper_bonus(pad)
    50
    >>> pad["Sixes"] = 12
    >>> upper_bonus(pad)
    0
    """
    # BEGIN PROBLEM 13
    upper = sum(pad[c] for c in UPPER_CATEGORIES if pad[c] is not None)
    if upper >= UPPER_BONUS_THRESHOLD:
        return UPPER_BONUS_POINTS
    return 0
    # END PROBLEM 13


def ranking(players):
    """Return PLAYERS sorted by total_score, highest first; equal totals keep their order.

    >>> pads = [dict(new_pad(), Chance=10), dict(new_pad(), Chance=30), dict(new_pad(), Chance=10)]
    >>> [p.name for p in ranking([Player("Ann", pads[0], []), Player("Bo", pads[1], []),
    ...                           Player("Cy", pads[2], [])])]
    ['Bo', 'Ann', 'Cy']
    """
    # BEGIN PROBLEM 14
    return sorted(players, key=lambda p: total_score(p.pad), reverse=True)
    # END PROBLEM 14


def print_results(players):
    """Print "Results:" and one line "N. NAME: TOTAL" per player, winner first; return them so.

    N is the line's place, 1 first (players with equal totals get consecutive numbers,
    in ranking() order).
    """
    # BEGIN PROBLEM 15
    ranked = ranking(players)
    print("Results:")
    for place, player in enumerate(ranked, start=1):
        print(f"{place}. {player.name}: {total_score(player.pad)}")
    return ranked
    # END PROBLEM 15


# ===========================================================================
# Stage 4: the whole game.
# ===========================================================================

def add_players():
    """Ask for player names until the answer is "start"; return the new Players in that order.

    Names lose their outer spaces.  An empty name, a name already taken, or "start" before
    anyone joined prints a message and asks again.  "start" forgives case and outer spaces.
    """
    # BEGIN PROBLEM 16
    players = []
    names = []
    while True:
        name = input(NAME_PROMPT).strip()
        if name.lower() == START:
            if not players:
                print("At least one player must join first.")
                continue
            return players
        if name == "":
            print("A name cannot be empty.")
        elif name in names:
            print(name + " has already joined.")
        else:
            names.append(name)
            players.append(new_player(name))
    # END PROBLEM 16


def play_game():
    """Play a whole game of Yatzy and return the players, winner first (ranking()).

    Players join (add_players), then their order is shuffled with ONE call
    random.shuffle(players); "Order: " and the names, comma-separated, show it.  Then
    fifteen rounds, one per category in order, each announced as "Round N: CATEGORY", in
    which every player plays a turn (play_turn).  At the end, print_results.
    """
    # BEGIN PROBLEM 17
    players = add_players()
    random.shuffle(players)
    print("Order: " + ", ".join(p.name for p in players))
    for number, category in enumerate(CATEGORIES, 1):
        print(f"Round {number}: {category}")
        for player in players:
            play_turn(player, category)
    return print_results(players)
    # END PROBLEM 17


if __name__ == "__main__":
    import sys

    if len(sys.argv) > 1:
        random.seed(int(sys.argv[1]))   # a seeded game replays exactly
    try:
        play_game()
    except (EOFError, KeyboardInterrupt):
        print("\nGame stopped.")
