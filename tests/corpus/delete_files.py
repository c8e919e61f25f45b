# Appended to the reference: final_score tries to delete the watched canary files and a
# sacrificial file the test put in the kit, then scores as the reference does.
import os
import shutil


def final_score(scorecard):
    for path in ("@CANARY@/canary.txt", "@REPO@/tests/corpus/@SACRIFICE@"):
        try:
            os.remove(path)
        except OSError:
            pass
    shutil.rmtree("@CANARY@", ignore_errors=True)
    total = sum(scorecard[category] or 0 for category in CATEGORIES)
    return total + upper_bonus(scorecard) + scorecard[YAHTZEE_BONUS_KEY]
