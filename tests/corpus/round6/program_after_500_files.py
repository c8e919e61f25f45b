# Layout "built": a folder of 500 notes (a000.txt ... a499.txt) and the program.  grade-all's content
# hash (what makes a second run skip an unchanged submission) took the folder's first 500 files by
# name: on main 44bdcdc the program was not among them, so a changed program was "unchanged" and
# kept its old grade (tests/test_hostile_round6.py grades the folder, changes the program and grades
# it again).  Graded once, the reference scores full marks every way.


def build(reference):
    files = {f"a{i:03d}.txt": f"note {i}\n" for i in range(500)}
    files["yahtzee.py"] = reference
    return files
