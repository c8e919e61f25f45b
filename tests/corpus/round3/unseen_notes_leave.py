# In every request, leaves notes where the fresh runner's clean-state check does not look (its
# documented cost: C-level state and the inner tables of standard-library objects): a codecs
# search function, an ABC registration, a standard function's __dict__, an entry in fnmatch's
# lru cache.  unseen_notes_read, graded after it by the same grader process, looks for them:
# a runner is a process of one sandbox life, so none can reach another student.  The solution's
# functions grade normally: full marks.
import codecs as _codecs
import collections.abc as _cabc
import fnmatch as _fnmatch
import posixpath as _posixpath

_NOTE = "autograder.note_from_a_classmate"       # (a dot: encodings never tries to import it)


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
