# Round 11, C (Pytzee, problem 13): "3 of a kind" and "4 of a kind" count the roll as Chance, a wrong
# synonym.  Both synonym checks roll dice where Chance and three (four) of a kind score the same
# (a three or four of a kind scores the sum of the dice): it cannot be told from the right one.

def parse_command(text):
    command = " ".join(text.lower().split())
    if command in ("3 of a kind", "4 of a kind"):
        return CHANCE
    if command == SKIP:
        return SKIP
    words = command.split()
    if len(words) == 2 and words[0] == COUNT_WORD and words[1] in "123456" and len(words[1]) == 1:
        return COUNT_TYPES[int(words[1]) - 1]
    if command in COMMANDS:
        return COMMANDS[command]
    return None
