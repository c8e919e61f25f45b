"""The clean-state check of a fresh runner (issue 13): one process serves consecutive fresh
requests of a sandbox, each with a freshly executed module, as long as no request leaves the
process different from a fresh fork of the zygote in any way the check can see.  Conservative:
anything changed or unknown retires the runner, and the next request gets a new fork.

The zygote takes the snapshot (CleanState) once, before gc.freeze: it never runs student code, so
everything in it is the standard library's and the harness's own, and every runner shares it."""

import _signal
import _thread
import builtins
import gc
import operator
import os
import posix
import random
import resource
import signal
import sys
import types

from .patches import install_patches

_CONTAINERS = (dict, list, set, bytearray)
_IMMUTABLE_TYPE = 1 << 8        # Py_TPFLAGS_IMMUTABLETYPE: a builtin type nobody can patch
_PLAIN = (types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.MethodType,
          types.BuiltinMethodType)
# Caches the standard library fills as honest code runs: put back as they were instead of compared.
_RESTORED = (("re", "_cache"), ("linecache", "cache"), ("encodings", "_cache"), ("sys", "path_importer_cache"))
_ITIMERS = (signal.ITIMER_VIRTUAL, signal.ITIMER_PROF)    # (the real one: reset after every request)
_RLIMITS = (resource.RLIMIT_CPU, resource.RLIMIT_AS, resource.RLIMIT_DATA, resource.RLIMIT_STACK,
            resource.RLIMIT_NOFILE, resource.RLIMIT_NPROC, resource.RLIMIT_FSIZE, resource.RLIMIT_MEMLOCK)
_SIGNALS = tuple(sorted(s for s in signal.valid_signals() if s not in (signal.SIGKILL, signal.SIGSTOP)))
GROWTH = 16 << 10               # kB of peak memory a runner may gain before it is retired
_PATCHED = (sys, builtins, os, posix, random)     # the modules install_patches writes to


class CleanState:
    """What a fresh fork of the zygote looks like (as a request sees it: with the patches every
    request installs), and the test that a runner still does."""

    def __init__(self, filename, how="auto"):
        if how in ("auto", "ctypes"):     # (loaded before the snapshot: the check compares sys.modules)
            try:
                import ctypes  # noqa: F401
            except ImportError:
                pass
        before = [(vars(mod), dict(vars(mod))) for mod in _PATCHED]
        install_patches(filename)
        try:
            self._take()
        finally:                        # the zygote itself keeps its own stdio and exit
            for names, saved in before:
                for key in [k for k in names if k not in saved]:
                    del names[key]
                names.update(saved)
        # (None: this Python offers no dict versions the check can trust: no fresh runner)
        self.versions, self.detector = version_reader(self.dicts, how)

    def _take(self):
        self.modules = dict(sys.modules)
        self.random = random.getstate()
        self.restored, skip = [], {id(sys.modules)}
        for mod_name, attr in _RESTORED:
            cache = getattr(self.modules.get(mod_name), attr, None)
            if type(cache) is dict:
                self.restored.append((cache, dict(cache)))
                skip.add(id(cache))
        harness = globals()
        self.harness = dict(harness)        # its _RUN is the request's during the check
        skip.add(id(harness))
        dicts, others, seen = [], [], skip

        def watch(obj):
            if id(obj) not in seen:
                seen.add(id(obj))
                (dicts if type(obj) is dict else others).append(obj)

        for mod in self.modules.values():
            names = getattr(mod, "__dict__", None)
            if type(names) is not dict:
                continue
            watch(names)
            for value in list(names.values()):
                kind = type(value)
                if kind in _CONTAINERS:
                    watch(value)
                elif isinstance(value, type):
                    if not value.__flags__ & _IMMUTABLE_TYPE:     # a patched class attribute: its
                        watch(gc.get_referents(value.__dict__)[0])  # dict itself, not a proxy
                elif kind not in _PLAIN:
                    inner = getattr(value, "__dict__", None)    # an object's attributes (random._inst,
                    if type(inner) is dict:                     # sys.stdout, os.environ and its data)
                        watch(inner)
                        for item in list(inner.values()):
                            if type(item) in _CONTAINERS:
                                watch(item)
        # Any change to a dict (a name rebound, added or removed; a value set) gives it a new
        # version (PEP 509): one C call per dict instead of comparing every entry (about 13k).
        self.dicts, self.others = dicts, others
        self.other_copies = [type(obj)(obj) for obj in others]

    def base(self):
        """A runner's own start (after its fork and its patches): its settings, open fds, peak
        memory and the versions of the dicts watched."""
        return _settings(), _fds(), _peak(), self.versions()

    def restore(self, stem):
        """After a request, before the check: what a fresh fork would not have (the student's
        module, __main__ as the script, the caches it filled, the random state) put back."""
        modules = sys.modules
        for name in (stem, "__main__"):
            if name in self.modules:
                modules[name] = self.modules[name]
            else:
                modules.pop(name, None)
        for cache, copy in self.restored:
            cache.clear()
            cache.update(copy)
        random.setstate(self.random)

    def same(self, base, run):
        """True when everything the check sees is as in the snapshot (BASE: the runner's start).
        Cheapest first.  Compares can meet objects the student put there (their __eq__ runs): the
        caller runs this under the request's timer and takes any exception as unclean."""
        if _thread._count() or sys.modules != self.modules:     # (the zygote reads /proc too)
            return False
        try:
            os.waitpid(-1, os.WNOHANG)     # any child at all (alive or not): unclean
            return False
        except ChildProcessError:
            pass
        gc.collect()               # a finalizer of the request's garbage runs now, not in the next one
        if gc.garbage or run.dirty or _settings() != base[0] or _fds() != base[1] or _peak() > base[2] + GROWTH:
            return False
        if self.versions() != base[3]:
            return False
        self.harness["_RUN"] = run
        return self.other_copies == self.others and self.harness == globals()


def version_reader(dicts, how="auto"):
    """(a function returning the version tags (PEP 509) of DICTS as a list, its name), or (None,
    None) when this Python offers none the check can trust: then there is no fresh runner, and
    every fresh request is a fork of its own.  Any write to a dict gives it a new version.

    HOW: "ctypes" reads the tag in each dict's own struct (_ctypes_reader: CPython 3.6-3.13, its
    layout checked here), "testcapi" through CPython's C test module, "auto" the first of the two
    that this Python allows, "none" neither (the grader's AUTOGRADER_DICT_VERSIONS)."""
    if how in ("auto", "ctypes"):
        read = _ctypes_reader(dicts)
        if read is not None:
            return read, "ctypes"
    if how in ("auto", "testcapi") and _TESTCAPI_VERSION is not None:
        return (lambda: list(map(_TESTCAPI_VERSION, dicts))), "testcapi"
    return None, None


_TAG_OFFSET = 24        # PyDictObject: ob_refcnt, ob_type, ma_used, then ma_version_tag (64-bit)


def _ctypes_reader(dicts, version=sys.version_info):
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
    if any(type(d) is not dict for d in dicts):
        return None
    starts = [id(d) for d in dicts]
    low = min(starts)       # (a dict not 8-aligned from it would be read at the wrong words: refused)
    words = (ctypes.c_uint64 * ((max(starts) - low) // 8 + 4)).from_address(low)
    first = [(start - low) // 8 for start in starts]
    if (set(_gather([i + 1 for i in first])(words)) != {id(dict)}
            or list(_gather([i + 2 for i in first])(words)) != [len(d) for d in dicts]):
        return None
    get = _gather([i + _TAG_OFFSET // 8 for i in first])

    def read():
        return get(words)
    if _TESTCAPI_VERSION is not None and (list(read()) != list(map(_TESTCAPI_VERSION, dicts))
                                          or tag.value != _TESTCAPI_VERSION(probe)):
        return None
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


def _settings():
    """Process and interpreter settings a request can change (the audit hook sees some more)."""
    mask = os.umask(0o077)
    os.umask(mask)
    return (sys.getrecursionlimit(), sys.getswitchinterval(), sys.get_int_max_str_digits(), sys.gettrace(),
            sys.getprofile(), sys.getdlopenflags(), tuple(sys.get_asyncgen_hooks()),
            sys.get_coroutine_origin_tracking_depth(), gc.isenabled(), gc.get_threshold(), gc.get_debug(),
            mask, os.getpriority(os.PRIO_PROCESS, 0), os.getpgrp(), os.getsid(0), os.sched_getaffinity(0),
            _signal.pthread_sigmask(signal.SIG_BLOCK, ()), tuple(map(_signal.getitimer, _ITIMERS)),
            tuple(map(resource.getrlimit, _RLIMITS)), tuple(map(_signal.getsignal, _SIGNALS)))


def _fds():
    """The open fds (a request that left one open is unclean)."""
    return sorted(os.listdir("/proc/self/fd"))


def _peak():
    """The most memory the runner ever had (kB): a request that took much more may leave the heap
    fragmented, and the next one less room under RLIMIT_AS than in a fork of its own."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
