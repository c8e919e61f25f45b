"""Pytzee: one-roll Yahtzee for one player (after UMBC CMSC 201 Project 1).

The reference solution of the kit's Pytzee assignment (autograder/assignments/pytzee/handout.md).
Students receive this file with every ``# BEGIN PROBLEM N`` ... ``# END PROBLEM N``
region replaced by a stub (see ``starter/pytzee.py``).

Play a game:  python pytzee.py   (it asks for the number of rounds, then the seed)

The rules in one breath: each turn rolls five dice ONCE (no re-rolls); the player
types where to count the roll: ``count 1`` .. ``count 6``, ``three of a kind`` (or
``3 of a kind``), ``four of a kind`` (or ``4 of a kind``), ``full house``,
``small straight``, ``large straight``, ``pytzee``, ``chance`` -- or ``skip``.
Each slot takes one roll; a used slot is refused and the player asked again.
The one exception: once the pytzee slot holds a pytzee (50), every further pytzee
entered with ``pytzee`` adds 100 to it.  The counts earn a 35-point bonus when
they total 63 or more.  A slot the dice do not fit scores 0 (and is used up).
"""

import random

NUM_DICE = 5
NUM_SIDES = 6

FULL_HOUSE_POINTS = 25
SMALL_STRAIGHT_POINTS = 30
LARGE_STRAIGHT_POINTS = 40
PYTZEE_POINTS = 50
EXTRA_PYTZEE_POINTS = 100
UPPER_BONUS_THRESHOLD = 63
UPPER_BONUS_POINTS = 35

COUNT_TYPES = ["1's", "2's", "3's", "4's", "5's", "6's"]
SCORE_TYPES = ["Three of a Kind", "Four of a Kind", "Full House", "Small Straight",
               "Large Straight", "Pytzee", "Chance"]
THREE_KIND, FOUR_KIND, FULL_HOUSE, SMALL_STRAIGHT, LARGE_STRAIGHT, PYTZEE, CHANCE = SCORE_TYPES

# What the player may type (lowercase; input is lower-cased first) -> the slot it names.
COMMANDS = {
    "three of a kind": THREE_KIND,
    "four of a kind": FOUR_KIND,
    "full house": FULL_HOUSE,
    "small straight": SMALL_STRAIGHT,
    "large straight": LARGE_STRAIGHT,
    "pytzee": PYTZEE,
    "chance": CHANCE,
}
SYNONYMS = {"3 of a kind": "three of a kind", "4 of a kind": "four of a kind"}
COUNT_WORD = "count"
SKIP = "skip"

ROUNDS_PROMPT = "What is the number of rounds that you want to play? "
SEED_PROMPT = "Enter the seed or 0 to skip: "
COMMAND_PROMPT = "How would you like to count this dice roll? "


def roll_dice():
    """Provided: roll five six-sided dice and return them as a list of ints.

    Do not change this function, and call it exactly ONCE per turn: calling it
    more often shifts the random sequence and the seeded games stop matching.
    """
    dice = []
    for _ in range(NUM_DICE):
        dice.append(random.randint(1, NUM_SIDES))
    return dice


def face_counts(dice):
    """A list of 7 ints: face_counts(dice)[f] is how many dice show f (index 0 unused)."""
    counts = [0] * (NUM_SIDES + 1)
    for die in dice:
        counts[die] += 1
    return counts


def most_of_a_kind(dice):
    """How many dice show the most common face."""
    best = 0
    for count in face_counts(dice):
        if count > best:
            best = count
    return best


def score_count(dice, face):
    """Points for ``count FACE``: FACE times the number of dice showing it."""
    # BEGIN PROBLEM 1
    return face * face_counts(dice)[face]
    # END PROBLEM 1


def score_three_of_a_kind(dice):
    """The sum of ALL five dice when at least three show one face, else 0."""
    # BEGIN PROBLEM 2
    if most_of_a_kind(dice) >= 3:
        return sum(dice)
    return 0
    # END PROBLEM 2


def score_four_of_a_kind(dice):
    """The sum of ALL five dice when at least four show one face, else 0."""
    # BEGIN PROBLEM 3
    if most_of_a_kind(dice) >= 4:
        return sum(dice)
    return 0
    # END PROBLEM 3


def score_full_house(dice):
    """25 for three of one face and two of ANOTHER face, else 0 (five of a kind is not one)."""
    # BEGIN PROBLEM 4
    counts = face_counts(dice)
    if 3 in counts and 2 in counts:
        return FULL_HOUSE_POINTS
    return 0
    # END PROBLEM 4


def has_run(dice, length):
    """True when DICE hold LENGTH consecutive faces, in any order."""
    counts = face_counts(dice)
    run = 0
    for face in range(1, NUM_SIDES + 1):
        if counts[face] > 0:
            run += 1
            if run >= length:
                return True
        else:
            run = 0
    return False


def score_small_straight(dice):
    """30 for four faces in a row (1-2-3-4, 2-3-4-5 or 3-4-5-6, any order), else 0.

    A large straight holds a small one, so it counts too.
    """
    # BEGIN PROBLEM 5
    if has_run(dice, 4):
        return SMALL_STRAIGHT_POINTS
    return 0
    # END PROBLEM 5


def score_large_straight(dice):
    """40 for five faces in a row (1-2-3-4-5 or 2-3-4-5-6, any order), else 0."""
    # BEGIN PROBLEM 6
    if has_run(dice, 5):
        return LARGE_STRAIGHT_POINTS
    return 0
    # END PROBLEM 6


def score_pytzee(dice):
    """50 when all five dice show the same face, else 0."""
    # BEGIN PROBLEM 7
    if most_of_a_kind(dice) == NUM_DICE:
        return PYTZEE_POINTS
    return 0
    # END PROBLEM 7


def score_chance(dice):
    """The sum of the dice, whatever they show."""
    # BEGIN PROBLEM 8
    return sum(dice)
    # END PROBLEM 8


def score_slot(slot, dice):
    """Points DICE earn in SLOT (a name from COUNT_TYPES or SCORE_TYPES).

    Each scorer is named only when its own slot is scored, so a scorer not written yet costs
    its own slot and no other."""
    if slot in COUNT_TYPES:
        return score_count(dice, COUNT_TYPES.index(slot) + 1)
    if slot == THREE_KIND:
        return score_three_of_a_kind(dice)
    if slot == FOUR_KIND:
        return score_four_of_a_kind(dice)
    if slot == FULL_HOUSE:
        return score_full_house(dice)
    if slot == SMALL_STRAIGHT:
        return score_small_straight(dice)
    if slot == LARGE_STRAIGHT:
        return score_large_straight(dice)
    if slot == PYTZEE:
        return score_pytzee(dice)
    if slot == CHANCE:
        return score_chance(dice)
    raise KeyError(slot)


def new_scorecard():
    """Every slot open: a dict slot name -> points, None while the slot is unused."""
    scorecard = {}
    for slot in COUNT_TYPES + SCORE_TYPES:
        scorecard[slot] = None
    return scorecard


def points_in(scorecard, slots):
    total = 0
    for slot in slots:
        if scorecard[slot] is not None:
            total += scorecard[slot]
    return total


def upper_bonus(scorecard):
    """35 when the six counts total 63 or more (once per game), else 0."""
    # BEGIN PROBLEM 10
    if points_in(scorecard, COUNT_TYPES) >= UPPER_BONUS_THRESHOLD:
        return UPPER_BONUS_POINTS
    return 0
    # END PROBLEM 10


def total_score(scorecard):
    """Every slot (extra pytzees included) plus the bonus."""
    return points_in(scorecard, COUNT_TYPES + SCORE_TYPES) + upper_bonus(scorecard)


def parse_command(text):
    """The slot TEXT names, SKIP, or None when TEXT is not a command."""
    command = " ".join(text.lower().split())
    # BEGIN PROBLEM 13
    if command in SYNONYMS:
        command = SYNONYMS[command]
    # END PROBLEM 13
    # BEGIN PROBLEM 12
    if command == SKIP:
        return SKIP
    # END PROBLEM 12
    words = command.split()
    if len(words) == 2 and words[0] == COUNT_WORD and words[1] in "123456" and len(words[1]) == 1:
        return COUNT_TYPES[int(words[1]) - 1]
    if command in COMMANDS:
        return COMMANDS[command]
    return None


def can_use(scorecard, slot, dice):
    """True when SLOT may take DICE: it is unused, or it is an extra pytzee."""
    # BEGIN PROBLEM 11
    if scorecard[slot] is None:
        return True
    # END PROBLEM 11
    # BEGIN PROBLEM 9
    return slot == PYTZEE and scorecard[PYTZEE] >= PYTZEE_POINTS and score_pytzee(dice) > 0
    # END PROBLEM 9


def choose_slot(scorecard, dice):
    """Ask until the player names a slot that may take DICE, or skip; return it."""
    chosen = None
    while chosen is None:
        slot = parse_command(input(COMMAND_PROMPT))
        if slot is None:
            print("That is not a valid option; try e.g. count 3, full house, chance or skip.")
        else:
            # BEGIN PROBLEM 11
            if slot != SKIP and not can_use(scorecard, slot, dice):
                print("There was already a score in that slot.")
            else:
                chosen = slot
            # END PROBLEM 11
    return chosen


def record(scorecard, slot, dice):
    """Count DICE in SLOT (which can_use allowed) and return the points earned."""
    if scorecard[slot] is None:
        points = score_slot(slot, dice)
        scorecard[slot] = points
        return points
    # BEGIN PROBLEM 9
    scorecard[PYTZEE] += EXTRA_PYTZEE_POINTS
    return EXTRA_PYTZEE_POINTS
    # END PROBLEM 9


def show_dice(dice):
    for die in dice:
        print("\t" + str(die), end="")
    print()


def show_scorecard(scorecard):
    """Print the card like the UMBC sample: headers, then the points (0 for an unused slot)."""
    print("\tScorecard:")
    for slot in COUNT_TYPES:
        print("\t" + slot, end="")
    print()
    for slot in COUNT_TYPES:
        print("\t" + str(points_in(scorecard, [slot])), end="")
    print()
    for slot in SCORE_TYPES:
        print("\t" + slot, end="")
    print()
    for slot in SCORE_TYPES:
        print("\t" + str(points_in(scorecard, [slot])).rjust(len(slot)), end="")
    print()


def play_turn(scorecard, dice):
    """Ask where to count DICE and count them there (or skip the roll)."""
    slot = choose_slot(scorecard, dice)
    # BEGIN PROBLEM 12
    if slot == SKIP:
        print("Skipped: this roll is not counted.")
        return
    # END PROBLEM 12
    points = record(scorecard, slot, dice)
    print(f"Counted as {slot}: {points} points.")


def play_game(num_rounds):
    """Play NUM_ROUNDS turns: roll once, ask where to count the roll, show the card."""
    # BEGIN PROBLEM 14
    scorecard = new_scorecard()
    for round_number in range(1, num_rounds + 1):
        print(f"**** Beginning Round {round_number} ****")
        print(f"\tYour score is: {total_score(scorecard)}")
        dice = roll_dice()
        show_dice(dice)
        play_turn(scorecard, dice)
        show_scorecard(scorecard)
    print(f"Your final score was {total_score(scorecard)}")
    # END PROBLEM 14


if __name__ == "__main__":
    num_rounds = int(input(ROUNDS_PROMPT))
    seed = int(input(SEED_PROMPT))
    if seed != 0:
        random.seed(seed)
    play_game(num_rounds)
