"""Proving that a request is in an endless loop, so it stops at once instead of at its limit.

The soft timer ticks early (LOOK_AFTER after the request starts, then every LOOK_EVERY until its
limit; before them, in a life that had a loop proved, at LOOK_EARLY when the student's code ran
LOOK_CPU of CPU time by then);
at a tick inside the student's code, look() watches the interrupted frame opcode by
opcode (sys.settrace, f_trace_opcodes) for a few loop passes.  The loop is proved endless when the
frame comes back to the same loop head with every local bound to the very same objects as on an
earlier pass, and everything it ran in between is an opcode that cannot change any state and
cannot run other code: no call but of a built-in that only reads its arguments (_PURE: len, abs,
str.lower...; a 'call' event of any Python frame ends the watch, so does a CALL of anything else),
no store but into a local, no in-place operator, no iteration, no exception, and a subscript or an
`in` only of a list, tuple, str, bytes, dict, set, frozenset or range that a load put there (the C
code of another type can change state: a defaultdict's missing key inserts it, `x in iterator`
consumes the iterator).  The same state then gives the same passes forever.  The locals seen are kept alive, so an object's
id cannot be reused by a new one.  What could still change a state from outside is refused
before watching: another thread, a child process, a Python signal handler of the student's, a
trace or profile function, memory shared with any other process (a shared mapping that is not a
read-only system file).  A proved loop raises the timer's own exception (status "timeout", the
request's own limit in its message) and says "endless" in its result; the grader then charges the
timeout without running it again at a longer limit (Program._after_trial).  Anything unexpected
ends the watch and leaves the request to its limit, exactly as without this file."""

import opcode
import signal
import sys

from .base import _MISSING, HARNESS_FILE, _os_close, _os_open, _os_read, _Timeout

LOOK_AFTER = 0.01         # seconds after a request starts: its first look (most honest requests are done by
#                           then; a look at one that is not costs microseconds).  Each charged endless loop spins
#                           this long first: mallory's ~5 a grade, 0.27 -> 0.17 s of CPU at 0.03 -> 0.01.
LOOK_EARLY = 0.002        # in a life that had a loop proved endless (_LOOPED), one tick before that, this long
LOOK_CPU = 0.001          # after the student's code began: a look there when it ran this long on a CPU by then
#                           (a loop that spins: proved after ~2 ms, not 10), else the next tick at LOOK_AFTER.  Not
#                           in every life: the tick costs each request that takes over 2 ms of wall time (most,
#                           under load) ~30 us, ~3 % of an honest grade at load 15-25.  (Ticks again until LOOK_CPU
#                           ran: +5 ms a grade at load 10; a CPU timer, ITIMER_PROF, fires at the scheduler's tick,
#                           ~8 ms of CPU here.)
LOOK_EVERY = 0.05         # then a look at every tick until its limit (each costs microseconds)
MAX_LOOKS = 20            # looks per request (each ends at its first call or change of state)
MAX_OPS = 4000            # opcodes watched in one look
_PASSES = 12              # loop-head arrivals with a new state before a look gives up
_INPLACE = 13             # BINARY_OP arguments from here on are in-place (list += ... mutates)
_STILL = frozenset((
    "NOP", "RESUME", "CACHE", "EXTENDED_ARG", "PUSH_NULL", "POP_TOP", "COPY", "SWAP",
    "LOAD_CONST", "LOAD_FAST", "STORE_FAST", "LOAD_GLOBAL", "LOAD_NAME", "STORE_NAME", "LOAD_DEREF",
    "LOAD_CLOSURE", "LOAD_ATTR", "JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT",
    "POP_JUMP_FORWARD_IF_TRUE", "POP_JUMP_FORWARD_IF_FALSE", "POP_JUMP_BACKWARD_IF_TRUE",
    "POP_JUMP_BACKWARD_IF_FALSE", "POP_JUMP_FORWARD_IF_NONE", "POP_JUMP_FORWARD_IF_NOT_NONE",
    "POP_JUMP_BACKWARD_IF_NONE", "POP_JUMP_BACKWARD_IF_NOT_NONE", "JUMP_IF_TRUE_OR_POP",
    "JUMP_IF_FALSE_OR_POP", "COMPARE_OP", "IS_OP", "CONTAINS_OP", "BINARY_OP", "BINARY_SUBSCR",
    "UNARY_NOT", "UNARY_NEGATIVE", "UNARY_POSITIVE", "UNARY_INVERT", "GET_LEN",
    "LOAD_METHOD", "PRECALL", "KW_NAMES", "CALL"))   # a call: only of a function in _PURE (on_profile)
_STILL_OPS = frozenset(i for i, name in enumerate(opcode.opname) if name in _STILL)
_BINARY_OP = opcode.opmap.get("BINARY_OP", -1)
_CALL = opcode.opmap.get("CALL", -1)
# Built-in functions and methods that read their arguments and change nothing (no iterator
# consumed, no object changed); one that calls Python code (a __len__, an __eq__) shows as a call.
_PURE_CALLS = frozenset((len, abs, ord, chr, round, divmod, isinstance, callable))
_PURE_METHODS = {
    str: frozenset(("lower", "upper", "strip", "lstrip", "rstrip", "startswith", "endswith", "split",
                    "replace", "find", "index", "count", "isdigit", "isalpha", "isspace", "isupper",
                    "islower")),
    list: frozenset(("count", "index")), tuple: frozenset(("count", "index")), dict: frozenset(("get",)),
}
# A subscript or an `in` runs its container's C code, which may change state that no local shows
# (collections.defaultdict inserts a missing key through a C factory, directly or through a
# mappingproxy; `x in iterator` consumes a C iterator or a file): only these exact types only
# read, and only when the instruction just before loaded the container (or the key, with the
# container loaded just before it) can the watch name it.
_READ_ONLY_SUBSCR = frozenset((list, tuple, str, bytes, dict, range))
_READ_ONLY_IN = frozenset((list, tuple, str, bytes, dict, set, frozenset, range))
_SUBSCR = opcode.opmap.get("BINARY_SUBSCR", -1)
_CONTAINS = opcode.opmap.get("CONTAINS_OP", -1)
_LOADS = {opcode.opmap[name]: name for name in ("LOAD_CONST", "LOAD_FAST", "LOAD_DEREF", "LOAD_GLOBAL",
                                                 "LOAD_NAME") if name in opcode.opmap}
_EXTENDED_ARG = opcode.opmap.get("EXTENDED_ARG", -1)
_NULL_BIT = sys.version_info >= (3, 11)     # LOAD_GLOBAL's low bit: it pushes a NULL too
_OURS = set()             # the harness's own signal handlers (patches adds them)
_LOOPED = [False]         # set in a life's zygote once a request of that life was proved endless: the request
#                           processes it forks after that get the early tick (run.guarded), an honest life none


class _Look:
    """One watch of one frame (the tracer's state)."""

    def __init__(self, run, frame):
        self.run, self.frame = run, frame
        self.code = frame.f_code.co_code            # (3.11: a new bytes object per access)
        self.ops = 0
        self.last = -1
        self.head = None                            # the loop head: where a backward jump landed
        self.seen = {}                              # ids of the locals at each pass -> the locals
        self.calling = False                        # a CALL ran: its function must be in _PURE
        self.before = (-1, -1)                      # the offsets of the two instructions run last

    def stop(self):
        run = self.run
        run.looking = None
        self.frame.f_trace = None
        self.frame.f_trace_opcodes = False
        in_student, run.in_student = run.in_student, False     # the harness's own settrace: not
        try:                                                     # the student's attempt
            sys.settrace(None)
            sys.setprofile(None)
        finally:
            run.in_student = in_student

    def on_call(self, frame, event, arg):
        """The thread's trace function: any new Python frame is code the loop runs (not still)."""
        if event == "call":
            self.stop()
        return None

    def on_profile(self, frame, event, arg):
        """The thread's profile function: the function a CALL called must be in _PURE."""
        if self.run.looking is not self:
            return
        if event == "c_call" and self.calling and _pure(arg):
            self.calling = False
        elif event in ("call", "c_call"):
            self.stop()

    def on_frame(self, frame, event, arg):
        if frame is not self.frame or self.run.looking is not self:
            return None
        if event != "opcode":
            if event != "line":                     # return or exception: not an endless loop
                self.stop()
                return None
            return self.on_frame
        at = frame.f_lasti
        op = self.code[at]
        self.ops += 1
        if self.calling:                            # the last CALL called no function of _PURE
            self.stop()
            return None
        self.calling = op == _CALL
        if (op not in _STILL_OPS or (op == _BINARY_OP and self.code[at + 1] >= _INPLACE)
                or self.ops > MAX_OPS):
            self.stop()
            return None
        if (op == _SUBSCR or op == _CONTAINS) and self.head is not None and not self._reads_only(frame, op):
            self.stop()
            return None
        self.before = (self.before[1], at)
        back, self.last = at <= self.last, at
        if back and self.head is None:
            self.head = at
        if back and at == self.head:
            names = frame.f_locals
            values = list(names.values())           # kept alive in seen: ids stay unique
            ids = tuple(zip(names, map(id, values)))
            if ids in self.seen:                    # the state of an earlier pass: a cycle
                self.proved(values)
            self.seen[ids] = values
            if len(self.seen) > _PASSES:
                self.stop()
                return None
        return self.on_frame

    def _reads_only(self, frame, op):
        """The container of the subscript or `in` about to run is of a type whose C code only
        reads (_READ_ONLY_*), as a load just before it shows; anything else: not shown still."""
        key, last = self.before
        try:
            if op == _SUBSCR:                       # container, key, BINARY_SUBSCR
                _loaded(frame, self.code, last)     # (the key: one value pushed by a load)
                last = key
            container = _loaded(frame, self.code, last)
        except Exception:                       # noqa: BLE001 -- not a load: not shown still
            return False
        return type(container) in (_READ_ONLY_SUBSCR if op == _SUBSCR else _READ_ONLY_IN)

    def proved(self, values):
        run = self.run
        run.kept.append((self.seen, values))
        self.stop()
        run.endless = True
        run.timed_out = True
        run.stopped_in = student_frame(self.frame, run.filename)
        run.progress(full=True)
        raise _Timeout


def early_wait(now, cpu_used, look_at, deadline):
    """At the early tick (LOOK_EARLY into the student's code, before LOOK_AT): None to look now (it
    ran LOOK_CPU of CPU time, CPU_USED, so far: a loop that spins), else the seconds to the next
    tick, at LOOK_AT as without the early one (or the DEADLINE): a request the load keeps off the
    CPU pays one tick of microseconds, never the look's /proc reads before LOOK_AFTER."""
    if cpu_used >= LOOK_CPU:
        return None
    return until_look(now, look_at, deadline)


def until_look(now, look_at, deadline):
    """The seconds from NOW to the tick at LOOK_AT (or the DEADLINE, if sooner), never under 0.5 ms."""
    return max(min(look_at, deadline) - now, 0.0005)


def look(run, frame):
    """At an early tick of the soft timer (FRAME: the code it interrupted): watch FRAME for an
    endless loop when nothing outside it could change its state (see the module's doc)."""
    if (run.looking is not None or run.looks >= MAX_LOOKS or frame is None
            or frame.f_code.co_filename != run.filename or frame.f_code.co_filename == HARNESS_FILE):
        return
    run.looks += 1
    in_student, run.in_student = run.in_student, False     # reading /proc here is the harness's
    try:
        if not _quiet():
            return
        watch = _Look(run, frame)
        run.looking = watch
        frame.f_trace_lines = False
        frame.f_trace_opcodes = True
        frame.f_trace = watch.on_frame
        sys.settrace(watch.on_call)
        sys.setprofile(watch.on_profile)
    except Exception:                            # noqa: BLE001 -- no proof; the limit stops it as before
        run.looking = None
    finally:
        run.in_student = in_student


def _loaded(frame, code, at):
    """The one value the load instruction at offset AT of CODE (FRAME's) pushed; LookupError when
    it is not such a load.  Its binding cannot have changed since: only loads ran after it."""
    kind = _LOADS.get(code[at]) if at >= 0 else None
    if kind is None:
        raise LookupError(at)
    arg, back, shift = code[at + 1], at - 2, 8
    while back >= 0 and code[back] == _EXTENDED_ARG:
        arg, back, shift = arg | code[back + 1] << shift, back - 2, shift + 8
    f_code = frame.f_code
    if kind == "LOAD_CONST":
        return f_code.co_consts[arg]
    if kind == "LOAD_GLOBAL":
        if _NULL_BIT:
            if arg & 1:
                raise LookupError(at)               # two values pushed
            arg >>= 1
        name, spaces = f_code.co_names[arg], (frame.f_globals, frame.f_builtins)
    elif kind == "LOAD_NAME":
        name, spaces = f_code.co_names[arg], (frame.f_locals, frame.f_globals, frame.f_builtins)
    else:
        local_name = getattr(f_code, "_varname_from_oparg", None)
        if local_name is not None:
            name = local_name(arg)
        else:
            name = (f_code.co_varnames if kind == "LOAD_FAST" else f_code.co_cellvars + f_code.co_freevars)[arg]
        spaces = (frame.f_locals,)
    for space in spaces:
        value = space.get(name, _MISSING) if type(space) is dict else _MISSING
        if value is not _MISSING:
            return value
    raise LookupError(name)


def _pure(func):
    """FUNC (what a profile 'c_call' event names) reads its arguments and changes nothing."""
    if func in _PURE_CALLS:
        return True
    names = _PURE_METHODS.get(type(getattr(func, "__self__", None)))
    return names is not None and func.__name__ in names


def _quiet():
    """Nothing but this thread's own code can change its state: one thread, no child, no trace or
    profile function, no Python signal handler but the harness's, no memory shared with another
    process (read-only system files aside)."""
    if sys.gettrace() is not None or sys.getprofile() is not None:
        return False
    for sig in signal.valid_signals():
        handler = signal.getsignal(sig)
        if callable(handler) and handler not in _OURS and handler is not signal.default_int_handler:
            return False
    status = _proc_text("/proc/self/status")
    threads = [line for line in status.splitlines() if line.startswith("Threads:")]
    if threads != ["Threads:\t1"]:
        return False
    tid = [line.split()[1] for line in status.splitlines() if line.startswith("Pid:")]
    if not tid or _proc_text(f"/proc/self/task/{tid[0]}/children").strip():
        return False
    for line in _proc_text("/proc/self/maps").splitlines():
        fields = line.split()
        if len(fields) < 2 or fields[1][3:4] != "s":
            continue
        if fields[1][1] == "w" or len(fields) < 6 or not fields[5].startswith("/usr/"):
            return False
    return True


def _proc_text(path):
    fd = _os_open(path, 0)
    try:
        chunks = []
        while True:
            data = _os_read(fd, 65536)
            if not data:
                return b"".join(chunks).decode("ascii", "replace")
            chunks.append(data)
            if sum(map(len, chunks)) > 4 << 20:
                raise OSError("too long")
    finally:
        _os_close(fd)


def student_frame(frame, filename):
    """[name, first line] of the innermost frame of the student's file from FRAME outwards (None:
    none), as _innermost finds it in a traceback."""
    while frame is not None:
        code = frame.f_code
        if code.co_filename == filename:
            return [code.co_name, code.co_firstlineno]
        frame = frame.f_back
    return None
