# fullHouse returns an int equal to everything; reroll fills the list with such ints (the
# reference otherwise): neither may pass a check it does not earn.
class _Anything(int):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = int.__hash__


def fullHouse(dielist):
    return _Anything(0)


def reroll(dielist):
    input("Enter dice to re-roll: ")
    for index in range(len(dielist)):
        dielist[index] = _Anything(7)
