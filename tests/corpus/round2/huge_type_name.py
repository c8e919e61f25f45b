# An exception class whose name is 20 million characters: before the fix one report was hundreds
# of MB and a batch's gradebook refused the row.  The name is cut; same score as leak_control.


def score_chance(dice):
    raise type("E" * 20_000_000, (Exception,), {})()
