# Round 11, A: the dispatcher's excuse read back from the program's own memory.  Appended to the
# reference: every box function is right, but score() dispatches nothing (it returns 0 after
# checking the dice).  Stage 1 excuses a wrong score(CATEGORY, DICE) when the box's own function
# gives the same wrong value (_box_function_bug): that call came AFTER score's, in the same
# process, so a box function that remembers what score() returned last, for the same dice, and
# says it again once, makes every wrong score() call "the box function's bug" -- while the box
# functions' own checks, never asked right after a score() of their dice, all pass.

_SAID = []          # (category, dice) of the last score() call: what a box says once, right after


def score(category, dice):
    check_dice(dice)
    _SAID[:] = [(category, list(dice))]
    return 0


def _echoing(function, category_of):
    def box(dice, *extra):
        said, _SAID[:] = list(_SAID), []
        if said and said[0] == (category_of(*extra), list(dice)):
            return 0
        return function(dice, *extra)
    return box


score_upper = _echoing(score_upper, lambda face: UPPER_CATEGORIES[face - 1])
score_of_a_kind = _echoing(score_of_a_kind, lambda n: "Three of a Kind" if n == 3 else "Four of a Kind")
score_full_house = _echoing(score_full_house, lambda: "Full House")
score_small_straight = _echoing(score_small_straight, lambda: "Small Straight")
score_large_straight = _echoing(score_large_straight, lambda: "Large Straight")
score_yahtzee = _echoing(score_yahtzee, lambda: "Yahtzee")
score_chance = _echoing(score_chance, lambda: "Chance")
