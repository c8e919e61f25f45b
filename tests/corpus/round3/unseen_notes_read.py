# Graded after unseen_notes_leave by the same grader process (and in the same sandbox uid slots,
# cgroups and memos): looks for its notes (a codecs search function that knows the note's name,
# a class called _Noted registered as a Sequence, the note in posixpath.join's __dict__; the
# entry in fnmatch's cache cannot be looked for without adding one); finding any breaks every
# function.  None reaches another student: full marks.
import _abc as _abc_c
import codecs as _codecs
import collections.abc as _cabc
import posixpath as _posixpath
import types as _types

_NOTE = "autograder.note_from_a_classmate"       # (a dot: encodings never tries to import it)


def _notes():
    found = []
    try:
        _codecs.lookup(_NOTE)
        found.append("codecs")
    except LookupError:
        pass
    registry = _abc_c._get_dump(_cabc.Sequence)[0]
    if any(getattr(ref(), "__name__", "") == "_Noted" for ref in registry):
        found.append("abc")
    if "autograder_note" in getattr(_posixpath.join, "__dict__", {}):
        found.append("function dict")
    return found


_FOUND = _notes()
if _FOUND:
    def _broken(*args, **kwargs):
        raise RuntimeError("a note left before this request: " + ", ".join(_FOUND))
    for _name, _value in list(globals().items()):
        if isinstance(_value, _types.FunctionType) and not _name.startswith("_"):
            globals()[_name] = _broken
