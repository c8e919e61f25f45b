"""The clean-state check of a fresh runner (issue 13): one process serves consecutive fresh
requests of a sandbox, each with a freshly executed module, as long as no request leaves the
process different from a fresh fork of the zygote in any way the check can see.  Conservative:
anything changed or unknown retires the runner, and the next request gets a new fork.

The zygote takes the snapshot (CleanState) once, before gc.freeze: it never runs student code, so
everything in it is the standard library's and the harness's own, and every runner shares it.  A
zygote forked by the grading session's template (or a student root) adopts the template's snapshot
instead (CleanState.adopt): what to watch is walked once per session, not once per sandbox."""

import _signal
import _thread
import gc
import os
import random
import resource
import select
import signal
import struct
import sys
import types

from .clock import _real_getrusage
from .identities import _VIEWED, _handlers, _same_dict, _same_handlers, _same_rest, container_ids
from .patches import _PATCHED, install_patches, patches_in_place
from .versions import _stgdict, version_reader

_CONTAINERS = (dict, list, set, bytearray)
_IMMUTABLE_TYPE = 1 << 8        # Py_TPFLAGS_IMMUTABLETYPE: a builtin type nobody can patch
_PLAIN = (types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.MethodType,
          types.BuiltinMethodType)
# Caches the standard library fills as honest code runs: put back as they were instead of compared.
_RESTORED = (("re", "_cache"), ("linecache", "cache"), ("encodings", "_cache"), ("sys", "path_importer_cache"))
_ITIMERS = (signal.ITIMER_VIRTUAL, signal.ITIMER_PROF)    # (the real one: reset after every request)
_RLIMITS = (resource.RLIMIT_CPU, resource.RLIMIT_AS, resource.RLIMIT_DATA, resource.RLIMIT_STACK,
            resource.RLIMIT_NOFILE, resource.RLIMIT_NPROC, resource.RLIMIT_FSIZE, resource.RLIMIT_MEMLOCK)
GROWTH = 16 << 10               # kB of peak memory a runner may gain before it is retired
# The Python threads a fork inherited in its count: CPython 3.11 keeps the forking process's count
# of its other threads (_thread._count()) in the child, where they do not run, so a request process
# forked from a process with a thread (a harness loaded into a pytest-xdist worker, whose execnet
# thread runs) saw a thread after every call and ended each batch at its first shared call.  Read
# where the harness loads and again where a request process starts, before any student code.
_INHERITED_THREADS = [_thread._count()]


def note_inherited_threads():
    """This process's count of threads from now on is its own (a request process's start)."""
    _INHERITED_THREADS[0] = _thread._count()


def own_threads():
    """The Python threads this process started that still run (_thread._count() less the inherited)."""
    return _thread._count() - _INHERITED_THREADS[0]


class _patched:
    """The patches every request installs, while a snapshot is taken (the process that takes it
    keeps its own stdio and exit); nothing to do where they are INSTALLED for good."""

    def __init__(self, filename, installed=False):
        self.filename = filename
        self.before = () if installed else None

    def __enter__(self):
        if self.before is None:
            self.before = [(vars(mod), dict(vars(mod))) for mod in _PATCHED]
            install_patches(self.filename)

    def __exit__(self, *exc):
        for names, saved in self.before:
            for key in [k for k in names if k not in saved]:
                del names[key]
            names.update(saved)


class CleanState:
    """What a fresh fork of the zygote looks like (as a request sees it: with the patches every
    request installs), and the test that a runner still does."""

    def __init__(self, filename, how="auto", patched=False):
        """PATCHED: the caller installed the patches for FILENAME and keeps them (the template,
        so every process it forks has them already: harness/entry.py template_main)."""
        if how in ("auto", "ctypes"):     # (loaded before the snapshot: the check compares sys.modules)
            try:
                import ctypes  # noqa: F401
            except ImportError:
                pass
        self.filename, self.patched = filename, patched
        with _patched(filename, installed=patched):
            self._walk()
            self._capture()
        # (None: this Python offers no dict versions the check can trust: no fresh runner)
        self.versions, self.detector = version_reader(self.dicts, how, ordered=False)
        self.reader_key = self.ids = None
        self._small_readers()
        # (the patches' modules as installed for good, checked once: installed_as)
        read = self.patch_read
        self.patches_seen = read() if patched and read is not None and patches_in_place(filename) else None

    def _small_readers(self):
        """The version readers every request process uses (of the modules the patches are in, of
        sys.modules and our names, of the restored caches), made here once, where the snapshot is
        taken or adopted, not in every request process (each is ~30 us warm, ~0.3 ms in a fresh
        fork).  A reader reads fixed addresses: the dicts are the same objects in every fork, kept
        alive by this snapshot (kept, restored) or by their modules.  Made again only for another
        detector or other caches.  The reader of the lists' and sets' items (identities.py): made
        again for other containers or another detector, or where one of their item arrays moved
        since (a runner's start holds what their items are then: check_copies)."""
        caches = [cache for cache, _ in self.restored]
        ids = self.ids      # (others the same tuple: the same containers, none of them touched)
        if ids is None or ids.how != self.detector or ids.source is not self.others or ids.moved():
            self.ids = container_ids(tuple(obj for obj in self.others if type(obj) in _VIEWED), self.detector)
            self.ids.source = self.others
        key = (self.detector, tuple(map(id, caches)))
        if key == self.reader_key:
            return
        self.reader_key = key
        how = self.detector
        self.patch_read = version_reader([vars(mod) for mod in _PATCHED], how)[0] if how else None
        self.guard_read = version_reader([sys.modules, globals()], how)[0] if how else None
        self.cache_read = (version_reader(caches, how)[0] if how else None) or False

    def adopt(self, filename, how="auto"):
        """This snapshot, taken by the template before it forked this zygote (harness/entry.py
        template_main), made the zygote's own: exactly what CleanState(FILENAME, HOW) would be
        here, without walking and copying everything again in every sandbox (~1,100 dicts and
        ~2,500 items touched: ~500 pages copied on write).  Which objects are watched depends
        only on sys.modules and on the dicts the walk read (module namespaces, objects'
        attributes), and an unchanged dict version (PEP 509: from a global counter, moved by
        every change) means unchanged contents: so only a dict whose version moved since is
        walked again (its new objects watched too; the old ones stay watched, which is only more
        conservative), and another sys.modules means a new walk.  What the check compares by value
        is the zygote's own: a dict's copy (sys.modules, the harness's names, the restored
        caches) kept only while its version is the one copied, a list's or bytearray's only while
        it equals it (a compare by identity that touches no item), a set's and the random state
        taken anew.  The versions are read as the check reads them (version_reader, made once by
        the template over the same dicts at the same addresses), and read again for HOW if it
        asks for another reader or the walk found more.  FILENAME only names sys.argv's list (in
        the sys namespace, walked again when it moved)."""
        self.filename = filename
        with _patched(filename, installed=self.patched):
            now = self.tracked() if self.tracked is not None else None
            watched = len(self.dicts)
            if now is None or (now[0] != self.copied[0] and not _same_dict(sys.modules, self.modules)):
                self._walk()
                now = None
            else:
                # (the moved ones found among the tags alone: a loop over the walked dicts
                # themselves increfs each one, ~170 pages copied on write in every life)
                after = now[self.kept_count:]
                moved = [i for i, tags in enumerate(zip(self.read_versions, after)) if tags[0] != tags[1]] \
                    if self.read_versions != after else ()
                for i in moved:
                    self._walk_dict(*self.read[i])
            self._capture(now)
        if how == "none" or (how != "auto" and how != self.detector) or len(self.dicts) != watched or now is None:
            self.versions, self.detector = version_reader(self.dicts, how, ordered=False)
        self._small_readers()
        return self

    def _walk(self):
        """Which objects the check watches: every loaded module's namespace, the containers it
        holds, the dicts of its mutable classes, its objects' attributes and their containers."""
        self.modules = dict(sys.modules)
        self.kept = [sys.modules, globals()]     # (alive, so no id in seen is ever reused)
        for mod_name, attr in _RESTORED:
            cache = getattr(self.modules.get(mod_name), attr, None)
            if type(cache) is dict:
                self.kept.append(cache)
        self.seen = {id(obj) for obj in self.kept}   # the harness's names: compared whole (_capture)
        self.dicts, self.others, self.read, self.walked = [], [], [], set()
        self.stgdict = _stgdict()
        for mod in self.modules.values():
            names = getattr(mod, "__dict__", None)
            if type(names) is dict:
                self._watch(names)
                self._walk_dict(names, True)
        # The versions of what the walk read and of what _capture copies, read in one call (adopt).
        self.kept_count = len(self.kept)
        self.tracked = version_reader(self.kept + [names for names, _ in self.read])[0]
        versions = self.tracked() if self.tracked is not None else ()
        self.read_versions = versions[self.kept_count:]

    def _watch(self, obj):
        if id(obj) not in self.seen:
            self.seen.add(id(obj))
            if type(obj) is dict or type(obj) is self.stgdict:
                self.dicts.append(obj)
            else:
                if type(self.others) is tuple:      # (adopt found more: a list again until _capture)
                    self.others = list(self.others)
                self.others.append(obj)

    def _walk_dict(self, names, objects):
        """NAMES (a module's namespace: OBJECTS; else an object's attributes): what it holds to
        watch (adopt walks it again if its version moved)."""
        self.walked.add(id(names))
        self.read.append((names, objects))
        for value in list(names.values()):
            kind = type(value)
            if kind in _CONTAINERS:
                self._watch(value)
            elif not objects:
                continue
            elif isinstance(value, type):
                for cls in value.__mro__:                     # (its bases too: one no module names,
                    if not cls.__flags__ & _IMMUTABLE_TYPE:   # as random.Random under the patch's)
                        self._watch(gc.get_referents(cls.__dict__)[0])  # a patched class attribute:
                        #                                       its dict itself, not a proxy
            elif kind not in _PLAIN:
                inner = getattr(value, "__dict__", None)    # an object's attributes (random._inst,
                if type(inner) is dict:                     # sys.stdout, os.environ and its data)
                    self._watch(inner)
                    if id(inner) not in self.walked:
                        self._walk_dict(inner, False)

    def _capture(self, now=None):
        """What the check compares by value, as this process has it now (with the patches).
        NOW (adopt): the versions of self.kept read before; a dict's copy is kept while its
        version is the one copied, a list's while it is equal."""
        harness = globals()
        reuse = now is not None
        if not reuse:
            now = self.tracked()[:self.kept_count] if self.tracked is not None else [None] * len(self.kept)
        old = self.copied if reuse else [object()] * len(self.kept)
        self.copied = list(now[:self.kept_count])
        if old[0] != self.copied[0] or self.copied[0] is None:
            self.modules = dict(sys.modules)
        # The random state: its generator's own bytes (and gauss_next) where _random_reader reads
        # them, its reader checked once where the snapshot is taken (its view is at the same
        # address in every fork), else getstate()'s 625 ints (made and freed in each life: ~50
        # page copies of adopt's).
        if not reuse:
            seen = _random_reader(random._inst.getstate())
            self.random_read, self.random_write = seen[0::2] if seen is not None else (None, None)
        read = self.random_read
        self.random = random._inst.getstate() if read is None else (read(), random._inst.gauss_next)
        self.cache_tags = self.cache_seen = None      # (restore's, made in each runner)
        restored = {id(cache): copy for cache, copy in self.restored} if reuse else {}
        self.restored = []
        for i, cache in enumerate(self.kept[2:], 2):
            copy = restored.get(id(cache))
            if copy is None or old[i] != self.copied[i] or self.copied[i] is None:
                copy = dict(cache)
            self.restored.append((cache, copy))
        if old[1] != self.copied[1] or self.copied[1] is None:
            self.harness = dict(harness)      # its _RUN is the request's during the check
        # Any change to a dict (a name rebound, added or removed; a value set) gives it a new
        # version (PEP 509): one read per dict instead of comparing every entry (about 13k).
        # The lists and sets: compared by identity (identities.py, made in _small_readers, read
        # again at a runner's start: base).  The rest (a bytearray, a dict subclass no version
        # reader knows): copies made in a runner before its first request (check_copies).
        # (a loop over the ~240 containers increfs each: ~80 pages copied on write in every life)
        if type(self.others) is list:
            self.others = tuple(self.others)
            self.rest = tuple(obj for obj in self.others if type(obj) not in _VIEWED)
        self.copies_checked = False

    def check_copies(self):
        """This process's own reading of the watched lists' and sets' items (its reader holding
        them alive) and copies of the rest: only before any student code ran in this process
        (base, at a runner's start); a check before it says unclean."""
        if not self.copies_checked:
            self.ids_base = self.ids.hold()
            if self.ids_base is None:     # (an item array moved since the reader was made)
                self.ids = container_ids(self.ids.containers, self.ids.how)
                self.ids.source = self.others
                self.ids_base = self.ids.hold()
            self._copies = tuple(type(obj)(obj) for obj in self.rest)
            self.copies_checked = True

    def rebind(self, name, value):
        """Our name NAME bound to VALUE after the snapshot was taken (Zygote.bind_reference: this
        writes it), and in its copy of our names too: the copy's tag (copied) follows when the two
        are equal, so a runner's Untouched may still start known; else it is unknown (the check
        compares).  Equal without comparing them when our names' tag is still the one the copy
        was made (or found equal) at: nothing wrote to them since, and both get the same write
        (the compare increfs every value: ~160 pages copied on write in each life)."""
        read = self.guard_read      # (None: no dict versions here)
        same = read is not None and self.copied[1] is not None and read()[1] == self.copied[1]
        harness = globals()
        harness[name] = value
        self.harness[name] = value
        self.copied[1] = read()[1] if read is not None and (same or _same_dict(self.harness, harness)) else None

    def installed_as(self, filename):
        """A zygote that adopted the template's snapshot (PATCHED: the patches installed for
        good, found in place as it took it): when nothing wrote to the patches' modules since
        (their version tags the snapshot's), sys.argv made FILENAME's as install_patches would,
        and those modules' tags then, from which a request process's guard on them starts known
        (worker._patch_tags: its first install_patches writes nothing, ~50 page copies); else None."""
        read = self.patch_read
        if self.patches_seen is None or read is None or read() != self.patches_seen:
            return None
        guard = Untouched(read, True)
        install_patches(filename, guard)        # (sys.argv alone, under the guard)
        return guard.tags

    def untouched(self):
        """A new runner's Untouched (None: no dict versions here), known to start as in the
        snapshot when neither was written since the snapshot's copies of them were made or found
        unchanged (_capture read their tags then: copied)."""
        read = self.guard_read      # (None: no dict versions here: _small_readers)
        if read is None:
            return None
        known = None not in self.copied[:2] and list(read()) == list(self.copied[:2])
        return Untouched(read, known)

    def base(self):
        """A runner's own start (after its fork and its patches): its settings, open fds, peak
        memory and the versions of the dicts watched (and the adopted copies checked); how this
        process reads its open fds (_fd_reader, made here: a poll object is per process); its
        handlers (_handlers) and the identities of the watched lists' and sets' items."""
        self.check_copies()
        fds = _fd_reader()
        return _settings(), fds(), _peak(), self.versions(), fds, _handlers(), self.ids_base

    def restore(self, stem, guard=None):
        """After a request, before the check: what a fresh fork would not have (the student's
        module, __main__ as the script, the caches it filled, the random state) put back.
        GUARD: the runner's Untouched (these writes to sys.modules are ours).  (The snapshot's
        sys.modules: a request that rebound the name is unclean, its object is not written.)"""
        modules = self.kept[0]
        if guard is not None:
            guard.mine()
        for name in (stem, "__main__"):
            if name in self.modules:
                modules[name] = self.modules[name]
            else:
                modules.pop(name, None)
        if guard is not None:
            guard.wrote()
        # A cache whose version tag is the one it had when it was last made equal to its copy
        # (restored here, or copied by _capture: copied) is equal to it: not written again (a
        # clear and an update write to the reference count of everything in it).
        tags = self.cache_tags
        if tags is None:
            tags = self.cache_tags = self.cache_read
            self.cache_seen = list(self.copied[2:])
        now = tags() if tags else [None] * len(self.restored)
        for (cache, copy), tag, seen in zip(self.restored, now, self.cache_seen):
            if tag is None or tag != seen:
                cache.clear()
                cache.update(copy)
        if tags:
            self.cache_seen = list(tags())
        read = self.random_read     # (the generator's own bytes as in the snapshot: nothing to put back)
        if read is None:
            random._inst.setstate(self.random)
        elif read() != self.random[0]:
            # Its bytes written back where they were read (what setstate(_random_state(...)) does
            # to them, without 625 ints made and converted); gauss_next is not written: one the
            # request changed moved random._inst's dict version, so the check says unclean anyway.
            self.random_write(self.random[0])

    def same(self, base, run):
        """True when everything the check sees is as in the snapshot (BASE: the runner's start).
        Cheapest first.  No code of the student's decides a compare: what may hold its objects
        (the lists and sets, sys.modules, our names, the handlers) is compared by identity, and
        the rest only once the versions say its holders are the snapshot's own (gc.garbage).
        A finalizer of the request's garbage runs here (gc.collect): the caller runs this under
        the request's timer and takes any exception as unclean.
        With the runner's guard unbroken (Untouched), sys.modules and our names are as in the
        snapshot without comparing them entry by entry, and it must still hold at the end."""
        if not self.copies_checked:     # (never so: base checked them before any student code)
            return False
        guard = run.guard
        modules = self.kept[0]
        if sys.modules is not modules:  # (the sys namespace's version moved too)
            return False
        untouched = guard is not None and guard.holds()
        # A thread could change what is compared while it is: first.  (Children, alive or not, are
        # not looked for here: a runner is made only with our own procfs, where the zygote reads
        # its threads and children after every answer, before it sends another request, and
        # retires it for any (Zygote.settled); only the runner can reap a child of its own, and
        # after this check only the harness runs in it.)
        if own_threads() or (not untouched and not _same_dict(modules, self.modules)):
            return False
        gc.collect()               # a finalizer of the request's garbage runs now, not in the next one
        if self.versions() != base[3] or gc.garbage or run.dirty is not False:
            return False
        if _settings() != base[0] or not _same_handlers(base[5]) or base[4]() != base[1]:
            return False
        if _peak() > base[2] + GROWTH or not self.ids.same(base[6]) or (self.rest and not _same_rest(self.rest, self._copies)):
            return False
        if untouched:
            return guard.holds()
        self.harness["_RUN"] = run
        return _same_dict(self.harness, globals())


class Untouched:
    """A guard on namespaces by their PEP 509 version tags: whether nothing but us wrote to them
    since a point where they were known to be as we want them.  A fresh runner's guard on
    sys.modules and our names (the harness's globals): whether they are as in the snapshot, without comparing them entry by entry (that writes to the reference
    count of every module and every harness object: ~100 pages copied on write in each runner).
    Their PEP 509 version tags (READ: a version_reader of the two) are read right before and
    right after each write of ours (Run.ours: sys.modules and _RUN; restore: mine(), wrote()), from a point
    where they were as in the snapshot (the runner's start when CleanState.untouched says so, or
    a passed check): a write by anything else in between (the student's code, a finalizer, a
    signal handler) moves a tag, breaks the guard, and the check compares them as before.  Our
    own writes are undone by restore (sys.modules) or are the one name the check sets itself
    (_RUN), so while the guard holds the two are as in the snapshot at the check.  A request
    process's guard on the modules install_patches writes to (worker._patch_tags): while it holds,
    the patches are exactly as it left them, and every request skips writing them again (~7 us;
    a student's write to any of those modules moves its tag, and they are written again)."""

    def __init__(self, read, known):
        self.read = read
        self.tags = read() if known else None      # (None: broken, or not known to start with)

    def mine(self):
        """Right before a write of ours: nothing else wrote since the last read."""
        if self.tags is not None and self.read() != self.tags:
            self.tags = None

    def wrote(self):
        if self.tags is not None:
            self.tags = self.read()

    def holds(self):
        return self.tags is not None and self.read() == self.tags

    def restored(self):
        """Everything it guards was just written as ours (install_patches): known from here."""
        self.tags = self.read()

    def known_as(self, tags):
        """Known from here when the tags now are TAGS (a reading where it was known: nothing
        wrote since)."""
        if tags is not None and self.read() == tags:
            self.tags = tags
        return self


def _random_reader(state):
    """(a function returning the state of random's own generator as bytes, read in its C struct,
    those bytes for STATE: its getstate(), and a function writing such bytes back there), or None
    where ctypes is not loaded or the struct is not as CPython 3.6-3.13 lays it out: after the
    object's head, the index, then the 624 words (checked: the bytes there are STATE's, which the
    generator has when this is made).  Equal bytes mean setstate(STATE) would change nothing (its
    gauss_next is in random._inst's attributes, whose dict the check watches): one copy and
    compare of 2.5 kB instead of 625 ints; and writing STATE's bytes there is setstate(STATE)
    for the generator (the same index and words; read back equal: the test)."""
    if sys.implementation.name != "cpython" or not (3, 6) <= sys.version_info[:2] <= (3, 13):
        return None
    ctypes = sys.modules.get("ctypes")     # (never imported here: the snapshot compares sys.modules)
    if ctypes is None:
        return None
    try:
        internal = state[1]
        words = struct.Struct(f"=i{len(internal) - 1}I")
        saved = words.pack(internal[-1], *internal[:-1])
        view = (ctypes.c_char * words.size).from_address(id(random._inst) + 16)
        if view.raw != saved:
            return None
    except (AttributeError, IndexError, TypeError, ValueError, struct.error):
        return None

    def read():
        return view.raw

    def write(raw):
        view.raw = raw
    return read, saved, write


def _settings():
    """Process and interpreter settings a request can change (the audit hook sees some more):
    numbers and sets of numbers the interpreter and the kernel make (its handlers: _handlers)."""
    mask = os.umask(0o077)
    os.umask(mask)
    return (sys.getrecursionlimit(), sys.getswitchinterval(), sys.get_int_max_str_digits(),
            sys.getdlopenflags(), sys.get_coroutine_origin_tracking_depth(), gc.isenabled(), gc.get_threshold(),
            gc.get_debug(), mask, os.getpriority(os.PRIO_PROCESS, 0), os.getpgrp(), os.getsid(0),
            os.sched_getaffinity(0), _signal.pthread_sigmask(signal.SIG_BLOCK, ()),
            tuple(map(_signal.getitimer, _ITIMERS)), tuple(map(resource.getrlimit, _RLIMITS)))


def _fds():
    """The open fds (a request that left one open is unclean)."""
    return sorted(os.listdir("/proc/self/fd"))


_POLLED_FDS = 1024      # the most fd numbers _fd_reader polls (a hard RLIMIT_NOFILE above: _fds)


def _fd_reader():
    """A function returning what the check compares of this process's open fds: _fds, or, where
    no fd can ever have a number at or above the hard RLIMIT_NOFILE (the kernel gives none at or
    above the soft one, which cannot be raised above the hard one; any change of either is in
    _settings) and none is open there now, one poll of every number below it (a third of
    _fds's cost: no path walk, no /proc directory filled).  Each polled number asks for no event,
    so the answer lists exactly the numbers that are not open (POLLNVAL) and the open ones
    hung up or in error: equal answers mean the same open fds (an fd changing only its hang-up
    state reads as unclean, which is only more conservative)."""
    try:
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        opened = [int(name) for name in os.listdir("/proc/self/fd")]
    except (OSError, ValueError):
        return _fds
    if hard == resource.RLIM_INFINITY or not 0 < hard <= _POLLED_FDS or max(opened, default=0) >= hard:
        return _fds
    poller = select.poll()
    for fd in range(hard):
        poller.register(fd, 0)

    def polled():
        return poller.poll(0)
    return polled


def _peak():
    """The most memory the runner ever had (kB): a request that took much more may leave the heap
    fragmented, and the next one less room under RLIMIT_AS than in a fork of its own."""
    return _real_getrusage(resource.RUSAGE_SELF).ru_maxrss
