# Layout "built": a folder whose Python file and a second file are named with bytes that are not
# UTF-8 (os.fsdecode gives lone surrogates \udcXX), one with a terminal escape too.  On main d3ee52f
# hashing the folder raised UnicodeEncodeError: grade-all stopped before grading anyone.  Now the
# names are hashed as their bytes, shown as \xNN escapes, and the reference inside is graded.


def build(reference):
    return {b"yahtzee\xff\xfe.py": reference, b"notes \xe9t\xe9\x1b[2J.txt": "not a submission\n"}
