# Layout "built": the program in `__pycache__/` (a name grade-all's content hash ignores, the loader
# does not): on main 44bdcdc a changed program there kept its old grade (tests/test_hostile_round6.py).


def build(reference):
    return {"__pycache__/yahtzee.py": reference, "notes.txt": "the program is in __pycache__\n"}
