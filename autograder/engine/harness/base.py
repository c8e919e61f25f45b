"""The harness's shared ground: stdlib imports (those marked F401 are for student programs), limits,
the builtins captured before any student code runs, and the private control-flow exceptions."""

# Imports marked F401 are for student programs: loaded once in the zygote, every fork has them.
import builtins
import collections  # noqa: F401
import copy  # noqa: F401
import itertools  # noqa: F401
import json
import math  # noqa: F401
import os
import re  # noqa: F401
import string  # noqa: F401
import time
import typing  # noqa: F401

HARNESS_FILE = "<sandbox-harness>"
MAX_EVENTS = 20_000
MAX_DEPTH = 20
MAX_ITEMS = 100_000
MAX_STR = 100_000
MAX_CHARS = 4_000_000         # characters of strings (and int digits) in one normalised value
MAX_INT_BITS = 4_000          # str(int) refuses > 4300 digits; keep well below
MAX_RESULT = 64 << 20         # bytes of one result line the zygote accepts
MAX_FRAMES = 30
BALLAST = 8 << 20             # address space freed on MemoryError so the harness can still report
GRACE = 0.5                   # the zygote kills a request this long after its soft timeout
STARVED = 0.5                 # a request that was running or runnable this share of its wall time
#                               (not sleeping or blocked) and under its CPU limit is starved, not slow
RESULT_PREFIX = b'{"t":"result"'
PROGRESS_PREFIX = b'{"t":"progress"'

# Captured before any student code runs (students may patch the modules).
_real_exit = os._exit
_real_urandom = os.urandom   # the harness's own entropy (nonces, names): the request's patch never reaches it
# The harness's own clocks (its limits, timers, flushes): student code reads clock.py's instead.
_monotonic, _real_sleep = time.monotonic, time.sleep
_dumps = json.JSONEncoder(ensure_ascii=True, separators=(",", ":")).encode


def _encoder():
    """_dumps without making a new C encoder on every call (JSONEncoder.encode does: about a
    third of encoding a result line): one made here, kept if it writes what _dumps writes.
    (No circular check: everything encoded is data the harness built, trees.)"""
    try:
        from json.encoder import c_encode_basestring_ascii, c_make_encoder
        encode = c_make_encoder(None, _dumps.__self__.default, c_encode_basestring_ascii, None, ":", ",",
                                False, False, True)
        probe = {"t": "x", "a": [1, -2.5, None, True, "\u00e9\n"], "b": {"c": 1e300 * 10}}
        if "".join(encode(probe, 0)) != _dumps(probe):
            return _dumps
    except Exception:       # (no _json here, or another signature)
        return _dumps
    join = "".join
    return lambda obj: join(encode(obj, 0))


_dumps = _encoder()
_loads = json.loads
_scan_json = json.JSONDecoder().scan_once


def _loads_line(line):
    """json.loads of a request line (the grader's ASCII JSON): scanned directly when it is one
    value up to its end (no encoding guess, no whitespace matches); anything else as json.loads."""
    try:
        text = line.decode("ascii")
        value, end = _scan_json(text, 0)
        if end == len(text):
            return value
    except (UnicodeDecodeError, StopIteration):
        pass
    return _loads(line)
_type_name = type.__dict__["__name__"].__get__
_exc_args = BaseException.__dict__["args"].__get__
_exc_tb = BaseException.__dict__["__traceback__"].__get__
_exit_code = SystemExit.__dict__["code"].__get__
_exec = exec
_os_open, _os_read, _os_close, _os_pread = os.open, os.read, os.close, os.pread
_MISSING = object()
_mro_of = type.__dict__["__mro__"].__get__
_type_dict = type.__dict__["__dict__"].__get__
_REFERENCE = None    # the reference's compiled module (Zygote), for requests that substitute functions
_BUILTIN_EXCEPTIONS = frozenset(
    v for v in vars(builtins).values() if isinstance(v, type) and issubclass(v, BaseException))


class _Stop(BaseException):
    """Private control flow; BaseException so `except Exception` in student code passes it on."""


class _InputExhausted(_Stop):
    pass


class _DiceExhausted(_Stop):
    pass


class _OutputLimit(_Stop):
    pass


class _Timeout(_Stop):
    pass


class _CpuLimit(_Stop):
    pass


class _ImportInput(_Stop):
    pass


_STOP_STATUS = {_InputExhausted: "input_exhausted", _DiceExhausted: "dice_exhausted",
                _OutputLimit: "output_limit", _Timeout: "timeout", _CpuLimit: "timeout",
                _ImportInput: "import_input"}


def _sched(pid="self", fd=None):
    """(CPU seconds, run-queue wait seconds) of PID's main thread from /proc/PID/schedstat, or None.

    The CPU limit of a request (see Run.extension): a thread that was on a CPU or waiting for one
    most of the time was held back by the machine's load, not by sleeping or blocking.  FD: that
    file kept open (own_sched), read again with one pread instead of three calls (student code
    that closed or replaced it only loses its own request's extensions under load)."""
    try:
        if fd is not None:
            data = _os_pread(fd, 200, 0)
        else:
            fd = _os_open(f"/proc/{pid}/schedstat", os.O_RDONLY)
            try:
                data = _os_read(fd, 200)
            finally:
                _os_close(fd)
        on_cpu, wait = data.split()[:2]
        return int(on_cpu) / 1e9, int(wait) / 1e9
    except (OSError, ValueError):
        return None


def own_sched():
    """An fd of this process's own schedstat, for a request process serving several requests
    (the fresh runner, the shared worker), or None."""
    try:
        return _os_open("/proc/self/schedstat", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None


def enter_own_folder(path, fresh):
    """Make PATH the harness's own folder and enter it: a run folder (FRESH: new and empty, as a
    fork's always was) or the shared worker's folder (kept when it is a real folder).  Whatever
    the student's code left at that name (it can guess it: `run-N` is the next number, `shared`
    is fixed) is renamed aside first, never entered: a folder of the next request's name, a file,
    a symbolic link; so is the work folder itself when a request replaced it (a link, a file);
    a folder whose owner's rights a request took away gets them back.  (Any of these made every
    later request of its life an internal error.)  The request process is the work folder's
    owner: it may rename and chmod there."""
    for repaired in (False, True):
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:
            if fresh or not os.path.isdir(path) or os.path.islink(path):
                _aside(path)
                os.mkdir(path, 0o700)
        except OSError:     # (ENOENT: a dangling link; ENOTDIR: a file; EACCES: a chmod)
            if repaired:
                raise       # (an internal error, as before)
            work = os.path.dirname(path)
            if os.path.islink(work) or not os.path.isdir(work):
                _aside(work)
                os.mkdir(work, 0o700)
            else:
                os.chmod(work, 0o700)
            continue
        break
    try:
        os.chdir(path)
    except PermissionError:     # (a kept shared folder whose rights a request took away)
        os.chmod(path, 0o700)
        os.chdir(path)


def _aside(path):
    """PATH renamed out of the harness's way, in its own folder (the zygote empties the tmp
    folders of everything but the work folder after every fresh request)."""
    os.rename(path, f"{path}.left-{_real_urandom(6).hex()}")
