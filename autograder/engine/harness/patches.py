"""The patches installed before student code runs: stdio, input(), exit(), os._exit, the random
module (randint answers from the scripted dice), and the timer and CPU-limit signal handlers."""

import _random
import builtins
import functools
import io
import operator
import os
import posix
import random
import signal
import stat
import sys
import types
from time import process_time as _process_time  # (bound before any student code runs)

from .base import _CpuLimit, _monotonic, _real_exit, _real_urandom, _Timeout, _type_name
from .clock import CLOCK_PATCHES
from .draws import _ORIG_RANDOM, _BaseRandom
from .endless import _OURS, LOOK_EVERY, early_wait, look, student_frame, until_look
from .lines import write_line
from .run import _RUN, _WRAPPERS
from .values import normalise


class _Out(io.TextIOBase):
    encoding = "utf-8"
    errors = "strict"

    def __init__(self, name):
        self.name = name

    def write(self, s):
        if type(s) is not str:
            if not isinstance(s, str):
                raise TypeError(f"write() argument must be str, not {_type_name(type(s))}")
            s = str.__str__(s)
        run = _RUN
        if run is not None:
            run.emit(s)
        return len(s)

    def writable(self):
        return True

    def isatty(self):
        return False

    def flush(self):
        pass

    def fileno(self):
        raise io.UnsupportedOperation("fileno")

    @property
    def buffer(self):
        return _OutBytes(self)


class _OutBytes:
    def __init__(self, text):
        self._text = text

    def write(self, b):
        return self._text.write(bytes(b).decode("utf-8", "replace"))

    def flush(self):
        pass


class _In(io.TextIOBase):
    encoding = "utf-8"
    name = "<stdin>"

    def readable(self):
        return True

    def isatty(self):
        return False

    def fileno(self):
        raise io.UnsupportedOperation("fileno")

    def readline(self, size=-1):
        return _ask("") + "\n"

    def read(self, size=-1):
        if _RUN is None:
            raise EOFError
        return _RUN.read_rest()

    def readlines(self, hint=-1):
        return self.read().splitlines(keepends=True)

    def __iter__(self):
        return self

    def __next__(self):
        return self.readline()


def _ask(prompt):
    if _RUN is None:
        raise EOFError("EOF when reading a line")
    return _RUN.ask(prompt)


def _input(prompt=""):
    return _ask(prompt if type(prompt) is str else str(prompt))


def _quit(code=None):
    raise SystemExit(code)


def _os_exit(code):
    """os._exit: report what the program did so far, then really exit."""
    if type(code) is not int:
        raise TypeError(f"'{_type_name(type(code))}' object cannot be interpreted as an integer")
    run = _RUN
    if run is not None and run.wfd is not None and os.getpid() == run.pid:
        run.in_student = False          # no timer tick may cut the result line: we exit right after
        try:
            run.exit = (code & 0xFF, "os._exit", str(code))
            res = run.finish({"status": "exit"})
            if "nonce" in run.req:          # (a fresh runner's request: the answer must carry it)
                res["nonce"] = run.req["nonce"]
            res["recycle"] = True
            write_line(run.wfd, res)
        except BaseException:
            pass
    _real_exit(code)


def _randint(a, b):
    run = _RUN
    if run is None:
        return _ORIG_RANDOM["randint"](a, b)
    if run.phase != "call":
        run.fix_draws()
        return _ORIG_RANDOM["randint"](a, b)
    return run.roll(a, b)


def _wrap_random(name, original):
    sets = name in ("seed", "setstate")     # the student's own seed or state: kept

    @functools.wraps(original, updated=())
    def wrapper(*args, **kwargs):
        run = _RUN
        if run is not None:
            if run.phase == "call":
                shown = normalise(list(args) + ([kwargs] if kwargs else []), budget=200)
                run.event(["seed", shown] if name == "seed" else ["random", name, shown])
            if not sets:
                run.fix_draws()
            elif name == "seed" and (run.grader_draws() or (not kwargs and (not args or args[0] is None))):
                run.reseed()                # random.seed() (from os.urandom), or any seed in a request
                return None                 # whose dice or seed the grader gives (the clock's, the
            else:                           # pid's: a lottery): the request's own (reported above)
                run.drawn = run.phase
        return original(*args, **kwargs)
    del wrapper.__wrapped__         # (the generator's own C method, a way around every draw's seeding)
    return wrapper


# The standard library's modules whose job is randomness (and pathlib, whose Path.open is an open()
# of the caller's): a draw made through them is the caller's.  A draw that another module makes for
# itself (tempfile's names) is seeded but not reported: the program did not break the RNG contract
# by making a temporary file.
_RANDOMNESS = frozenset(os.path.join(os.path.dirname(random.__file__), name)
                        for name in ("random.py", "secrets.py", "uuid.py", "pathlib.py"))


def _students_draw(run):
    """Whether the draw being made comes from the student's file (through random, secrets or uuid
    at most), not from another module of the standard library on its own behalf."""
    frame = sys._getframe(2)
    ours = _students_draw.__code__.co_filename          # the harness's own frames (its one program)
    while frame is not None:
        name = frame.f_code.co_filename
        if name not in _RANDOMNESS and name != ours:
            return name == run.filename
        frame = frame.f_back
    return False


def _report(run, name):
    """Report the draw NAME of RUN (a request in progress) when it is the student's (Run.note:
    once a request, in its call; the frames are walked only then)."""
    if run.phase == "call" and _students_draw(run):
        run.note(name)


def _reporting(cls):
    """CLS (a generator class student code makes its own of) with random() and getrandbits(), the
    two every draw of the generator reaches, reporting the draw ("Random") before its base's."""
    def random(self):
        run = _RUN
        if run is not None:
            _report(run, "Random")
        return super(cls, self).random()     # (a TypeError for another class's object, as before)

    def getrandbits(self, k):
        run = _RUN
        if run is not None:
            _report(run, "Random")
        return super(cls, self).getrandbits(k)

    for method in (random, getrandbits):
        method.__qualname__ = f"{cls.__qualname__}.{method.__name__}"
        setattr(cls, method.__name__, method)
    return cls


@_reporting
class _OwnRandom(_BaseRandom):
    """random.Random as student code sees it: one made without a seed is seeded from the request
    (the same numbers in every run of it), and its draws are reported (the RNG contract)."""

    def seed(self, a=None, version=2):
        run = _RUN
        if run is not None:
            _report(run, "Random")
            if a is None:
                a = run.own_seed()
        super().seed(a, version)


_OwnRandom.__name__ = _OwnRandom.__qualname__ = "Random"
_OwnRandom.__module__ = "random"


def _urandom_as(name):
    """os.urandom for student code (NAME: what it reports): inside a request, the request's own
    deterministic bytes (Run.stream); the harness's own entropy is _real_urandom, never this."""
    def urandom(size, /):
        size = operator.index(size)
        run = _RUN
        if run is None:
            return _real_urandom(size)
        if size < 0:
            raise ValueError("negative argument not allowed")
        _report(run, name)
        return run.stream().randbytes(size)
    urandom.__name__ = urandom.__qualname__ = "urandom"
    return urandom


_OS_URANDOM, _SYSTEM_URANDOM = _urandom_as("os.urandom"), _urandom_as("SystemRandom")
_GETRANDOM_BYTES = _urandom_as("os.getrandom")


def _getrandom(size, flags=0):
    """os.getrandom for student code: the request's bytes, as os.urandom (FLAGS: nothing blocks)."""
    operator.index(flags)
    return _GETRANDOM_BYTES(size)


_getrandom.__name__ = _getrandom.__qualname__ = "getrandom"


# The C generator class itself (_random.Random, what random.Random is built on), however student
# code reaches it (random.Random.__mro__, type(random._inst).__bases__, object.__subclasses__(), the
# gc): its own methods, patched on the class (prepare_random), so that no way to it draws from the
# kernel or from random's own generator unseeded.  Its seed without a value (and its __init__, which
# seeds) takes the request's instead of the kernel's entropy; random() and getrandbits() on
# random._inst seed that generator from the request first, as its wrapped functions do, and on
# any other generator report the student's draw ("Random", as random.Random's do).
_CRandom = random.SystemRandom.__mro__[2]
_C_SEED, _C_RANDOM = _CRandom.seed, _CRandom.random
_C_GETRANDBITS = _CRandom.getrandbits


def _c_seed(self, n=None, /):
    run = _RUN
    if run is not None and n is None:
        if self is random._inst:        # random.seed() by another name: the request's next seed
            if run.phase == "call":     # (reported as random.seed() is)
                run.event(["seed", []])
            run.reseed()
            return None
        _report(run, "Random")
        n = int.from_bytes(run.own_seed().encode(), "big")
    return _C_SEED(self, n)


def _c_init(self, *args, **kwargs):
    if kwargs and type(self) is _CRandom:
        raise TypeError("Random() takes no keyword arguments")
    if len(args) > 1:
        raise TypeError("Random() requires 0 or 1 argument")
    _c_seed(self, *args)


def _c_draw(self):
    """Before a draw of the C class's method on SELF (_c_random, _c_getrandbits: _bypassed reads
    their caller, one frame further out): random._inst seeded from the request first; a draw the
    harness did not make reported."""
    run = _RUN
    if run is not None:
        if self is not random._inst:    # the student's own generator of the C class (not one of
            if run.phase == "call" and _bypassed(run, 3):   # the harness's, nor one it reports)
                run.note("Random")
        else:
            run.fix_draws()
            if run.phase == "call" and _bypassed(run, 3):
                run.note("random._inst")


def _c_random(self):
    _c_draw(self)
    return _C_RANDOM(self)


def _c_getrandbits(self, k, /):
    _c_draw(self)
    return _C_GETRANDBITS(self, k)


_C_PATCHES = (("seed", _c_seed), ("__init__", _c_init), ("random", _c_random), ("getrandbits", _c_getrandbits))
for _name, _patch in _C_PATCHES:
    _patch.__name__, _patch.__qualname__ = _name, f"Random.{_name}"


class _ModuleRandom(_BaseRandom):
    """The class random's own generator (random._inst) is given (prepare_random): every draw
    reaches random() or getrandbits(), so one made through its methods directly, not random's
    wrapped functions (random._inst.choice, its bound methods taken before the patches), is seeded
    from the request like the rest (Run.fix_draws) and, from the student's file, reported."""

    def random(self):
        run = _RUN
        if run is not None:
            run.fix_draws()
            if run.phase == "call" and _bypassed(run):
                run.note("random._inst")
        return _C_RANDOM(self)         # (the C class's own: its patch would do all this again)

    def getrandbits(self, k):
        run = _RUN
        if run is not None:
            run.fix_draws()
            if run.phase == "call" and _bypassed(run):
                run.note("random._inst")
        return _C_GETRANDBITS(self, k)


_ModuleRandom.__name__ = _ModuleRandom.__qualname__ = "Random"
_ModuleRandom.__module__ = "random"


def _bypassed(run, depth=2):
    """Whether a draw on random's own generator comes from the student's file without passing
    through the harness (whose wrappers report it, and whose dice are no draw of the student's):
    read from DEPTH frames out (2: the caller of the method that asks)."""
    frame = sys._getframe(depth)
    while frame is not None:
        name = frame.f_code.co_filename
        if name == _HARNESS:
            return False
        if name not in _RANDOMNESS:
            return name == run.filename
        frame = frame.f_back
    return False


_HARNESS = _bypassed.__code__.co_filename


@_reporting
class _OwnCRandom(_random.Random):
    """_random.Random (the C generator random.Random is built on) as student code finds it in the
    _random module: one made without a seed is seeded from the request (as random.Random() is),
    and reported; its C __init__ would seed from the kernel's entropy."""

    def __init__(self, *args):
        run = _RUN
        if run is not None:
            _report(run, "Random")
            if not args or args[0] is None:
                args = (int.from_bytes(run.own_seed().encode(), "big"),)
        super().seed(*args)


_OwnCRandom.__name__ = _OwnCRandom.__qualname__ = "Random"
_OwnCRandom.__module__ = "_random"

_real_open = io.open
# The kernel's entropy devices (/dev/urandom, /dev/random: char 1,9 and 1,8), by device number:
# a symlink or another path to them is the same device.
_ENTROPY = {os.makedev(1, 9): "/dev/urandom", os.makedev(1, 8): "/dev/random"}


def _entropy_device(file):
    """The entropy device FILE (a path) opens, or None (the stat only for student code's opens)."""
    if not isinstance(file, (str, bytes, os.PathLike)):
        return None
    try:
        st = os.stat(file)
    except (OSError, TypeError, ValueError):
        return None
    return _ENTROPY.get(st.st_rdev) if stat.S_ISCHR(st.st_mode) else None


class _EntropyFile(io.RawIOBase):
    """An entropy device opened by student code: the request's bytes (Run.stream), as os.urandom."""

    def __init__(self, name, run):
        self.name = name
        self._run = run

    def readable(self):
        return True

    def readinto(self, buffer):
        view = memoryview(buffer).cast("B")
        data = self._run.stream().randbytes(len(view))
        view[:] = data
        return len(data)


def _open(file, mode="r", buffering=-1, encoding=None, errors=None, newline=None, closefd=True, opener=None):
    """open() for student code: an entropy device opened to read gives the request's bytes (the
    same in every run: os.urandom's stream); everything else is the real open."""
    run = _RUN
    if (run is not None and run.in_student and type(mode) is str and not any(c in mode for c in "wax+")
            and opener is None):
        device = _entropy_device(file)
        if device is not None:
            _report(run, f"open({device!r})")
            raw = _EntropyFile(file, run)
            if "b" in mode:
                return raw if buffering == 0 else io.BufferedReader(raw)
            return io.TextIOWrapper(io.BufferedReader(raw), encoding or "utf-8", errors, newline)
    return _real_open(file, mode, buffering, encoding, errors, newline, closefd, opener)


_open.__name__ = _open.__qualname__ = "open"
_real_os_open = os.open


def _student_os_open(path, flags, mode=0o777, *, dir_fd=None):
    """os.open for student code: an entropy device is refused (an fd of its own bytes cannot be
    made here): the same error in every run, never the kernel's bytes."""
    run = _RUN
    if run is not None and run.in_student and dir_fd is None and _entropy_device(path) is not None:
        raise PermissionError(13, "Permission denied (the grader gives no kernel entropy: use os.urandom)", path)
    return _real_os_open(path, flags, mode, dir_fd=dir_fd)


_student_os_open.__name__ = _student_os_open.__qualname__ = "open"


def prepare_random():
    """Wrap every public function of the real random module (so `from random import x` gets it)."""
    for name in dir(random):
        f = getattr(random, name)
        bound = isinstance(f, (types.MethodType, types.BuiltinMethodType))   # random.random is a builtin
        if name.startswith("_") or not bound or f.__self__ is not random._inst:
            continue
        _ORIG_RANDOM[name] = f
        _WRAPPERS[name] = _randint if name == "randint" else _wrap_random(name, f)
    if type(random._inst) is _BaseRandom:
        random._inst.__class__ = _ModuleRandom     # (its bound methods above keep their functions)
    for name, patch in _C_PATCHES:                  # (once: set on the class, every fork has them)
        if _CRandom.__dict__.get(name) is not patch:
            setattr(_CRandom, name, patch)


_STDOUT, _STDERR, _STDIN = _Out("<stdout>"), _Out("<stderr>"), _In()
# (module, name, the object install_patches binds there; random's wrappers: _WRAPPERS)
_PATCHES = ((sys, "stdout", _STDOUT), (sys, "__stdout__", _STDOUT), (sys, "stderr", _STDERR),
            (sys, "__stderr__", _STDERR), (sys, "stdin", _STDIN), (sys, "__stdin__", _STDIN),
            (builtins, "input", _input),
            (builtins, "exit", _quit), (builtins, "quit", _quit),      # `site` (skipped by -S) normally defines these
            (os, "_exit", _os_exit), (posix, "_exit", _os_exit),
            # draws that are not random's module functions (Run.stream, Run.own_seed)
            (os, "urandom", _OS_URANDOM), (posix, "urandom", _OS_URANDOM),
            (os, "getrandom", _getrandom), (posix, "getrandom", _getrandom),
            (random, "_urandom", _SYSTEM_URANDOM), (random, "Random", _OwnRandom), (_random, "Random", _OwnCRandom),
            (builtins, "open", _open), (io, "open", _open), (os, "open", _student_os_open), (posix, "open", _student_os_open)
            ) + CLOCK_PATCHES          # the request's clock (clock.py)
_PATCHED = tuple(dict.fromkeys(owner for owner, _, _ in _PATCHES)) + (random,)   # the modules it writes to


def install_patches(filename, tags=None):
    """(Re)install the patches: a student in the shared worker may have replaced them.  The same
    objects every time (sys.argv too, unless changed), so a fresh runner's clean-state check
    (clean.py) sees a process it may reuse as unchanged.  TAGS (a request process's clean.Untouched
    on those modules): not written again while nothing wrote to them since they were."""
    wrote = tags is None or not tags.holds()
    if wrote:
        for owner, name, patch in _PATCHES:
            setattr(owner, name, patch)
        for name, wrapper in _WRAPPERS.items():
            setattr(random, name, wrapper)
    if not _argv_is(filename):      # (its items can change without a write to the sys module: always looked at)
        sys.argv = [filename]
        wrote = True
    if wrote and tags is not None:
        tags.restored()


def patches_in_place(filename):
    """Whether every object install_patches(FILENAME) writes is the one it writes (by identity;
    nothing written)."""
    return (all(getattr(owner, name, None) is patch for owner, name, patch in _PATCHES)
            and all(getattr(random, name, None) is wrapper for name, wrapper in _WRAPPERS.items())
            and _argv_is(filename))


def _argv_is(filename):
    """Whether sys.argv is what install_patches(FILENAME) makes it: a list of FILENAME alone."""
    argv = sys.argv
    return type(argv) is list and len(argv) == 1 and argv[0] is filename


def _on_alarm(signum, frame):
    run = _RUN
    if run is None or not run.in_student:
        return
    if not run.timed_out:
        now = _monotonic()
        if now < run.deadline:       # an early tick: look for an endless loop (endless.py), go on
            if now < run.look_at:    # the early tick: a look only if the code ran LOOK_CPU on a CPU
                wait = early_wait(now, _process_time() - run.cpu_in, run.look_at, run.deadline)
                if wait is not None:
                    signal.setitimer(signal.ITIMER_REAL, wait, 0.05)
                    return
                signal.setitimer(signal.ITIMER_REAL, until_look(now, run.look_at, run.deadline), 0.05)
            else:
                signal.setitimer(signal.ITIMER_REAL, max(min(run.deadline - now, LOOK_EVERY), 0.001), 0.05)
            look(run, frame)
            return
        wait = run.extension()
        if wait > 0:                 # starved under its CPU limit: look again later
            signal.setitimer(signal.ITIMER_REAL, wait, 0.05)
            return
        run.timed_out = True
        run.stopped_in = student_frame(frame, run.filename)   # in the progress line too: the zygote
        run.progress(full=True)                                # may kill it before it reports
    raise _Timeout


def _on_xcpu(signum, frame):
    run = _RUN
    if run is None or not run.in_student:
        return
    run.cpu_limited = True
    raise _CpuLimit


_OURS.update((_on_alarm, _on_xcpu))
