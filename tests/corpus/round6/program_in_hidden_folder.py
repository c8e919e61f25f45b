# Layout "built": the program in a folder whose name starts with a dot (`.work/yahtzee.py`).  The
# loader grades it (the folder's only program); the content hash skipped dot folders: on main
# 44bdcdc it hashed nothing, so a changed program kept its old grade (tests/test_hostile_round6.py).


def build(reference):
    return {".work/yahtzee.py": reference}
