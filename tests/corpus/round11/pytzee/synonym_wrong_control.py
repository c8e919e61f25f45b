# Round 11, A's Pytzee control: the same wrong synonyms (`count 2`), no note between games.

def parse_command(text):
    command = " ".join(text.lower().split())
    if command in ("3 of a kind", "4 of a kind"):
        return COUNT_TYPES[1]
    if command == SKIP:
        return SKIP
    words = command.split()
    if len(words) == 2 and words[0] == COUNT_WORD and words[1] in "123456" and len(words[1]) == 1:
        return COUNT_TYPES[int(words[1]) - 1]
    if command in COMMANDS:
        return COMMANDS[command]
    return None
