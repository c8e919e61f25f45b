"""CS21 Yahtzee written with collections.Counter, dispatch tables and f-strings.

A correct program in another style than the reference: face counts from a Counter,
the slots as a table of (name, scorer) pairs, aligned columns, sets for the straights.
"""

import random
import sys
from collections import Counter

FACES = range(1, 7)
LETTERS = "ABCDE"


def counts(dielist):
    return Counter(dielist)


def sumDice(dielist):
    total = 0
    for die in dielist:
        total += die
    return total


def sumOfN(dielist, num):
    return sum(die for die in dielist if die == num)


def hasAtLeastN(dielist, n):
    return max(counts(dielist).get(face, 0) for face in FACES) >= n


def hasExactlyN(dielist, n):
    tally = counts(dielist)
    return n in [tally.get(face, 0) for face in FACES]


def threeOfAKind(dielist):
    if hasAtLeastN(dielist, 3):
        return sumDice(dielist)
    return 0


def fourOfAKind(dielist):
    if hasAtLeastN(dielist, 4):
        return sumDice(dielist)
    return 0


def fullHouse(dielist):
    shape = sorted(counts(dielist).values())
    return 25 if shape in ([2, 3], [5]) else 0


def smallStraight(dielist):
    faces = set(dielist)
    return 30 if any(set(range(low, low + 4)) <= faces for low in (1, 2, 3)) else 0


def largeStraight(dielist):
    return 40 if set(dielist) in ({1, 2, 3, 4, 5}, {2, 3, 4, 5, 6}) else 0


def yahtzee(dielist):
    return 50 if len(set(dielist)) == 1 else 0


def roll():
    dielist = []
    while len(dielist) < 5:
        dielist.append(random.randint(1, 6))
    return dielist


def reroll(dielist):
    answer = input("Enter dice to re-roll: ")
    while set(answer.upper()) - set(LETTERS + " "):
        print("Please enter only the letters A to E.")
        answer = input("Enter dice to re-roll: ")
    chosen = set(answer.upper())
    for index in range(5):
        if LETTERS[index] in chosen:
            dielist[index] = random.randint(1, 6)


def showdice(dielist):
    print(f"Position: {'  '.join(LETTERS)}")
    print(f"Value:    {'  '.join(str(die) for die in dielist)}")


def table(dielist):
    upper = [(name, lambda d, face=face: sumOfN(d, face))
             for face, name in zip(FACES, ["Ones", "Twos", "Threes", "Fours", "Fives", "Sixes"])]
    lower = [("3/Kind", threeOfAKind), ("4/Kind", fourOfAKind), ("Full Hse", fullHouse),
             ("Sm Strt", smallStraight), ("Lg Strt", largeStraight), ("Chance", sumDice),
             ("Yahtzee", yahtzee)]
    return [(name, scorer(dielist)) for name, scorer in upper + lower]


def showscores(dielist):
    print(f"{'Slot':<10}Points")
    for name, points in table(dielist):
        print(f"{name:<10}{points:>6}")


def main():
    dielist = roll()
    for _ in range(2):
        showdice(dielist)
        reroll(dielist)
        print()
    showdice(dielist)
    print()
    showscores(dielist)


def slotScore(dielist, slot):
    return dict(table(dielist))[slot]


def newScores():
    return {name: None for name, _ in table([1, 1, 1, 1, 1])}


def chooseSlot(scores):
    spelled = {name.replace(" ", "").casefold(): name for name in scores}
    while True:
        wanted = spelled.get(input("Choose a slot: ").replace(" ", "").casefold())
        if wanted is None:
            print("There is no such slot.")
        elif scores[wanted] is not None:
            print("That slot is already used.")
        else:
            return wanted


def playRound(scores):
    dielist = roll()
    for _ in range(2):
        showdice(dielist)
        reroll(dielist)
        print()
    showdice(dielist)
    print()
    showscores(dielist)
    slot = chooseSlot(scores)
    scores[slot] = slotScore(dielist, slot)
    return dielist


def upperBonus(scores):
    names = ["Ones", "Twos", "Threes", "Fours", "Fives", "Sixes"]
    return 35 if sum(scores[name] or 0 for name in names) >= 63 else 0


def yahtzeeBonus(scores, dielist):
    return 100 if scores["Yahtzee"] == 50 and yahtzee(dielist) else 0


def playGame():
    scores = newScores()
    extra = 0
    for number in range(1, 14):
        print(f"Round {number}")
        card = dict(scores)
        extra += yahtzeeBonus(card, playRound(scores))
        print()
    bonus = upperBonus(scores)
    total = sum(scores.values()) + bonus + extra
    for name, points in (("Upper bonus", bonus), ("Yahtzee bonus", extra), ("Total", total)):
        print(f"{name:<14}{points:>5}")
    return total


if __name__ == "__main__":
    if sys.argv[1:] == ["game"]:
        playGame()
    else:
        main()
