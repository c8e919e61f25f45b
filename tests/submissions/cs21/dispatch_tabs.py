"""CS21 HW5: Yahtzee, with a table of slot functions."""

import random
import sys

SLOTS = ["Ones", "Twos", "Threes", "Fours", "Fives", "Sixes", "3/Kind", "4/Kind",
         "Full Hse", "Sm Strt", "Lg Strt", "Chance", "Yahtzee"]
LETTERS = "ABCDE"


def newScores():
    return {slot: None for slot in SLOTS}


def main():
    dielist = roll()
    for _ in range(2):
        showdice(dielist)
        reroll(dielist)
        print()
    showdice(dielist)
    print()
    showscores(dielist)


def _counts(dielist):
    return [dielist.count(face) for face in range(1, 7)]


def sumDice(dielist):
    return sum(dielist)


def sumOfN(dielist, num):
    return sum(d for d in dielist if d == num)


def hasAtLeastN(dielist, n):
    return max(_counts(dielist)) >= n


def hasExactlyN(dielist, n):
    return n in _counts(dielist)


def threeOfAKind(dielist):
    return sumDice(dielist) if hasAtLeastN(dielist, 3) else 0


def fourOfAKind(dielist):
    return sumDice(dielist) if hasAtLeastN(dielist, 4) else 0


def fullHouse(dielist):
    if (hasExactlyN(dielist, 3) and hasExactlyN(dielist, 2)) or hasExactlyN(dielist, 5):
        return 25
    return 0


def _run(dielist, length):
    values = set(dielist)
    return any(all(v in values for v in range(low, low + length)) for low in range(1, 8 - length))


def smallStraight(dielist):
    return 30 if _run(dielist, 4) else 0


def largeStraight(dielist):
    return 40 if _run(dielist, 5) else 0


def yahtzee(dielist):
    return 50 if hasExactlyN(dielist, 5) else 0


SLOT_FUNCTIONS = {
    "Ones": lambda d: sumOfN(d, 1), "Twos": lambda d: sumOfN(d, 2), "Threes": lambda d: sumOfN(d, 3),
    "Fours": lambda d: sumOfN(d, 4), "Fives": lambda d: sumOfN(d, 5), "Sixes": lambda d: sumOfN(d, 6),
    "3/Kind": lambda d: threeOfAKind(d), "4/Kind": lambda d: fourOfAKind(d),
    "Full Hse": lambda d: fullHouse(d), "Sm Strt": lambda d: smallStraight(d),
    "Lg Strt": lambda d: largeStraight(d), "Chance": lambda d: sumDice(d), "Yahtzee": lambda d: yahtzee(d),
}


def roll():
    return [random.randint(1, 6) for _ in LETTERS]


def reroll(dielist):
    while True:
        answer = input("Enter dice to re-roll: ")
        letters = "".join(answer.split()).upper()
        if all(ch in LETTERS for ch in letters):
            break
        print("Please enter only the letters A to E.")
    for index, letter in enumerate(LETTERS):
        if letter in letters:
            dielist[index] = random.randint(1, 6)


def showdice(dielist):
    print("Position:\t" + "\t".join(LETTERS))
    print("Value:\t\t" + "\t".join(str(d) for d in dielist))


def showscores(dielist):
    print("Slot\tPoints")
    for slot in SLOTS:
        print(f"{slot}\t{SLOT_FUNCTIONS[slot](dielist)}")


def slotScore(dielist, slot):
    return SLOT_FUNCTIONS[slot](dielist)


def _key(name):
    return "".join(name.split()).lower()


def chooseSlot(scores):
    by_key = {_key(slot): slot for slot in SLOTS}
    while True:
        slot = by_key.get(_key(input("Choose a slot: ")))
        if slot is None:
            print("There is no such slot.")
        elif scores[slot] is not None:
            print("That slot is already used.")
        else:
            return slot


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
    print(f"({slot} now holds {scores[slot]} points.)")
    return dielist


def upperBonus(scores):
    return 35 if sum(scores[s] or 0 for s in SLOTS[:6]) >= 63 else 0


def yahtzeeBonus(scores, dielist):
    return 100 if scores["Yahtzee"] == 50 and yahtzee(dielist) == 50 else 0


def playGame():
    scores = newScores()
    bonus = 0
    for number in range(1, 14):
        print(f"Round {number}")
        before = dict(scores)
        dielist = playRound(scores)
        bonus += yahtzeeBonus(before, dielist)
        print()
    upper = upperBonus(scores)
    total = sum(scores.values()) + upper + bonus
    print(f"Upper bonus\t{upper}")
    print(f"Yahtzee bonus\t{bonus}")
    print(f"Total\t{total}")
    return total


if __name__ == "__main__":
    if sys.argv[1:] == ["game"]:
        playGame()
    else:
        main()
