# Appended to the reference: format_dice returns the start of the hidden test suites (and
# prints them) instead of the dice line.  @REPO@ is replaced by the kit's folder.
import glob


def format_dice(dice):
    found = []
    for path in glob.glob("@REPO@/autograder/assignments/*/suites/*.py") + [
            "@REPO@/autograder/assignments/yahtzee/suites/test_stage1_scoring.py"]:
        try:
            with open(path) as f:
                found.append(f.read())
        except OSError as err:
            found.append(f"{type(err).__name__}")
    print("\n".join(found))
    return "\n".join(found)[:2000]
