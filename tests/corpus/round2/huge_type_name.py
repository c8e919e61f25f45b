# An exception class whose name is 2 million characters (25 000 times the cap): before the fix
# every report carrying it grew by megabytes per check and a batch's gradebook refused the row.
# The name is cut at the boundary; same score as leak_control.


def score_chance(dice):
    raise type("E" * 2_000_000, (Exception,), {})()
