# Hidden inputs carried out through the sandbox flags: score_upper tries to open a file named after
# its arguments (the open fails; the audit hook records "opened the file '/LEAK/[6, 6, 6, 6, 6]-6'").
# Flags are gathered over every request of every life, hidden ones too, and on main d3ee52f the
# student's own feedback page listed them word for word: the inputs of hidden checks.  Now the
# student's page names each kind of flag in the grader's words only; the instructor's report, CSV
# and gradebook keep the whole text.  Otherwise the reference: full marks.

_reference_upper = score_upper


def score_upper(dice, face):
    try:
        open(f"/LEAK/{dice}-{face}")
    except OSError:
        pass
    return _reference_upper(dice, face)
