# CS21 HW5 Yahtzee
# by a student

import random
import sys

SLOTS = ["Ones", "Twos", "Threes", "Fours", "Fives", "Sixes", "3/Kind", "4/Kind",
         "Full Hse", "Sm Strt", "Lg Strt", "Chance", "Yahtzee"]

yahtzee_bonus_total = 0


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


def sumDice(dielist):
    total = 0
    for i in range(len(dielist)):
        total = total + dielist[i]
    return total


def sumOfN(dielist, num):
    total = 0
    for i in range(len(dielist)):
        if dielist[i] == num:
            total = total + num
    return total


def hasAtLeastN(dielist, n):
    for value in range(1, 7):
        count = 0
        for die in dielist:
            if die == value:
                count = count + 1
        if count >= n:
            return True
    return False


def hasExactlyN(dielist, n):
    for value in range(1, 7):
        count = 0
        for die in dielist:
            if die == value:
                count = count + 1
        if count == n:
            return True
    return False


def threeOfAKind(dielist):
    if hasAtLeastN(dielist, 3):
        return sumDice(dielist)
    return 0


def fourOfAKind(dielist):
    if hasAtLeastN(dielist, 4):
        return sumDice(dielist)
    return 0


def fullHouse(dielist):
    if hasAtLeastN(dielist, 5):
        return 25
    if hasExactlyN(dielist, 3) and hasExactlyN(dielist, 2):
        return 25
    return 0


def smallStraight(dielist):
    if 1 in dielist and 2 in dielist and 3 in dielist and 4 in dielist:
        return 30
    if 2 in dielist and 3 in dielist and 4 in dielist and 5 in dielist:
        return 30
    if 3 in dielist and 4 in dielist and 5 in dielist and 6 in dielist:
        return 30
    return 0


def largeStraight(dielist):
    d = sorted(dielist)
    if d == [1, 2, 3, 4, 5] or d == [2, 3, 4, 5, 6]:
        return 40
    return 0


def yahtzee(dielist):
    if dielist[0] == dielist[1] == dielist[2] == dielist[3] == dielist[4]:
        return 50
    return 0


def roll():
    dielist = []
    for i in range(5):
        dielist.append(random.randint(1, 6))
    return dielist


def reroll(dielist):
    good = False
    while not good:
        answer = input("Enter dice to re-roll: ")
        answer = answer.upper()
        good = True
        for ch in answer:
            if ch != " " and ch not in "ABCDE":
                good = False
        if not good:
            print("Please enter only the letters A to E.")
    if "A" in answer:
        dielist[0] = random.randint(1, 6)
    if "B" in answer:
        dielist[1] = random.randint(1, 6)
    if "C" in answer:
        dielist[2] = random.randint(1, 6)
    if "D" in answer:
        dielist[3] = random.randint(1, 6)
    if "E" in answer:
        dielist[4] = random.randint(1, 6)


def showdice(dielist):
    print("Position:", "A", "B", "C", "D", "E")
    print("Value:", dielist[0], dielist[1], dielist[2], dielist[3], dielist[4])


def showscores(dielist):
    print("Slot", "Points")
    for slot in SLOTS:
        print(slot, slotScore(dielist, slot))


def slotScore(dielist, slot):
    if slot == "Ones":
        return sumOfN(dielist, 1)
    elif slot == "Twos":
        return sumOfN(dielist, 2)
    elif slot == "Threes":
        return sumOfN(dielist, 3)
    elif slot == "Fours":
        return sumOfN(dielist, 4)
    elif slot == "Fives":
        return sumOfN(dielist, 5)
    elif slot == "Sixes":
        return sumOfN(dielist, 6)
    elif slot == "3/Kind":
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
    return 0


def chooseSlot(scores):
    while True:
        answer = input("Choose a slot: ")
        answer = answer.replace(" ", "").lower()
        found = ""
        for slot in SLOTS:
            if slot.replace(" ", "").lower() == answer:
                found = slot
        if found == "":
            print("There is no such slot.")
        elif scores[found] != None:
            print("That slot is already used.")
        else:
            return found


def playRound(scores):
    dielist = roll()
    showdice(dielist)
    reroll(dielist)
    print()
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
    total = 0
    for slot in ["Ones", "Twos", "Threes", "Fours", "Fives", "Sixes"]:
        if scores[slot] != None:
            total = total + scores[slot]
    if total >= 63:
        return 35
    else:
        return 0


def yahtzeeBonus(scores, dielist):
    if scores["Yahtzee"] == 50 and yahtzee(dielist) == 50:
        return 100
    return 0


def playGame():
    global yahtzee_bonus_total
    yahtzee_bonus_total = 0
    scores = newScores()
    round_number = 1
    while round_number <= 13:
        print("Round", round_number)
        card_before = scores.copy()
        dielist = playRound(scores)
        yahtzee_bonus_total = yahtzee_bonus_total + yahtzeeBonus(card_before, dielist)
        print()
        round_number = round_number + 1
    total = 0
    for slot in SLOTS:
        total = total + scores[slot]
    bonus = upperBonus(scores)
    total = total + bonus + yahtzee_bonus_total
    print("Upper bonus", bonus)
    print("Yahtzee bonus", yahtzee_bonus_total)
    print("Total", total)
    return total


if __name__ == "__main__":
    if sys.argv[1:] == ["game"]:
        playGame()
    else:
        main()
