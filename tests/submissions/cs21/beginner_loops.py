# CS21 HW5/HW6: Yahtzee, written the way the course's first weeks teach it:
# accumulator loops, if-chains, indexes, no library beyond random.

from random import randint


def sumDice(dielist):
    total = 0
    for i in range(len(dielist)):
        total = total + dielist[i]
    return total


def sumOfN(dielist, num):
    total = 0
    for die in dielist:
        if die == num:
            total = total + die
    return total


def countOf(dielist, value):
    count = 0
    for die in dielist:
        if die == value:
            count = count + 1
    return count


def hasAtLeastN(dielist, n):
    for value in range(1, 7):
        if countOf(dielist, value) >= n:
            return True
    return False


def hasExactlyN(dielist, n):
    for value in range(1, 7):
        if countOf(dielist, value) == n:
            return True
    return False


def threeOfAKind(dielist):
    if hasAtLeastN(dielist, 3):
        return sumDice(dielist)
    else:
        return 0


def fourOfAKind(dielist):
    if hasAtLeastN(dielist, 4):
        return sumDice(dielist)
    else:
        return 0


def fullHouse(dielist):
    if hasExactlyN(dielist, 5):
        return 25
    if hasExactlyN(dielist, 3) and hasExactlyN(dielist, 2):
        return 25
    return 0


def hasRun(dielist, start, length):
    for value in range(start, start + length):
        if countOf(dielist, value) == 0:
            return False
    return True


def smallStraight(dielist):
    for start in range(1, 4):
        if hasRun(dielist, start, 4):
            return 30
    return 0


def largeStraight(dielist):
    if hasRun(dielist, 1, 5) or hasRun(dielist, 2, 5):
        return 40
    return 0


def yahtzee(dielist):
    if hasExactlyN(dielist, 5):
        return 50
    return 0


def roll():
    dielist = []
    for i in range(5):
        dielist.append(randint(1, 6))
    return dielist


def validAnswer(answer):
    for ch in answer:
        if ch not in "ABCDEabcde ":
            return False
    return True


def reroll(dielist):
    answer = input("Enter dice to re-roll: ")
    while not validAnswer(answer):
        print("Please enter only the letters A to E.")
        answer = input("Enter dice to re-roll: ")
    answer = answer.upper()
    letters = "ABCDE"
    for i in range(5):
        if letters[i] in answer:
            dielist[i] = randint(1, 6)


def showdice(dielist):
    print("Position:   A  B  C  D  E")
    line = "Value:  "
    for die in dielist:
        line = line + " " + " " + str(die)
    print(line)


def allScores(dielist):
    scores = []
    for face in range(1, 7):
        scores.append(sumOfN(dielist, face))
    scores.append(threeOfAKind(dielist))
    scores.append(fourOfAKind(dielist))
    scores.append(fullHouse(dielist))
    scores.append(smallStraight(dielist))
    scores.append(largeStraight(dielist))
    scores.append(sumDice(dielist))
    scores.append(yahtzee(dielist))
    return scores


NAMES = ["Ones", "Twos", "Threes", "Fours", "Fives", "Sixes", "3/Kind", "4/Kind",
         "Full Hse", "Sm Strt", "Lg Strt", "Chance", "Yahtzee"]


def showscores(dielist):
    points = allScores(dielist)
    print("Slot   Points")
    for i in range(len(NAMES)):
        print(NAMES[i] + "\t" + str(points[i]))


def newScores():
    """Return a scores dict with every slot open.  (Given code, kept as provided.)"""
    return {slot: None for slot in NAMES}


def main():
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
    else:
        return yahtzee(dielist)


def squash(text):
    out = ""
    for ch in text.lower():
        if ch != " ":
            out = out + ch
    return out


def chooseSlot(scores):
    while True:
        answer = squash(input("Choose a slot: "))
        found = ""
        for name in NAMES:
            if squash(name) == answer:
                found = name
        if found == "":
            print("There is no such slot.")
        elif scores[found] != None:  # noqa: E711 (as the course writes it)
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
    for name in NAMES[0:6]:
        if scores[name] != None:  # noqa: E711
            total = total + scores[name]
    if total >= 63:
        return 35
    return 0


def yahtzeeBonus(scores, dielist):
    if yahtzee(dielist) == 50 and scores["Yahtzee"] == 50:
        return 100
    return 0


def playGame():
    scores = newScores()
    extra = 0
    for r in range(13):
        print("Round " + str(r + 1))
        hadYahtzee = {"Yahtzee": scores["Yahtzee"]}
        dielist = playRound(scores)
        extra = extra + yahtzeeBonus(hadYahtzee, dielist)
        print()
    bonus = upperBonus(scores)
    total = bonus + extra
    for name in NAMES:
        total = total + scores[name]
    print("Upper bonus   " + str(bonus))
    print("Yahtzee bonus " + str(extra))
    print("Total         " + str(total))
    return total


if __name__ == "__main__":
    main()
