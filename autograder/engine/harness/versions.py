"""The PEP 509 version tags of dicts, read for the clean-state check (clean.py): any write to a
dict gives it a new version, so one read per dict tells whether it was written since (instead of
comparing its entries).  Read in the dicts' own memory through a ctypes view made once (no call
into C code of ours, no audit event, no object of the dicts' touched), or by CPython's C test
module where it is there."""

import gc
import operator
import struct
import sys


def version_reader(dicts, how="auto", ordered=True):
    """(a function returning the version tags (PEP 509) of DICTS as a list, its name), or (None,
    None) when this Python offers none the check can trust: then there is no fresh runner, and
    every fresh request is a fork of its own.  Any write to a dict gives it a new version.

    HOW: "ctypes" reads the tag in each dict's own struct (_ctypes_reader: CPython 3.6-3.13, its
    layout checked here), "testcapi" through CPython's C test module, "auto" the first of the two
    that this Python allows, "none" neither (the grader's AUTOGRADER_DICT_VERSIONS).
    ORDERED=False: the tags may come in another order (always the same one), for a reader whose
    readings are only compared with each other (CleanState.versions: one struct read, ~40 %
    cheaper than picking them in the dicts' order)."""
    if how in ("auto", "ctypes"):
        read = _ctypes_reader(dicts, ordered=ordered)
        if read is not None:
            return read, "ctypes"
    if how in ("auto", "testcapi") and _TESTCAPI_VERSION is not None:
        return (lambda: list(map(_TESTCAPI_VERSION, dicts))), "testcapi"
    return None, None


_TAG_OFFSET = 24        # PyDictObject: ob_refcnt, ob_type, ma_used, then ma_version_tag (64-bit)


def _ctypes_reader(dicts, version=sys.version_info, ordered=True):
    """DICTS' version tags read at their offset in the dict struct, through a ctypes view made once
    (reading them costs no call into C code of ours, and no audit event); None where the layout is
    not the known one: another implementation or version, a 32-bit, free-threaded or trace-refs
    build (checked: every dict's type pointer and size where this layout puts them), a tag that
    does not change on a write or changes on a read, or values other than _testcapi's where this
    Python has it.  The dicts must stay alive (the caller holds them)."""
    if sys.implementation.name != "cpython" or not (3, 6) <= tuple(version[:2]) <= (3, 13) or sys.maxsize != (1 << 63) - 1:
        return None
    try:
        import ctypes
    except ImportError:
        return None
    probe = {}
    word = ctypes.c_uint64.from_address
    if word(id(probe) + 8).value != id(dict) or word(id(probe) + 16).value != 0:
        return None
    tag = word(id(probe) + _TAG_OFFSET)
    before = tag.value
    probe["written"] = True
    after = tag.value
    if before == after or tag.value != after:
        return None
    if not dicts:
        return tuple
    # One view of the memory from the first dict to the last one, read at the words of each
    # dict's type, size and tag by one itemgetter (a C call for all of them; nothing else is read).
    kinds = (dict, _stgdict())
    if any(type(d) not in kinds for d in dicts):
        return None
    starts = [id(d) for d in dicts]
    low = min(starts)       # (a dict not 8-aligned from it would be read at the wrong words: refused)
    # (read through a memoryview of the ctypes array: an item is then a plain unsigned 64-bit read,
    # not a call of ctypes' getter making a ctypes object first, a fifth of the time)
    words = memoryview((ctypes.c_uint64 * ((max(starts) - low) // 8 + 4)).from_address(low)).cast("B").cast("Q")
    first = [(start - low) // 8 for start in starts]
    if (list(_gather([i + 1 for i in first])(words)) != [id(type(d)) for d in dicts]
            or list(_gather([i + 2 for i in first])(words)) != [len(d) for d in dicts]):
        return None
    get = _gather([i + _TAG_OFFSET // 8 for i in first])

    def read():
        return get(words)
    if _TESTCAPI_VERSION is not None and (list(read()) != list(map(_TESTCAPI_VERSION, dicts))
                                          or tag.value != _TESTCAPI_VERSION(probe)):
        return None
    offsets = [start - low + _TAG_OFFSET for start in starts]
    if not ordered:
        return _struct_reader(words, offsets, read) or read
    if len(dicts) <= _SMALL_INTS:
        return _struct_reader(words, offsets, read, in_order=True) or read
    return read


_SMALL_INTS = 256       # CPython's cached ints: 0..256, static (no object of ours written by an incref)


def _struct_reader(words, offsets, ordered, in_order=False):
    """The tags at byte OFFSETS of the view WORDS in address order, by one struct unpack (the
    words between them skipped as pad bytes: no object made for them), or None where that does
    not read exactly what ORDERED (the itemgetter reader of the same tags) reads.  IN_ORDER:
    in the order of OFFSETS instead (put back by an itemgetter of cached small ints: the
    itemgetter over the view increfs each of its index numbers, ints made in the process that
    made the reader, so every fork that reads copies the pages they lie on)."""
    if len(set(offsets)) != len(offsets) or any(offset % 8 for offset in offsets):
        return None
    order = sorted(range(len(offsets)), key=offsets.__getitem__)
    fmt, at = ["="], 0
    for i in order:
        if offsets[i] > at:
            fmt.append(f"{offsets[i] - at}x")
        fmt.append("Q")
        at = offsets[i] + 8
    view = words.cast("B")
    try:
        unpack = struct.Struct("".join(fmt)).unpack_from
        got = unpack(view)
    except (struct.error, ValueError, TypeError):
        return None
    now = ordered()
    if list(got) != [now[i] for i in order]:
        return None
    if in_order:
        back = _gather(sorted(range(len(order)), key=order.__getitem__))
        if list(back(got)) != list(now):
            return None

        def read_in_order():
            return back(unpack(view))
        return read_in_order

    def read():
        return unpack(view)
    return read


def _gather(indices):
    """A function of a sequence returning the tuple of its items at INDICES (one C call)."""
    if len(indices) == 1:
        return lambda seq, i=indices[0]: (seq[i],)
    return operator.itemgetter(*indices)


def _testcapi_version():
    """CPython's own reader of a dict's version, in its C test module (not every Python has it)."""
    try:
        import _testcapi
        return _testcapi.dict_get_version
    except (ImportError, AttributeError):
        return None


_TESTCAPI_VERSION = _testcapi_version()


def _stgdict():
    """ctypes' StgDict where ctypes is loaded, else None: the dict of every ctypes type, a C
    subclass of dict whose entries are the dict's own (a write moves its version tag as any
    dict's; its C fields were never compared), watched by its version like a dict."""
    ctypes = sys.modules.get("ctypes")
    if ctypes is None:
        return None
    kind = type(gc.get_referents(vars(ctypes.c_int))[0])
    return kind if kind is not dict and issubclass(kind, dict) and kind.__name__ == "StgDict" else None
