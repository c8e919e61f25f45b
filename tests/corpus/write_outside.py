# Appended to the reference: new_scorecard tries to write files everywhere but its own folder,
# then returns the right scorecard.  @CANARY@ is a folder the test watches.
import os

TARGETS = ["@CANARY@/planted.txt", "@CANARY@/canary.txt", "@REPO@/solution/planted.py",
           "@REPO@/autograder/assignments/yahtzee/suites/test_planted.py", "@REPO@/planted.txt",
           "/tmp/planted.txt", "/var/tmp/planted.txt", "/dev/shm/planted.txt", "/etc/planted.txt",
           "/root/planted.txt", "../planted.txt", "../../planted.txt"]


def new_scorecard():
    for target in TARGETS:
        try:
            with open(target, "a") as f:
                f.write("planted by a submission\n")
        except OSError:
            pass
    try:
        with open("big.bin", "wb") as f:          # its own folder, but far over the file size limit
            f.write(b"\0" * (1 << 30))
    except (OSError, MemoryError):
        pass
    card = {category: None for category in CATEGORIES}
    card[YAHTZEE_BONUS_KEY] = 0
    return card
