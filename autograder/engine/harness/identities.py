"""What the clean-state check (clean.py) compares by IDENTITY: the objects in the lists and sets it
watches (sys.path, sys.meta_path, warnings.filters, a module's __all__...).  Never by equality: an
object of the student's could answer True to anything (its __eq__, or a str subclass equal to the
original), and a fresh request would then find the state an earlier one left.  Same items means
the same objects at the same places: what a list holds is its item pointers, what a set holds its
table of (pointer, hash) entries.

The fast reader (ContainerIds, ctypes) reads those pointers in the containers' own memory, as
bytes, by two struct unpacks over one ctypes view made once (no call into C code of ours, no audit
event, no incref of any item: the items' pages are not copied on write): first every container's
head (a list's size and item array, a set's fill, used, mask and table), and only when every head
is as when the reader was made, the item arrays and tables at the addresses those heads name (a
moved array may be freed memory: never read).  Equal bytes mean the same objects, as long as every
object they point to stays alive: the reader holds each container's items as they were read when
it took a reading as its own (hold), so no address in it can be reused by another object.  The
slow one (PlainIds) holds tuples of the items and compares them with operator.is_.  Here too,
by operator.is_: the handler settings (_handlers, _same_handlers) and the dicts compared whole
(_same_dict: sys.modules and our names where their guard broke)."""

import _signal
import operator
import signal
import sys

_LIST_HEAD = (16, 16)       # PyListObject after ob_refcnt and ob_type: ob_size, ob_item
_SET_HEAD = (16, 32)        # PySetObject after ob_refcnt and ob_type: fill, used, mask, table
_SET_SMALL = 64             # ... then hash and finger, then smalltable: 8 entries of (key, hash)
_SET_SLOTS = 8
_ENTRY = 16
_VIEWED = (list, set)
_SIGNALS = tuple(sorted(s for s in signal.valid_signals() if s not in (signal.SIGKILL, signal.SIGSTOP)))


def container_ids(containers, how="ctypes"):
    """A reader of the identities of the objects in CONTAINERS (lists and sets, each once): the
    ctypes one where HOW is "ctypes" and this Python lays them out as CPython 3.6-3.13 does
    (checked), else PlainIds."""
    reader = ContainerIds.make(containers) if how == "ctypes" else None
    if reader is None:
        reader = PlainIds(containers)
    reader.how = how
    return reader


class PlainIds:
    """The sound fallback: a reading is a tuple of each container's items (holding them alive),
    compared item by item with operator.is_ (~60 us and an incref of every item a check)."""

    def __init__(self, containers):
        self.containers = tuple(containers)

    def read(self):
        return tuple(map(tuple, self.containers))

    hold = read

    def moved(self):
        return False

    def same(self, base):
        now = self.read()
        return len(now) == len(base) and all(len(a) == len(b) and all(map(operator.is_, a, b))
                                             for a, b in zip(now, base))


class ContainerIds:
    """The item pointers of lists and sets read as bytes in their own memory (see the module)."""

    @classmethod
    def make(cls, containers):
        containers = tuple(containers)
        ctypes = sys.modules.get("ctypes")      # (never imported here: the snapshot compares sys.modules)
        if (ctypes is None or sys.implementation.name != "cpython" or not (3, 6) <= sys.version_info[:2] <= (3, 13)
                or sys.maxsize != (1 << 63) - 1 or any(type(c) not in _VIEWED for c in containers)
                or len({id(c) for c in containers}) != len(containers) or not _layout_known(ctypes)):
            return None
        word = ctypes.c_uint64.from_address
        if any(word(id(c) + 8).value != id(type(c)) or word(id(c) + (16 if type(c) is list else 24)).value != len(c)
               for c in containers):
            return None
        self = cls()
        self.containers, self.extra = containers, []
        # (an empty list's head: its size alone, read as a number, a cached 0 while it stays empty)
        heads = [(id(c) + _LIST_HEAD[0], _LIST_HEAD[1] if c else 8) if type(c) is list
                 else (id(c) + _SET_HEAD[0], _SET_HEAD[1]) for c in containers]
        self.items = cls._items(containers, word)
        spans = heads + [seg for seg, _ in self.items]
        if not spans:
            self.heads_now = self.items_now = _no_segments
            self.view, self.heads, self.items0 = None, (), ()
            return self
        low = min(a for a, _ in spans)
        self.view = memoryview((ctypes.c_char * (max(a + n for a, n in spans) - low)).from_address(low)).cast("B")
        self.heads_now = _unpacker(heads, low, self.view, ctypes)
        order = sorted(range(len(self.items)), key=lambda i: self.items[i][0][0])
        self.owner = [self.items[i][1] for i in order]      # (the container of each item segment read)
        self.items_now = _unpacker([self.items[i][0] for i in order], low, self.view, ctypes)
        if self.heads_now is None or self.items_now is None:
            return None
        self.heads = self.heads_now(self.view)
        self.items0 = None
        self.hold()
        return self if self.items0 is not None else None

    @staticmethod
    def _items(containers, word):
        """((address, size), container index) of each list's item array and each set's table."""
        out = []
        for i, c in enumerate(containers):
            if type(c) is list:
                size = word(id(c) + 16).value
                if size:
                    out.append(((word(id(c) + 24).value, 8 * size), i))
            else:
                slots = word(id(c) + 32).value + 1
                out.append(((word(id(c) + 40).value, _ENTRY * slots), i))
        return out

    def moved(self):
        """Whether a head moved since the reader was made (it can no longer read their items)."""
        return self.heads_now(self.view) != self.heads

    def read(self):
        """The item pointers now (a tuple of bytes), or None where a head moved since the reader
        was made (an item array resized or replaced: then not read)."""
        if self.heads_now(self.view) != self.heads:
            return None
        return self.items_now(self.view)

    def hold(self):
        """A reading this reader answers for (every object it points to held alive from here),
        or None where a head moved (a new reader is needed).  Only where no student code ran."""
        now = self.read()
        if now is not None and now != self.items0:
            changed = {self.owner[i] for i, seg in enumerate(now)
                       if self.items0 is None or seg != self.items0[i]}
            self.extra.append(tuple(tuple(self.containers[i]) for i in sorted(changed)))
            self.items0 = now
        return now

    def same(self, base):
        """Whether the items now are BASE (a reading of hold's), heads first (read() inlined)."""
        view = self.view
        return self.heads_now(view) == self.heads and self.items_now(view) == base


def _no_segments(view):
    return ()


def _handlers():
    """The settings that are objects a request may supply (trace and profile functions, async
    generator hooks, signal handlers): compared by identity (_same_handlers)."""
    return (sys.gettrace(), sys.getprofile(), *sys.get_asyncgen_hooks(), tuple(map(_signal.getsignal, _SIGNALS)))


def _same_handlers(base):
    """Whether the handlers are the objects in BASE (a _handlers() of before): no tuple made."""
    hooks = sys.get_asyncgen_hooks()
    return (sys.gettrace() is base[0] and sys.getprofile() is base[1] and hooks[0] is base[2] and hooks[1] is base[3]
            and all(map(operator.is_, map(_signal.getsignal, _SIGNALS), base[4])))


def _same_dict(a, b):
    """Whether dicts A and B hold the same keys and values in the same order, by identity (a key
    or value of the student's, e.g. a str subclass equal to ours, is not equal to anything)."""
    return (len(a) == len(b) and all(map(operator.is_, dict.keys(a), dict.keys(b)))
            and all(map(operator.is_, dict.values(a), dict.values(b))))


def _same_rest(rest, copies):
    """The watched containers that are neither lists nor sets against their copies: a bytearray's
    bytes (no object in it), a dict subclass's keys and values by identity."""
    return all(obj == copy if type(obj) is bytearray else _same_dict(obj, copy) for obj, copy in zip(rest, copies))


def _unpacker(segments, low, view, ctypes):
    """A function of VIEW (which starts at LOW) returning the bytes of SEGMENTS ((address, size),
    not overlapping) in address order, an 8-byte one as a number, by one struct unpack, the bytes
    between skipped as pad bytes; None where it does not read exactly what ctypes reads there."""
    import struct
    segments = sorted(segments)
    fmt, at = ["="], low
    for address, size in segments:
        if address < at:
            return None
        if address > at:
            fmt.append(f"{address - at}x")
        fmt.append("Q" if size == 8 else f"{size}s")
        at = address + size
    try:
        unpack = struct.Struct("".join(fmt)).unpack_from
        got = unpack(view)
    except (struct.error, ValueError, TypeError, OverflowError):
        return None
    expected = [ctypes.string_at(address, size) for address, size in segments]
    if list(got) != [int.from_bytes(raw, sys.byteorder) if len(raw) == 8 else raw for raw in expected]:
        return None
    return unpack


def _layout_known(ctypes):
    """Whether lists and sets are laid out here as this module reads them (probes of each kind:
    a list, a set in its small table, one in a table of its own)."""
    word = ctypes.c_uint64.from_address
    items = (object(), object(), object())
    probe = list(items)
    if (word(id(probe) + 8).value != id(list) or word(id(probe) + 16).value != 3
            or [word(word(id(probe) + 24).value + 8 * i).value for i in range(3)] != [id(x) for x in items]):
        return False
    for probe in (set(items[:2]), set(range(1000, 1040))):
        mask = word(id(probe) + 32).value
        table = word(id(probe) + 40).value
        if (word(id(probe) + 8).value != id(set) or word(id(probe) + 24).value != len(probe) or mask < len(probe)
                or (table == id(probe) + _SET_SMALL) != (mask + 1 == _SET_SLOTS)):
            return False
        entries = {(word(table + _ENTRY * i).value, word(table + _ENTRY * i + 8).value) for i in range(mask + 1)}
        if {(id(x), hash(x) % (1 << 64)) for x in probe} != entries - {(0, 0)}:
            return False
    return True
