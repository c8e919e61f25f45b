# Appended to the reference: parse_keep raises KeyboardInterrupt (as if Ctrl-C was pressed).
def parse_keep(text):
    raise KeyboardInterrupt
