"""CS21 Yahtzee: the dice game with the course's camelCase functions.

Starter file: write your code in each region that starts with a
``# BEGIN PROBLEM N`` comment and ends with ``# END PROBLEM N``.  Until you do,
the region raises NotImplementedError naming its problem.  Leave the given code
outside the regions as it is.  The handout (handout-cs21.md) says what each
problem must do.

Play one round (Part One):   python cs21.py
Play the full game:          python cs21.py game
Run the doctests:            python -m doctest cs21.py

Glossary used by every docstring:
    dielist  -- a list of five ints, each 1..6; position A is dielist[0], E is dielist[4]
    slot     -- one of the thirteen names in SLOTS, spelled as showscores prints them
    scores   -- a dict mapping each slot to its points, or None while the slot is open

The rules differ from the kit's main track in one place: five of a kind is also a
full house (fullHouse([5, 5, 5, 5, 5]) is 25).
"""

import random  # noqa: F401 -- roll and reroll use it (the starter's stubs do not yet)
import sys

# ---------------------------------------------------------------------------
# The rules, written once.  Everything below reads these names.
# ---------------------------------------------------------------------------

NUM_DICE = 5
NUM_FACES = 6
LETTERS = "ABCDE"             # die A is dielist[0], ..., die E is dielist[4]
REROLLS_PER_ROUND = 2
NUM_ROUNDS = 13

SLOTS = ["Ones", "Twos", "Threes", "Fours", "Fives", "Sixes", "3/Kind", "4/Kind",
         "Full Hse", "Sm Strt", "Lg Strt", "Chance", "Yahtzee"]
UPPER_SLOTS = SLOTS[:6]

FULL_HOUSE_POINTS = 25
SMALL_STRAIGHT_POINTS = 30
LARGE_STRAIGHT_POINTS = 40
YAHTZEE_POINTS = 50
UPPER_BONUS_THRESHOLD = 63
UPPER_BONUS_POINTS = 35
YAHTZEE_BONUS_POINTS = 100

SMALL_STRAIGHTS = [[1, 2, 3, 4], [2, 3, 4, 5], [3, 4, 5, 6]]
LARGE_STRAIGHTS = [[1, 2, 3, 4, 5], [2, 3, 4, 5, 6]]

REROLL_PROMPT = "Enter dice to re-roll: "
REROLL_REFUSED = "Please enter only the letters A to E."
SLOT_PROMPT = "Choose a slot: "
SLOT_UNKNOWN = "There is no such slot."
SLOT_USED = "That slot is already used."


# ---------------------------------------------------------------------------
# Given code: do not edit.
# ---------------------------------------------------------------------------

def newScores():
    """Return a scores dict with every slot open.

    >>> card = newScores()
    >>> card["Ones"], card["Yahtzee"], len(card)
    (None, None, 13)
    """
    return {slot: None for slot in SLOTS}


def main():
    """Play one round as Part One of the course does: roll, re-roll twice, show the scores.

    Given code (the course provides it): it works once roll, reroll, showdice and
    showscores do.
    """
    dielist = roll()
    for _ in range(REROLLS_PER_ROUND):
        showdice(dielist)
        reroll(dielist)
        print()
    showdice(dielist)
    print()
    showscores(dielist)


# ===========================================================================
# Stage 1: the dice predicates and sums
# ===========================================================================

def sumDice(dielist):
    """Returns the sum of the dice.

    >>> sumDice([1, 2, 3, 4, 5])
    15
    >>> sumDice([2, 2, 5, 2, 3])
    14
    """
    # BEGIN PROBLEM 1
    total = 0
    for die in dielist:
        total = total + die
    return total
    # END PROBLEM 1


def sumOfN(dielist, num):
    """Returns the sum of only those dice whose value is num.

    >>> sumOfN([5, 4, 5, 2, 5], 2)
    2
    >>> sumOfN([5, 4, 5, 2, 5], 3)
    0
    >>> sumOfN([5, 4, 5, 2, 5], 4)
    4
    >>> sumOfN([5, 4, 5, 2, 5], 5)
    15
    """
    # BEGIN PROBLEM 1
    total = 0
    for die in dielist:
        if die == num:
            total = total + die
    return total
    # END PROBLEM 1


def hasAtLeastN(dielist, n):
    """Returns True if the list of dice contain at least n of some value.

    In other words, True if the dice could be described as having 'n' of a kind.

    >>> hasAtLeastN([5, 3, 5, 5, 5], 4)
    True
    >>> hasAtLeastN([5, 3, 5, 5, 5], 3)
    True
    >>> hasAtLeastN([5, 3, 5, 5, 5], 5)
    False
    >>> hasAtLeastN([1, 2, 3, 2, 1], 2)
    True
    """
    # BEGIN PROBLEM 2
    for value in range(1, 7):
        if dielist.count(value) >= n:
            return True
    return False
    # END PROBLEM 2


def hasExactlyN(dielist, n):
    """Returns True if these dice contain exactly 'n' of a particular value.

    Every face 1..6 counts, also the faces that no die shows (so n = 0 is True
    whenever some face is missing).

    >>> hasExactlyN([2, 5, 2, 4, 2], 3)    # exactly three 2's
    True
    >>> hasExactlyN([2, 5, 2, 4, 2], 2)
    False
    >>> hasExactlyN([2, 5, 2, 4, 2], 1)    # exactly one 4 and one 5
    True
    >>> hasExactlyN([2, 5, 2, 4, 2], 0)    # exactly zero 1's, 3's and 6's
    True
    """
    # BEGIN PROBLEM 2
    for value in range(1, 7):
        if dielist.count(value) == n:
            return True
    return False
    # END PROBLEM 2


def threeOfAKind(dielist):
    """Returns the sum of the dice if these dice represent 3 of a kind; otherwise, returns 0.

    Four or five of a kind are three of a kind too.

    >>> threeOfAKind([5, 3, 5, 3, 5])
    21
    >>> threeOfAKind([3, 3, 3, 5, 3])
    17
    >>> threeOfAKind([3, 3, 3, 3, 3])
    15
    >>> threeOfAKind([1, 3, 1, 2, 3])
    0
    """
    # BEGIN PROBLEM 3
    if hasAtLeastN(dielist, 3):
        return sumDice(dielist)
    return 0
    # END PROBLEM 3


def fourOfAKind(dielist):
    """Returns the sum of the dice if these dice represent 4 of a kind; otherwise, returns 0.

    >>> fourOfAKind([5, 3, 5, 5, 5])
    23
    >>> fourOfAKind([3, 3, 3, 5, 3])
    17
    >>> fourOfAKind([3, 3, 3, 3, 3])
    15
    >>> fourOfAKind([1, 3, 1, 3, 3])
    0
    """
    # BEGIN PROBLEM 3
    if hasAtLeastN(dielist, 4):
        return sumDice(dielist)
    return 0
    # END PROBLEM 3


def fullHouse(dielist):
    """Returns 25 if these dice represent a full house; returns 0 otherwise.

    A full house occurs when three of the dice are all of one value and the
    remaining two have the same value.

    >>> fullHouse([4, 4, 4, 5, 5])
    25
    >>> fullHouse([5, 4, 5, 4, 5])
    25
    >>> fullHouse([5, 5, 5, 4, 5])
    0
    >>> fullHouse([3, 3, 1, 3, 1])
    25

    Note that 5 of a kind is considered to be a full house (this course's rule):

    >>> fullHouse([5, 5, 5, 5, 5])
    25
    """
    # BEGIN PROBLEM 4
    if hasExactlyN(dielist, 5):
        return FULL_HOUSE_POINTS
    if hasExactlyN(dielist, 3) and hasExactlyN(dielist, 2):
        return FULL_HOUSE_POINTS
    return 0
    # END PROBLEM 4


def smallStraight(dielist):
    """Returns 30 if these dice have a small straight; otherwise returns 0.

    A small straight is a list of dice which contain any 4 dice with consecutive
    values (1 2 3 4, 2 3 4 5 or 3 4 5 6, in any order; the fifth die is irrelevant).

    >>> smallStraight([1, 2, 3, 4, 5])
    30
    >>> smallStraight([2, 3, 4, 1, 2])
    30
    >>> smallStraight([6, 4, 5, 3, 1])
    30
    >>> smallStraight([6, 4, 5, 2, 1])
    0
    """
    # BEGIN PROBLEM 5
    for straight in SMALL_STRAIGHTS:
        found = True
        for value in straight:
            if value not in dielist:
                found = False
        if found:
            return SMALL_STRAIGHT_POINTS
    return 0
    # END PROBLEM 5


def largeStraight(dielist):
    """Returns 40 if these dice have a large straight; else returns 0.

    A large straight is a list of dice which contain any 5 dice with consecutive
    values (1 2 3 4 5 or 2 3 4 5 6, in any order).

    >>> largeStraight([1, 2, 3, 4, 5])
    40
    >>> largeStraight([6, 4, 5, 2, 3])
    40
    >>> largeStraight([2, 3, 4, 1, 2])
    0
    >>> largeStraight([6, 4, 5, 2, 1])
    0
    """
    # BEGIN PROBLEM 5
    if sorted(dielist) in LARGE_STRAIGHTS:
        return LARGE_STRAIGHT_POINTS
    return 0
    # END PROBLEM 5


def yahtzee(dielist):
    """Returns 50 if these dice represent a Yahtzee (5 of a kind); otherwise returns 0.

    >>> yahtzee([5, 5, 5, 5, 5])
    50
    >>> yahtzee([2, 2, 2, 2, 2])
    50
    >>> yahtzee([2, 1, 2, 2, 2])
    0
    """
    # BEGIN PROBLEM 6
    if hasAtLeastN(dielist, 5):
        return YAHTZEE_POINTS
    return 0
    # END PROBLEM 6


# ===========================================================================
# Stage 2: rolling, re-rolling by letters, showing dice and scores
# ===========================================================================

def roll():
    """Rolls 5 standard 6-sided dice and returns a list of the 5 values.

    The RNG contract: random.randint(1, 6) once per die, A first, E last, and
    no other call of random.  A seeded game is then the same game everywhere.

    >>> random.seed(21)
    >>> dielist = roll()
    >>> len(dielist), all(1 <= die <= 6 for die in dielist)
    (5, True)
    """
    # BEGIN PROBLEM 7
    dielist = []
    for i in range(NUM_DICE):
        dielist.append(random.randint(1, NUM_FACES))
    return dielist
    # END PROBLEM 7


def reroll(dielist):
    """Queries the user as to which dice should be re-rolled and does the re-rolling.

    The prompt is "Enter dice to re-roll: "; the answer names dice by their
    letters A-E, in either case, in any order, spaces allowed ("ABC", "c a",
    or nothing at all for none).  A die named twice is re-rolled once.  An
    answer with any other character prints "Please enter only the letters A to
    E." and asks again, rolling nothing.  Each named die gets
    random.randint(1, 6), in letter order (A before E) whatever the order typed.
    The list is changed in place, so nothing is returned.
    """
    # BEGIN PROBLEM 8
    while True:
        answer = input(REROLL_PROMPT)
        letters = answer.replace(" ", "").upper()
        ok = True
        for ch in letters:
            if ch not in LETTERS:
                ok = False
        if ok:
            break
        print(REROLL_REFUSED)
    for i in range(NUM_DICE):
        if LETTERS[i] in letters:
            dielist[i] = random.randint(1, NUM_FACES)
    # END PROBLEM 8


def showdice(dielist):
    """Displays the current values of the 5 dice.

    >>> showdice([1, 6, 2, 3, 3])
    Position:   A  B  C  D  E
    Value:   1  6  2  3  3
    """
    # BEGIN PROBLEM 9
    print("Position:   A  B  C  D  E")
    line = "Value:  "
    for die in dielist:
        line = line + " " + str(die) + " "
    print(line)
    # END PROBLEM 9


def showscores(dielist):
    """Displays the possible score that the 5 dice would receive in each of the 13 scoring slots.

    >>> showscores([2, 2, 2, 3, 3])
    Slot   Points
    Ones        0
    Twos        6
    Threes        6
    Fours        0
    Fives        0
    Sixes        0
    3/Kind       12
    4/Kind        0
    Full Hse       25
    Sm Strt        0
    Lg Strt        0
    Chance       12
    Yahtzee        0
    """
    # BEGIN PROBLEM 10
    print("Slot   Points")
    for slot in SLOTS:
        print(slot, "      ", slotScore(dielist, slot))
    # END PROBLEM 10


# ===========================================================================
# Stage 3: one round, the slot chosen and scored
# ===========================================================================

def slotScore(dielist, slot):
    """Returns the points these dice would score in SLOT (a name of SLOTS).

    >>> slotScore([2, 2, 2, 3, 3], "Threes")
    6
    >>> slotScore([2, 2, 2, 3, 3], "Full Hse")
    25
    >>> slotScore([5, 4, 6, 2, 3], "Chance")
    20
    >>> slotScore([4, 4, 4, 4, 4], "Full Hse")
    25
    """
    # BEGIN PROBLEM 11
    if slot in UPPER_SLOTS:
        return sumOfN(dielist, UPPER_SLOTS.index(slot) + 1)
    if slot == "3/Kind":
        return threeOfAKind(dielist)
    elif slot == "4/Kind":
        return fourOfAKind(dielist)
    elif slot == "Full Hse":
        return fullHouse(dielist)
    elif slot == "Sm Strt":
        return smallStraight(dielist)
    elif slot == "Lg Strt":
        return largeStraight(dielist)
    elif slot == "Chance":
        return sumDice(dielist)
    elif slot == "Yahtzee":
        return yahtzee(dielist)
    raise KeyError(slot)
    # END PROBLEM 11


def chooseSlot(scores):
    """Asks for an open slot until one is named; returns its name as SLOTS spells it.

    The prompt is "Choose a slot: ".  Case and spaces do not matter ("full hse",
    "FullHse" and "Full Hse" are the same slot).  A name that is no slot prints
    "There is no such slot."; a slot that already holds points prints "That slot
    is already used."; both then ask again.  SCORES is not changed.
    """
    # BEGIN PROBLEM 12
    names = {}
    for slot in SLOTS:
        names[slot.replace(" ", "").lower()] = slot
    while True:
        answer = input(SLOT_PROMPT).replace(" ", "").lower()
        if answer not in names:
            print(SLOT_UNKNOWN)
        elif scores[names[answer]] is not None:
            print(SLOT_USED)
        else:
            return names[answer]
    # END PROBLEM 12


def playRound(scores):
    """Plays one round and scores it: returns the final dice.

    Like main: roll, then twice showdice, reroll and an empty line, then showdice,
    an empty line and showscores; then chooseSlot, and the slot chosen gets
    slotScore of the final dice in SCORES.
    """
    # BEGIN PROBLEM 13
    dielist = roll()
    for i in range(REROLLS_PER_ROUND):
        showdice(dielist)
        reroll(dielist)
        print()
    showdice(dielist)
    print()
    showscores(dielist)
    slot = chooseSlot(scores)
    scores[slot] = slotScore(dielist, slot)
    return dielist
    # END PROBLEM 13


# ===========================================================================
# Stage 4: the full game and its bonuses
# ===========================================================================

def upperBonus(scores):
    """Returns 35 if the slots Ones to Sixes hold 63 points or more, else 0 (open slots count 0).

    >>> card = newScores()
    >>> card.update(Ones=3, Twos=6, Threes=9, Fours=12, Fives=15, Sixes=18)
    >>> upperBonus(card)
    35
    >>> card["Sixes"] = 12
    >>> upperBonus(card)
    0
    """
    # BEGIN PROBLEM 14
    upper = 0
    for slot in UPPER_SLOTS:
        if scores[slot] is not None:
            upper += scores[slot]
    if upper >= UPPER_BONUS_THRESHOLD:
        return UPPER_BONUS_POINTS
    return 0
    # END PROBLEM 14


def yahtzeeBonus(scores, dielist):
    """Returns 100 if DIELIST is a Yahtzee and the Yahtzee slot of SCORES already holds 50, else 0.

    SCORES is the card before this round's slot is scored.  A Yahtzee slot
    scored 0 earns no bonus.

    >>> card = newScores()
    >>> yahtzeeBonus(card, [6, 6, 6, 6, 6])
    0
    >>> card["Yahtzee"] = 50
    >>> yahtzeeBonus(card, [6, 6, 6, 6, 6])
    100
    """
    # BEGIN PROBLEM 15
    if yahtzee(dielist) == YAHTZEE_POINTS and scores["Yahtzee"] == YAHTZEE_POINTS:
        return YAHTZEE_BONUS_POINTS
    return 0
    # END PROBLEM 15


def playGame():
    """Plays the full game: thirteen rounds, then the bonuses and the total; returns the total.

    Each round starts with the line "Round N" and ends with an empty line.  After
    the last round it prints, like showscores prints a slot, the lines
    "Upper bonus", "Yahtzee bonus" and "Total" with their points.
    """
    # BEGIN PROBLEM 16
    scores = newScores()
    bonus = 0
    for r in range(1, NUM_ROUNDS + 1):
        print("Round", r)
        before = dict(scores)
        dielist = playRound(scores)
        bonus = bonus + yahtzeeBonus(before, dielist)
        print()
    upper = upperBonus(scores)
    total = upper + bonus
    for slot in SLOTS:
        total = total + scores[slot]
    print("Upper bonus", "     ", upper)
    print("Yahtzee bonus", "     ", bonus)
    print("Total", "     ", total)
    return total
    # END PROBLEM 16


if __name__ == "__main__":
    if sys.argv[1:] == ["game"]:
        playGame()
    else:
        main()
