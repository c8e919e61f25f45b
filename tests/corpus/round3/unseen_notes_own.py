# Both halves of unseen_notes_leave/read in one program: it looks for the notes (C-level state
# the fresh runner's clean-state check does not see), then leaves them, in every request; a
# request that finds a note an earlier request of its OWN life left breaks every function.  The
# documented cost of several fresh requests per process: a program can make its own later
# requests depend on its earlier ones (it could through its work folder's files already); what
# it loses is its own.  Its score pins which requests share a process today.
import _abc as _abc_c
import codecs as _codecs
import collections.abc as _cabc
import fnmatch as _fnmatch
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
    before = _fnmatch._compile_pattern.cache_info().hits
    _fnmatch._compile_pattern(_NOTE + "*")
    if _fnmatch._compile_pattern.cache_info().hits > before:
        found.append("fnmatch cache")
    return found


_FOUND = _notes()


def _search(name):
    if name == _NOTE:
        return _codecs.lookup("utf-8")
    return None


class _Noted:
    pass


_codecs.register(_search)
_cabc.Sequence.register(_Noted)
_posixpath.join.__dict__["autograder_note"] = _NOTE
_fnmatch.fnmatch("x", _NOTE + "*")


if _FOUND:
    def _broken(*args, **kwargs):
        raise RuntimeError("a note from an earlier request: " + ", ".join(_FOUND))
    for _name, _value in list(globals().items()):
        if isinstance(_value, _types.FunctionType) and not _name.startswith("_"):
            globals()[_name] = _broken
