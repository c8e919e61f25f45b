# Appended to the reference: joker_categories hoards memory until none is left.
def joker_categories(dice, scorecard):
    hoard = []
    while True:
        hoard.append(bytearray(16 * 1024 * 1024))
