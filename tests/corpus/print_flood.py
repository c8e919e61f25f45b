# Appended to the reference: format_scorecard prints gigabytes of text (a 1 MB line, forever).
def format_scorecard(scorecard):
    line = "x" * (1 << 20)
    while True:
        print(line)
