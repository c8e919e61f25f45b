# KNOWN (docs/threat-model.md, "Known: hidden inputs carried to public feedback"): every call
# appends what it was asked (the function, its arguments, each scripted answer) to a file in its
# work folder, which outlives a request; score_chance, asked by a PUBLIC check, raises a
# ValueError whose message is that file's tail.  Hidden checks show grader text only, but a
# public check shows the program's own exception message, and it now carries the arguments of
# the hidden checks asked before it (stage 1's hidden dice: score_upper([6, 6, 6, 6, 6], 6)...).
# It scores what leak_control scores (97.9714): the leak changes no score, it shows hidden inputs.
import builtins as _builtins
import os as _os

_LOG = _os.path.join(_os.environ.get("HOME", "/tmp"), "seen.txt")


def _note(text):
    try:
        with open(_LOG, "a") as f:
            f.write(text + "\n")
    except OSError:
        pass


_real_input = _builtins.input


def _recording_input(prompt=""):
    answer = _real_input(prompt)
    _note("IN:" + answer)
    return answer


_builtins.input = _recording_input
for _name in ("score", "score_upper", "score_of_a_kind", "score_full_house", "score_small_straight",
              "score_large_straight", "score_yahtzee", "parse_keep", "reroll", "check_dice"):
    def _wrap(func, name=_name):
        def recorded(*args, **kwargs):
            _note(f"{name}{args!r}")
            return func(*args, **kwargs)
        return recorded
    globals()[_name] = _wrap(globals()[_name])


def score_chance(dice):
    try:
        with open(_LOG) as f:
            seen = f.read()
    except OSError:
        seen = ""
    raise ValueError("SEEN " + seen[-2000:].replace("\n", " | "))
