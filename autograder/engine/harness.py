"""The code that runs INSIDE the sandboxed child process (stdlib only).

The grader (sandbox.py) never lets the child import this file: it sends the source text
through the child's stdin to `python -s -S -P -B -c <bootstrap>`, so the child reads no
repo file.  Protocol: after the source comes one JSON config line; then one JSON request
line per run.  Everything the child says goes, as JSON lines, to a dedicated result fd
(argv[1]), never to the student's stdout.

Process tree as root:   grader -> outer (root; unshares, mounts, waits)
                                  -> zygote (pid 1 of a new pid namespace, sandbox uid)
                                     -> one fork per fresh request, one shared worker.
In a grading session the outer process is a fork of the grader's template (root, harness
loaded, never sees a config: template_main) instead of a new interpreter; from there on the same.
Without root:           grader -> zygote (child subreaper) -> forks.
The zygote never runs student code: it compiles the source once and forks.  Fresh
requests run in a fork that imports the compiled code; fresh=False requests run in a
long-lived "shared worker" fork that imports the module once.
"""

# Imports marked F401 are for student programs: loaded once in the zygote, every fork has them.
import builtins
import collections  # noqa: F401
import copy  # noqa: F401
import difflib
import functools
import gc
import io
import itertools  # noqa: F401
import json
import math  # noqa: F401
import mmap
import os
import posix
import random
import re  # noqa: F401
import select
import shutil
import signal
import string  # noqa: F401
import sys
import time
import traceback
import types
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
PING_TIMEOUT = 0.5            # a shared worker that does not answer a ping this fast is replaced
RESULT_PREFIX = b'{"t":"result"'
PROGRESS_PREFIX = b'{"t":"progress"'

# Captured before any student code runs (students may patch the modules).
_real_exit = os._exit
_dumps = json.JSONEncoder(ensure_ascii=True, separators=(",", ":")).encode
_loads = json.loads
_type_name = type.__dict__["__name__"].__get__
_exc_args = BaseException.__dict__["args"].__get__
_exc_tb = BaseException.__dict__["__traceback__"].__get__
_exit_code = SystemExit.__dict__["code"].__get__
_exec = exec
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


# ---------------------------------------------------------------------------------------
# Normalisation: student values -> plain JSON data, without running any student code.
# ---------------------------------------------------------------------------------------
def normalise(x, budget=MAX_ITEMS):
    """Plain JSON data for X; anything that is not exactly a basic type becomes {"__type__": name}."""
    return _norm(x, 0, [budget, MAX_CHARS], set())


def _norm(x, depth, budget, path):
    """BUDGET = [items left, characters left]: a huge value (one long string shared by a
    million list slots) becomes a small summary, not a result line too big to encode."""
    t = type(x)
    budget[0] -= 1
    if t is str:
        if len(x) <= MAX_STR and len(x) <= budget[1]:
            budget[1] -= len(x)
            return x
        start = x[:max(0, min(1000, budget[1]))]
        budget[1] -= len(start)
        return {"__type__": "str", "length": len(x), "start": start}
    if t is int:
        digits = x.bit_length() // 3 + 1
        if x.bit_length() <= MAX_INT_BITS and digits <= budget[1]:
            budget[1] -= digits
            return x
        return {"__type__": "int", "too_large": True}
    if t is bool or t is float or x is None:
        return x
    if t is not list and t is not tuple and t is not dict:
        return {"__type__": _type_name(t)}
    if depth >= MAX_DEPTH or budget[0] <= 0:
        return {"__type__": _type_name(t), "truncated": True}
    if id(x) in path:
        return {"__type__": _type_name(t), "cycle": True}
    path.add(id(x))
    try:
        return _norm_dict(x, depth, budget, path) if t is dict else _norm_list(x, depth, budget, path)
    finally:
        path.discard(id(x))


def _norm_list(x, depth, budget, path):
    out = []
    for item in x:
        if budget[0] <= 0:
            out.append({"__type__": "...", "truncated": True})
            break
        out.append(_norm(item, depth + 1, budget, path))
    return out


def _norm_dict(x, depth, budget, path):
    keys = list(x)
    if any(type(k) is not str and type(k) is not int and type(k) is not bool for k in keys):
        return {"__type__": "dict", "keys": "not str/int"}
    out = {}
    for k in keys:
        if budget[0] <= 0:
            out["__truncated__"] = True
            break
        out[k if type(k) is str else str(int(k))] = _norm(dict.__getitem__(x, k), depth + 1, budget, path)
    return out


def _plain(x, depth=0):
    """True when str()/repr() of X cannot run student code."""
    t = type(x)
    if t in (str, int, float, bool) or x is None:
        return t is not int or x.bit_length() <= MAX_INT_BITS
    if (t is tuple or t is list) and depth < 3 and len(x) <= 50:
        return all(_plain(i, depth + 1) for i in x)
    return False


def _safe_str(x):
    if type(x) is str:
        return x
    return repr(x) if _plain(x) else f"<{_type_name(type(x))} object>"


# ---------------------------------------------------------------------------------------
# Exceptions -> plain dicts (frames from the student's file only).
# ---------------------------------------------------------------------------------------
def exception_message(e):
    args = _exc_args(e)
    try:
        if type(e) in _BUILTIN_EXCEPTIONS and all(_plain(a) for a in args):
            text = str(e)
        elif len(args) == 1:
            text = _safe_str(args[0])
        else:
            text = ", ".join(_safe_str(a) for a in args)
    except BaseException:
        text = "<message could not be shown>"
    return text if len(text) <= 2000 else text[:2000] + "..."


def exception_info(e, filename):
    frames = []
    tb = _exc_tb(e)
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename == filename:
            frames.append((tb.tb_lineno, code.co_name))
        tb = tb.tb_next
    trace = [f"{filename}, line {n}, in {name}" for n, name in frames]
    if len(trace) > MAX_FRAMES:   # deep recursion: keep both ends
        trace = trace[:5] + [f"... {len(trace) - 25} more lines ..."] + trace[-20:]
    return {"type": _type_name(type(e)), "message": exception_message(e),
            "line": frames[-1][0] if frames else None, "trace": trace}


def compile_source(source, filename):
    """(code, None) or (None, error dict) for the student's source."""
    try:
        return compile(source, filename, "exec", dont_inherit=True), None
    except SyntaxError as e:
        text = (e.text or "").rstrip("\n")
        return None, {"type": _type_name(type(e)), "message": str(e.msg), "line": e.lineno,
                      "text": text[:500] or None, "offset": e.offset,
                      "python": f"{sys.version_info[0]}.{sys.version_info[1]}"}
    except (MemoryError, RecursionError) as e:
        return None, {"type": _type_name(type(e)), "line": None, "text": None,
                      "message": "the code is nested too deeply for Python to compile"}
    except ValueError as e:
        return None, {"type": _type_name(type(e)), "message": exception_message(e), "line": None, "text": None}


# ---------------------------------------------------------------------------------------
# One request: captured I/O, scripted input, dice, timer, result.
# ---------------------------------------------------------------------------------------
_RUN = None          # the Run in progress in this process (wrappers consult it)
_ORIG_RANDOM = {}    # name -> original bound method of random._inst
_WRAPPERS = {}       # name -> wrapper installed in the random module


class Run:
    def __init__(self, req, cfg, wfd):
        self.req = req
        self.pid = os.getpid()      # forks made by the student's code must not report
        self.filename = cfg["filename"]
        self.limits = cfg["limits"]
        self.wfd = wfd
        self.timeout = float(req.get("timeout") or self.limits["wall_s"])
        self.deadline = time.monotonic() + self.timeout
        stdin = req.get("stdin")
        self.has_stdin = stdin is not None
        self.lines = [x if type(x) is str else str(x) for x in stdin or []]
        self.pos = self.asked = 0
        self.exhausted_at = None
        self.next_progress = 0
        dice = req.get("dice")
        self.dice = None if dice is None else list(dice)
        self.dice_pos = 0
        self.dice_failed_at = None
        self.phase = "call"
        self.events, self.events_truncated, self._pending = [], False, []
        self.out, self.import_out, self.cached_import_out = [], [], None
        self.chars = 0
        self.out_limited = False
        self.import_prompted = None
        self.timed_out = self.cpu_limited = self.in_student = False
        self.exit = None          # (code, via, arg)
        self.call_args = None
        self.instance = _MISSING   # the object a "Class.method" call constructed (state_after)
        self.ballast = None
        self.attempts = {}        # what the student's code tried beyond the assignment (audit hook)

    # -- output and events ---------------------------------------------------------------
    def emit(self, s, as_event=True, may_raise=True):
        room = self.limits["output_chars"] - self.chars
        over = len(s) > room
        if over:
            s = s[:max(room, 0)]
            self.out_limited = True
        if s:
            self.chars += len(s)
            if self.phase == "import":
                self.import_out.append(s)
            else:
                self.out.append(s)
                if as_event:
                    self._pending.append(s)
        if over and may_raise:
            raise _OutputLimit

    def event(self, ev):
        self._flush_out()
        self._add(ev)

    def _flush_out(self):
        if self._pending:
            text = "".join(self._pending)
            self._pending = []
            self._add(["out", text])

    def _add(self, ev):
        if len(self.events) < MAX_EVENTS:
            self.events.append(ev)
        else:
            self.events_truncated = True

    # -- input -----------------------------------------------------------------------------
    def ask(self, prompt):
        if self.phase == "import":
            self.import_prompted = {"line": self.student_line(), "prompt": prompt[:2000]}
            self.emit(prompt, may_raise=False)
            raise _ImportInput
        self.asked += 1
        if self.pos < len(self.lines):
            answer = self.lines[self.pos]
            self.pos += 1
            self.event(["in", prompt, answer])
            self.emit(prompt + answer + "\n", as_event=False)
            return answer
        if self.exhausted_at is None:
            self.exhausted_at = self.asked
            self.event(["in", prompt, None])
            self.emit(prompt, as_event=False, may_raise=False)
            self.progress(full=True)
        elif self.asked >= self.next_progress:
            self.progress(full=False)
        raise _InputExhausted

    def read_rest(self):
        """sys.stdin.read(): every remaining line at once (asks, and fails, when none is left)."""
        if self.phase == "import" or self.pos >= len(self.lines):
            return self.ask("") + "\n"
        parts = []
        while self.pos < len(self.lines):
            parts.append(self.ask("") + "\n")
        return "".join(parts)

    def student_line(self):
        f = sys._getframe(1)
        while f is not None:
            if f.f_code.co_filename == self.filename:
                return f.f_lineno
            f = f.f_back
        return None

    # -- dice ------------------------------------------------------------------------------
    def roll(self, a, b):
        if self.dice is not None:
            if self.dice_pos >= len(self.dice):
                if self.dice_failed_at is None:
                    self.dice_failed_at = self.dice_pos + 1
                raise _DiceExhausted
            value = self.dice[self.dice_pos]
            self.dice_pos += 1
        else:
            value = _ORIG_RANDOM["randint"](a, b)
        self.event(["roll", value])
        return value

    def seed(self):
        if self.req.get("seed") is not None:
            _ORIG_RANDOM["seed"](self.req["seed"])

    # -- progress (so a hard kill still knows what happened) -------------------------------
    def progress(self, full):
        self.next_progress = max(2 * self.asked, 1)
        if self.wfd is None or os.getpid() != self.pid:
            return
        if full:
            msg = self.result("running", final=False)
            msg["t"] = "progress"         # stays the first key: the zygote matches the prefix
        else:
            msg = {"t": "progress", "inputs_asked": self.asked}
        try:
            write_line(self.wfd, msg)
        except OSError:
            pass

    # -- timer -----------------------------------------------------------------------------
    def guarded(self, fn):
        """Run student code FN under the soft timer; a dict describing how it ended."""
        self.in_student = True
        signal.setitimer(signal.ITIMER_REAL, max(self.deadline - time.monotonic(), 0.001), 0.05)
        try:
            try:
                value = fn()
            finally:
                self.in_student = False
                signal.setitimer(signal.ITIMER_REAL, 0)
        except BaseException as e:
            return self.classify(e)
        return {"status": "ok", "value": value}

    def classify(self, e):
        t = type(e)
        if issubclass(t, _Stop):
            return {"status": _STOP_STATUS[t]}
        if issubclass(t, MemoryError):
            self.release_ballast()     # room for the harness to report
            return {"status": "memory", "error": exception_info(e, self.filename)}
        if issubclass(t, SystemExit):
            self.exit = _exit_details(_exit_code(e, t))
            return {"status": "exit", "error": exception_info(e, self.filename)}
        return {"status": "exception", "error": exception_info(e, self.filename)}

    def release_ballast(self):
        if self.ballast is not None:
            self.ballast.close()
            self.ballast = None

    # -- the two kinds of request ----------------------------------------------------------
    def execute(self, code, compile_error, shared):
        global _RUN
        _RUN = self
        cpu0 = time.process_time()
        install_audit()
        install_patches()
        self.ballast = _reserve(BALLAST)
        try:
            if compile_error is not None:
                res = self.result("syntax_error", error=compile_error)
            elif self.req.get("kind") == "script":
                res = self.run_script(code)
            else:
                res = self.run_call(code, shared)
        finally:
            _RUN = None
            self.release_ballast()
        res["cpu"] = round(time.process_time() - cpu0, 4)
        return res

    def run_script(self, code):
        mod = _new_module("__main__", self.filename)
        sys.modules["__main__"] = mod
        self.seed()
        return self.finish(self.guarded(lambda: exec(code, mod.__dict__)))

    def run_call(self, code, shared):
        imp = shared.get("import") if shared is not None else None
        if imp is None:
            imp = self.import_module(code)
            if shared is not None:
                shared["import"] = imp
        else:
            self.cached_import_out = imp["stdout"]
            self.import_prompted = imp["prompted"]
        if imp["failure"] is not None:
            return self.finish(imp["failure"])
        mod = imp["module"]
        sys.modules[mod.__name__] = mod
        undo = substitute(mod, self.req.get("substitute"))
        try:
            func = self.req.get("func")
            if type(func) is str and "." in func:
                return self.run_method(mod, func)
            target = mod.__dict__.get(func) if type(func) is str else None
            if target is None or not callable(target):
                return self.result("no_function", error=_no_function(func, mod))
            args, kwargs = self.req.get("args") or [], self.req.get("kwargs") or {}
            self.call_args = args
            self.seed()
            return self.finish(self.guarded(lambda: target(*args, **kwargs)))
        finally:
            undo()

    def run_method(self, mod, func):
        """FUNC = "Class.method".  With req["instance"] = {"init": [...], "kwargs": {...}, "state":
        {...}}: construct Class(*init, **kwargs) (stdin, dice and seed apply), set the STATE
        attributes, call the method; the result carries the instance's public attributes after it
        (state_after).  Without an instance: Class.method(*args) (a static or class method).
        The class and method are looked up without running student code (no __getattr__)."""
        cls_name, _, name = func.partition(".")
        cls = mod.__dict__.get(cls_name)
        if not issubclass(type(cls), type):      # (isinstance could consult a __class__ property)
            return self.result("no_function", error=_no_class(cls_name, mod))
        if "." in name or _static_attr(cls, name) is _MISSING:
            return self.result("no_function", error=_no_method(cls, cls_name, name))
        args, kwargs = self.req.get("args") or [], self.req.get("kwargs") or {}
        spec = self.req.get("instance")
        self.call_args = args
        self.seed()
        if spec is None:
            return self.finish(self.guarded(lambda: getattr(cls, name)(*args, **kwargs)))
        init, init_kw, state = spec.get("init") or [], spec.get("kwargs") or {}, spec.get("state") or {}

        def call():
            obj = cls(*init, **init_kw)
            self.instance = obj
            for key, value in state.items():
                setattr(obj, key, value)
            return getattr(obj, name)(*args, **kwargs)
        return self.finish(self.guarded(call))

    def import_module(self, code):
        stem = os.path.splitext(os.path.basename(self.filename))[0] or "submission"
        mod = _new_module(stem, self.filename)
        sys.modules[stem] = mod
        self.phase = "import"
        ended = self.guarded(lambda: exec(code, mod.__dict__))
        self.phase = "call"
        failure = None
        if ended["status"] in ("exception", "exit"):
            failure = {"status": "import_error", "error": ended["error"]}
            if ended["status"] == "exit":
                failure["error"]["message"] = f"sys.exit({self.exit[2]})"
                self.exit = None
        elif ended["status"] not in ("ok", "import_input"):
            failure = ended
        return {"module": mod, "stdout": "".join(self.import_out), "prompted": self.import_prompted,
                "failure": failure}

    # -- results ---------------------------------------------------------------------------
    def finish(self, ended):
        """The final result; input/dice/output trouble that the student swallowed still counts."""
        status = ended["status"]
        if status == "timeout" and not self.cpu_limited:
            self.timed_out = True
        if status in ("ok", "exception", "timeout", "exit"):
            for flag, sticky in ((self.exhausted_at, "input_exhausted"),
                                 (self.dice_failed_at, "dice_exhausted"), (self.out_limited, "output_limit"),
                                 (self.timed_out or self.cpu_limited, "timeout")):
                if flag:
                    status = sticky
                    break
        value = normalise(ended.get("value")) if status == "ok" else None
        return self.result(status, value=value, error=ended.get("error"))

    def result(self, status, value=None, error=None, final=True):
        if final:
            self._flush_out()
            events = self.events
        else:
            events = self.events + ([["out", "".join(self._pending)]] if self._pending else [])
        code, via, arg = self.exit or (None, None, None)
        return {
            "t": "result", "seq": self.req.get("seq"), "status": status, "value": value, "error": error,
            "stdout": "".join(self.out), "events": events, "events_truncated": self.events_truncated,
            "args_after": normalise(self.call_args) if self.call_args is not None else None,
            "state_after": instance_state(self.instance) if self.instance is not _MISSING else None,
            "import_stdout": self.cached_import_out if self.cached_import_out is not None
            else "".join(self.import_out),
            "import_prompted": self.import_prompted, "inputs_asked": self.asked,
            "stdin_lines": len(self.lines), "has_stdin": self.has_stdin, "exhausted_at": self.exhausted_at,
            "dice_used": self.dice_pos, "dice_provided": None if self.dice is None else len(self.dice),
            "dice_failed_at": self.dice_failed_at, "exit_code": code, "exit_via": via, "exit_arg": arg,
            "timed_out": self.timed_out, "cpu_limited": self.cpu_limited, "timeout": self.timeout,
            "output_chars": self.chars, "attempts": list(self.attempts)[:MAX_ATTEMPTS],
        }


def substitute(mod, sub):
    """Charge a bug once: put the reference's versions of SUB["names"] (the handout's functions of
    other stages) into the student's module MOD, so the student's code calls them by those names.
    The reference's functions see the student's own SUB["keep"] functions (the stage being graded;
    missing ones stay missing).  Returns the function that undoes it (the shared worker is reused)."""
    if not sub or _REFERENCE is None:
        return lambda: None
    ref = _new_module("__reference__", "<reference>")
    _exec(_REFERENCE, ref.__dict__)
    names = mod.__dict__
    for name in sub.get("keep") or ():
        own = names.get(name)
        if callable(own):
            ref.__dict__[name] = own
        else:
            ref.__dict__.pop(name, None)
    saved = {}
    for name in sub.get("names") or ():
        if type(ref.__dict__.get(name)) is types.FunctionType:
            saved[name] = names.get(name, _MISSING)
            names[name] = ref.__dict__[name]

    def undo():
        for name, old in saved.items():
            if old is _MISSING:
                names.pop(name, None)
            else:
                names[name] = old
    return undo


def _reserve(size):
    """Untouched anonymous memory: costs address space (RLIMIT_AS) but no page faults."""
    try:
        return mmap.mmap(-1, size)
    except (OSError, ValueError):
        return None


def _exit_details(code):
    """(exit code, how, argument text) for sys.exit(CODE)."""
    if code is None:
        return 0, "sys.exit", ""
    if type(code) is int or type(code) is bool:
        return int(code), "sys.exit", str(int(code))
    return 1, "sys.exit", _safe_str(code)[:200]


def _new_module(name, filename):
    mod = types.ModuleType(name)
    mod.__file__ = filename
    mod.__builtins__ = builtins
    return mod


def _no_function(func, mod):
    names = sorted(k for k, v in list(mod.__dict__.items())
                   if type(k) is str and not k.startswith("__") and callable(v))
    close = difflib.get_close_matches(func, names, n=1) if type(func) is str else []
    return {"type": "NameError", "message": f"name {_safe_str(func)!r} is not defined",
            "suggestion": close[0] if close else None}


def _no_class(name, mod):
    names = sorted(k for k, v in list(mod.__dict__.items())
                   if type(k) is str and not k.startswith("_") and issubclass(type(v), type))
    close = difflib.get_close_matches(name, names, n=1)
    return {"type": "NameError", "message": f"name {name!r} is not defined (a class)",
            "suggestion": close[0] if close else None}


def _no_method(cls, cls_name, name):
    names = sorted({k for klass in _mro_of(cls) if klass is not object
                    for k in list(_type_dict(klass)) if type(k) is str and not k.startswith("__")})
    close = difflib.get_close_matches(name, names, n=1)
    return {"type": "AttributeError", "message": f"class {cls_name!r} has no attribute {name!r}",
            "suggestion": close[0] if close else None}


def _static_attr(cls, name):
    """CLS's attribute NAME from the class dictionaries of its MRO (no descriptor, no __getattr__ runs)."""
    for klass in _mro_of(cls):
        d = _type_dict(klass)
        if name in d:
            return d[name]
    return _MISSING


def instance_state(obj):
    """OBJ's public attributes (its __dict__ and __slots__), normalised, read without running any
    of its code: no property, __getattr__, __getattribute__ or overridden __dict__ is consulted."""
    cls = type(obj)
    state, own = {}, None
    for klass in _mro_of(cls):
        for key, attr in list(_type_dict(klass).items()):
            if key == "__dict__" and own is None and type(attr) is types.GetSetDescriptorType:
                try:
                    own = attr.__get__(obj, cls)
                except (TypeError, AttributeError):
                    own = None
            elif (type(attr) is types.MemberDescriptorType and type(key) is str and not key.startswith("_")
                  and key not in state and len(state) < MAX_ITEMS):
                try:
                    state[key] = attr.__get__(obj, cls)
                except AttributeError:       # an empty slot
                    pass
    if issubclass(type(own), dict):
        for key in dict.keys(own):
            if len(state) >= MAX_ITEMS:
                break
            if type(key) is str and not key.startswith("_"):
                state[key] = dict.__getitem__(own, key)
    return normalise(state)


# ---------------------------------------------------------------------------------------
# Patches: stdio, input(), exit(), os._exit, the random module.
# ---------------------------------------------------------------------------------------
class _Out(io.TextIOBase):
    encoding = "utf-8"
    errors = "strict"

    def __init__(self, name):
        self.name = name

    def write(self, s):
        if not isinstance(s, str):
            raise TypeError(f"write() argument must be str, not {_type_name(type(s))}")
        s = str.__str__(s)
        if _RUN is not None:
            _RUN.emit(s)
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
        try:
            run.exit = (code & 0xFF, "os._exit", str(code))
            res = run.finish({"status": "exit"})
            res["recycle"] = True
            write_line(run.wfd, res)
        except BaseException:
            pass
    _real_exit(code)


def _randint(a, b):
    run = _RUN
    if run is None or run.phase != "call":
        return _ORIG_RANDOM["randint"](a, b)
    return run.roll(a, b)


def _wrap_random(name, original):
    @functools.wraps(original)
    def wrapper(*args, **kwargs):
        run = _RUN
        if run is not None and run.phase == "call":
            shown = normalise(list(args) + ([kwargs] if kwargs else []), budget=200)
            run.event(["seed", shown] if name == "seed" else ["random", name, shown])
        return original(*args, **kwargs)
    return wrapper


def prepare_random():
    """Wrap every public function of the real random module (so `from random import x` gets it)."""
    for name in dir(random):
        f = getattr(random, name)
        bound = isinstance(f, (types.MethodType, types.BuiltinMethodType))   # random.random is a builtin
        if name.startswith("_") or not bound or f.__self__ is not random._inst:
            continue
        _ORIG_RANDOM[name] = f
        _WRAPPERS[name] = _randint if name == "randint" else _wrap_random(name, f)


_STDOUT, _STDERR, _STDIN = _Out("<stdout>"), _Out("<stderr>"), _In()


# -- what the student's code tried (Python audit events): the instructor sees it ---------------
MAX_ATTEMPTS = 20
_AUDITED = frozenset({
    "open", "os.listdir", "os.scandir", "os.system", "subprocess.Popen", "os.exec", "os.posix_spawn",
    "os.spawn", "os.fork", "os.forkpty", "socket.connect", "socket.bind", "socket.getaddrinfo",
    "socket.gethostbyname", "os.kill", "os.killpg", "os.remove", "os.rename", "os.rmdir", "os.symlink",
    "os.link", "os.chmod", "os.chown", "shutil.rmtree", "ctypes.dlopen"})
_LIBRARY = tuple(sorted({os.path.join(os.path.realpath(p), "") for p in
                         (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix)}))
_AUDIT_ON = [False]


def _describe(event, args):
    def text(x, limit=160):
        x = x.decode("utf-8", "replace") if isinstance(x, bytes) else str(x)
        return x if len(x) <= limit else x[:limit] + "..."
    if event == "open":
        path, mode = args[0], args[1]
        if isinstance(path, int):
            return None
        path = text(path if isinstance(path, (str, bytes)) else os.fspath(path))
        writing = isinstance(mode, str) and any(c in mode for c in "wax+")
        if not writing and (path.startswith(_LIBRARY) or path.startswith("/dev/")):
            return None                           # imports of the standard library
        return f"opened the file {path!r} to {'write' if writing else 'read'}"
    if event in ("os.listdir", "os.scandir"):
        return f"listed the folder {text(args[0])!r}"
    if event == "os.system":
        return f"ran the shell command {text(args[0])!r}"
    if event in ("subprocess.Popen", "os.exec", "os.posix_spawn", "os.spawn"):
        return f"started the program {text(args[1] if len(args) > 1 and args[1] else args[0])!r}"
    if event in ("os.fork", "os.forkpty"):
        return "started a new process (fork)"
    if event in ("socket.connect", "socket.bind"):
        return f"used the network ({event.split('.')[1]} to {text(args[1])})"
    if event in ("socket.getaddrinfo", "socket.gethostbyname"):
        return f"used the network (looked up {text(args[0])!r})"
    if event in ("os.kill", "os.killpg"):
        return f"sent signal {text(args[1])} to process {text(args[0])}"
    if event == "ctypes.dlopen":
        return f"loaded the C library {text(args[0])!r}"
    return f"changed files ({event} {text(args[0])!r})"


def _audit(event, args):
    if event not in _AUDITED:
        return
    run = _RUN
    if run is None or not run.in_student or len(run.attempts) >= MAX_ATTEMPTS:
        return
    try:
        what = _describe(event, args)
    except Exception:
        what = f"{event} (could not describe)"
    if what:
        run.attempts[what] = True


def install_audit():
    """Once per process (forks inherit it): record what student code tries that the assignment never
    needs: files outside the library, the network, other programs, signals.  Audit hooks cannot be
    removed, and this one only records: the sandbox is what refuses."""
    if not _AUDIT_ON[0]:
        sys.addaudithook(_audit)
        _AUDIT_ON[0] = True


def install_patches():
    """(Re)install the patches: a student in the shared worker may have replaced them."""
    sys.stdout = sys.__stdout__ = _STDOUT
    sys.stderr = sys.__stderr__ = _STDERR
    sys.stdin = sys.__stdin__ = _STDIN
    builtins.input = _input
    builtins.exit = builtins.quit = _quit      # `site` (skipped by -S) normally defines these
    os._exit = posix._exit = _os_exit
    for name, wrapper in _WRAPPERS.items():
        setattr(random, name, wrapper)
    sys.argv = [_RUN.filename if _RUN else ""]


def _on_alarm(signum, frame):
    run = _RUN
    if run is None or not run.in_student:
        return
    if not run.timed_out:
        run.timed_out = True
        run.progress(full=True)
    raise _Timeout


def _on_xcpu(signum, frame):
    run = _RUN
    if run is None or not run.in_student:
        return
    run.cpu_limited = True
    raise _CpuLimit


# ---------------------------------------------------------------------------------------
# Pipes.
# ---------------------------------------------------------------------------------------
def write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def write_line(fd, obj):
    write_all(fd, _dumps(obj).encode("ascii") + b"\n")


class Lines:
    """Blocking line reader on a raw fd (no buffering surprises across fork)."""

    def __init__(self, fd):
        self.fd = fd
        self.buf = bytearray()

    def readline(self):
        while True:
            i = self.buf.find(b"\n")
            if i >= 0:
                line = bytes(self.buf[:i])
                del self.buf[:i + 1]
                return line
            chunk = os.read(self.fd, 1 << 16)
            if not chunk:
                return None
            self.buf += chunk


def _pidfd(pid):
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None


# ---------------------------------------------------------------------------------------
# The zygote: compiles once, forks a child per fresh request, keeps one shared worker.
# ---------------------------------------------------------------------------------------
class Worker:
    def __init__(self, pid, req_w, res_r):
        self.pid, self.req_w, self.res_r = pid, req_w, res_r
        self.pidfd = _pidfd(pid)
        self.buf = bytearray()

    def close(self):
        for fd in (self.req_w, self.res_r, self.pidfd):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass


class Zygote:
    def __init__(self, cfg, ctl, ctl_fd, res_fd, applied):
        self.cfg, self.ctl, self.ctl_fd, self.res_fd, self.applied = cfg, ctl, ctl_fd, res_fd, applied
        self.workdir = os.getcwd()
        self.private_tmp = bool(cfg.get("root") and cfg.get("namespaces"))
        # Without a procfs of our own pid namespace, /proc pids do not match ours: use kill(-1).
        self.use_proc = not cfg.get("pidns") or applied.get("proc", False)
        self.worker = None
        self.worker_gen = 0       # +1 each time the shared worker is stopped (the grader replays history)
        self.nrun = 0
        self.code, self.compile_error = compile_source(cfg["source"], cfg["filename"])
        global _REFERENCE
        if cfg.get("reference"):    # compiled once here, so every fork has it; the text is dropped
            _REFERENCE = compile(cfg.pop("reference"), "<reference>", "exec", dont_inherit=True)
        prepare_random()
        signal.signal(signal.SIGALRM, _on_alarm)
        signal.signal(signal.SIGXCPU, _on_xcpu)
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)   # over RLIMIT_FSIZE: OSError, not death
        gc.collect()
        gc.freeze()   # fewer copy-on-write faults in the forks

    def serve(self):
        write_line(self.res_fd, {"t": "ready", "applied": self.applied})
        while True:
            line = self.ctl.readline()
            if line is None:
                break
            try:
                req = _loads(line)
            except ValueError:
                continue
            if req.get("op") == "quit":
                break
            if req.get("op") == "batch":
                self.handle_batch(req)
                continue
            self.handle(req)
        self.stop_worker()
        self.kill_descendants(keep=())
        _real_exit(0)

    def handle(self, req):
        """Run one request and report it; True when it left everything clean (see handle_batch)."""
        try:
            if req.get("kind") == "script" or req.get("fresh", True):
                raw, info = self.run_fresh(req)
            else:
                raw, info = self.run_shared(req)
        except BaseException:
            raw, info = None, {"internal": traceback.format_exc()}
        trailer = {"t": "done", "seq": req.get("seq"), "zygote_cpu": round(time.process_time(), 3)}
        trailer.update(info)
        trailer["worker_gen"] = self.worker_gen
        write_all(self.res_fd, (raw + b"\n" if raw else b"") + _dumps(trailer).encode("ascii") + b"\n")
        return (raw is not None and not info.get("killed") and not info.get("internal")
                and not raw.endswith(b'"recycle":true}') and _clean_status(raw))

    def handle_batch(self, msg):
        """A student's request plan in one message: run each request exactly as handle() would (a
        fork per fresh request, the shared worker for the others), with no grader round trip in
        between; stop after the first one that did not end cleanly (a timeout, memory, a replaced
        shared worker, an internal error) and let the grader run the rest one by one."""
        if msg.get("reset_worker"):
            self.stop_worker()
            shutil.rmtree(os.path.join(self.workdir, "shared"), ignore_errors=True)
        ran = 0
        budget = msg.get("budget")
        started = time.monotonic()
        for req in msg.get("requests") or []:
            if not isinstance(req, dict):
                break
            if isinstance(budget, (int, float)) and time.monotonic() - started > budget:
                break
            ran += 1
            if not self.handle(req) or time.process_time() > self.cfg["limits"]["cpu_s"] / 2:
                break
        write_line(self.res_fd, {"t": "batch_end", "ran": ran})

    def deadline(self, req):
        return time.monotonic() + float(req.get("timeout") or self.cfg["limits"]["wall_s"]) + GRACE

    # -- fresh requests: one fork each -----------------------------------------------------
    def run_fresh(self, req):
        self.nrun += 1
        rundir = os.path.join(self.workdir, f"run-{self.nrun}")
        deadline = self.deadline(req)
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                os.close(r)
                self.close_for_child()
                os.mkdir(rundir, 0o700)
                os.chdir(rundir)
                child_run(self, req, w, None)
            finally:
                _real_exit(117)
        os.close(w)
        pidfd = _pidfd(pid)
        try:
            raw, info = self.wait_for(pid, r, pidfd, bytearray(), deadline, False, req.get("seq"))
        finally:
            for fd in (r, pidfd):
                if fd is not None:
                    os.close(fd)
        self.kill_descendants(keep=self.worker_pids())
        self.clean_files(rundir)
        return raw, info

    # -- fresh=False requests: the shared worker -------------------------------------------
    def run_shared(self, req):
        if self.worker is not None and not self.worker_idle(self.worker):
            self.stop_worker()
        if self.worker is None:
            self.start_worker()
        wk = self.worker
        ran_in = self.worker_gen
        try:
            write_all(wk.req_w, _dumps(req).encode("ascii") + b"\n")
        except OSError:
            pass    # it died; wait_for reports how
        raw, info = self.wait_for(wk.pid, wk.res_r, wk.pidfd, wk.buf, self.deadline(req), True, req.get("seq"))
        extra = bool(wk.buf)        # more than one answer: it wrote out of turn
        wk.buf.clear()
        if (extra or info.get("exited") or info.get("killed") or raw is None
                or raw.endswith(b'"recycle":true}')):
            self.stop_worker()
        self.kill_descendants(keep=self.worker_pids())
        info["ran_in"] = ran_in
        return raw, info

    def worker_idle(self, wk):
        """True when the shared worker may serve the next request: alive, one thread, no
        children, nothing written since its last answer, and back in its request loop (it
        answers a ping with a fresh nonce).  Its lines are the student's process talking: the
        first line with a request's seq is taken as the answer, so a worker still busy with an
        earlier request (say, writing result lines for later seqs) could answer the next one,
        and which one would depend on timing.  A replaced worker makes the grade repeatable."""
        if not _alive(wk.pid):
            return False
        if self.use_proc:
            try:
                if len(os.listdir(f"/proc/{wk.pid}/task")) > 1:
                    return False
            except OSError:
                return False
            if _children(wk.pid):
                return False
        ahead = bytearray()
        if _drain(wk.res_r, ahead) or ahead:
            return False
        nonce = os.urandom(8).hex()
        try:
            write_all(wk.req_w, _dumps({"ping": nonce}).encode("ascii") + b"\n")
        except OSError:
            return False
        want = _dumps({"t": "pong", "nonce": nonce}).encode("ascii") + b"\n"
        poller = select.poll()
        poller.register(wk.res_r, select.POLLIN)
        deadline = time.monotonic() + PING_TIMEOUT
        while len(ahead) < len(want):
            left = deadline - time.monotonic()
            if left <= 0 or not poller.poll(left * 1000) or _drain(wk.res_r, ahead):
                break
        return bytes(ahead) == want

    def start_worker(self):
        req_r, req_w = os.pipe()
        res_r, res_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                os.close(req_w)
                os.close(res_r)
                self.close_for_child()
                shared_dir = os.path.join(self.workdir, "shared")
                os.makedirs(shared_dir, exist_ok=True)
                os.chdir(shared_dir)
                worker_loop(self, req_r, res_w)
            finally:
                _real_exit(117)
        os.close(req_r)
        os.close(res_w)
        self.worker = Worker(pid, req_w, res_r)

    def stop_worker(self):
        wk, self.worker = self.worker, None
        if wk is None:
            return
        self.worker_gen += 1
        try:
            os.kill(wk.pid, signal.SIGKILL)
            os.waitpid(wk.pid, 0)
        except OSError:
            pass
        wk.close()

    def worker_pids(self):
        return {self.worker.pid} if self.worker is not None else set()

    def close_for_child(self):
        """A request process must not hold the grader's pipes or the worker's."""
        fds = [self.ctl_fd, self.res_fd]
        if self.worker is not None:
            fds += [self.worker.req_w, self.worker.res_r, self.worker.pidfd]
        for fd in fds:
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass

    # -- waiting for a request process -----------------------------------------------------
    def wait_for(self, pid, fd, pidfd, buf, deadline, stay, seq):
        """Collect PID's result line (and progress) until it exits, or (STAY) until it answers.

        Returns (raw result bytes or None, trailer info)."""
        os.set_blocking(fd, False)
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        if pidfd is not None:
            poller.register(pidfd, select.POLLIN)
        raw, progress, exited, killed = None, None, False, False
        _STRAY[0] = 0
        while not exited and not (stay and raw is not None):
            left = deadline - time.monotonic()
            if left <= 0 or len(buf) > MAX_RESULT:
                killed = True
                break
            for ready, _ in poller.poll(1000 * (left if pidfd is not None else min(left, 0.005))):
                if ready == fd and _drain(fd, buf):
                    poller.unregister(fd)
                elif ready == pidfd:
                    exited = True
            if pidfd is None and not exited:
                exited = not _alive(pid)
            raw, progress = _scan(buf, raw, progress, seq)
        info = {"killed": killed, "exited": exited or killed}
        if buf.startswith(RESULT_PREFIX):
            _STRAY[0] += 1                # a second result line right behind the accepted one
        if killed:
            _kill(pid)
        if exited or killed:
            info.update(_reap(pid))
            _drain(fd, buf)
            raw, progress = _scan(buf, raw, progress, seq)
        if raw is None:
            info["progress"] = progress
        if _STRAY[0]:
            info["forged"] = _STRAY[0]
        return raw, info

    # -- cleaning up after a request -------------------------------------------------------
    def kill_descendants(self, keep):
        """Kill every process below the zygote except KEEP (orphans are re-parented to us)."""
        if not self.use_proc:
            if keep:
                self.stop_worker()
            _kill(-1)
            self.reap_all(block=True)
            return
        me = os.getpid()
        for attempt in range(500):
            self.reap_all()
            kids = [p for p in _children(me) if p not in keep]
            if not kids:
                return
            for p in _tree(kids):
                _kill(p)
            time.sleep(0.0005 * attempt)

    def reap_all(self, block=False):
        while True:
            try:
                pid, _ = os.waitpid(-1, 0 if block else os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            if self.worker is not None and pid == self.worker.pid:
                self.worker.close()
                self.worker = None
                self.worker_gen += 1

    def clean_files(self, rundir):
        shutil.rmtree(rundir, ignore_errors=True)
        if not self.private_tmp:
            return
        for top in ("/tmp", "/var/tmp", "/dev/shm"):     # our own tmpfs mounts
            try:
                names = os.listdir(top)
            except OSError:
                continue
            for name in names:
                path = os.path.join(top, name)
                if path == self.workdir:
                    continue
                if os.path.isdir(path) and not os.path.islink(path):
                    shutil.rmtree(path, ignore_errors=True)
                else:
                    _unlink(path)


_CLEAN_STATUSES = (b'"ok"', b'"exception"', b'"no_function"', b'"input_exhausted"', b'"dice_exhausted"',
                   b'"exit"', b'"syntax_error"', b'"import_error"', b'"output_limit"')


def _clean_status(raw):
    """The request process's status (the third key of its result line) left nothing behind."""
    head = raw[:120]
    i = head.find(b'"status":')
    if i < 0:
        return False
    value = head[i + 9:].split(b",", 1)[0]
    return value in _CLEAN_STATUSES


def _unlink(path):
    try:
        os.unlink(path)
    except OSError:
        pass


def _kill(pid):
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass


def _alive(pid):
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None
    except ChildProcessError:
        return False


def _reap(pid):
    try:
        _, status, usage = os.wait4(pid, 0)
    except ChildProcessError:
        return {"exit": None, "signal": None, "cpu": None}
    cpu = round(usage.ru_utime + usage.ru_stime, 4)
    if os.WIFSIGNALED(status):
        return {"exit": None, "signal": os.WTERMSIG(status), "cpu": cpu}
    return {"exit": os.WEXITSTATUS(status), "signal": None, "cpu": cpu}


def _drain(fd, buf):
    """Read what is available; True at end of file."""
    while True:
        try:
            chunk = os.read(fd, 1 << 16)
        except BlockingIOError:
            return False
        except OSError:
            return True
        if not chunk:
            return True
        buf += chunk
        if len(buf) > MAX_RESULT:
            return False


_STRAY = [0]      # result-looking lines of another request or that do not parse: forged by student code


def _scan(buf, raw, progress, seq):
    """Take complete lines from BUF: the first valid result line, and progress lines before it.

    Student code can write into this pipe too: lines that do not parse are skipped (and counted)."""
    while raw is None:
        i = buf.find(b"\n")
        if i < 0:
            break
        line = bytes(buf[:i])
        del buf[:i + 1]
        if line.startswith(RESULT_PREFIX):
            try:
                msg = _loads(line)
            except ValueError:
                _STRAY[0] += 1
                continue
            if isinstance(msg, dict) and msg.get("seq") == seq:
                raw = line
            else:
                _STRAY[0] += 1
        elif line.startswith(PROGRESS_PREFIX):
            try:
                msg = _loads(line)
            except ValueError:
                continue
            if isinstance(msg, dict):
                if "status" in msg or progress is None:
                    progress = msg
                else:
                    progress.update(msg)
    return raw, progress


_HAS_CHILDREN_FILE = os.path.exists(f"/proc/self/task/{os.getpid()}/children")


def _children(pid):
    if not _HAS_CHILDREN_FILE:
        return _children_by_scan(pid)
    kids = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                kids.extend(int(x) for x in f.read().split())
    except (OSError, ValueError):
        pass        # it is gone
    return kids


def _children_by_scan(pid):
    """Fallback when the kernel lacks /proc/<pid>/task/<tid>/children."""
    kids = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        kids.append(int(name))
            except (OSError, ValueError, IndexError):
                pass
    return kids


def _tree(roots):
    seen, stack = set(), list(roots)
    while stack:
        p = stack.pop()
        if p not in seen:
            seen.add(p)
            stack.extend(_children(p))
    return seen


# ---------------------------------------------------------------------------------------
# Request processes.
# ---------------------------------------------------------------------------------------
def child_run(zyg, req, wfd, shared):
    """Run one request in this (forked) process and write its result line."""
    pid = os.getpid()
    try:
        res = Run(req, zyg.cfg, wfd).execute(zyg.code, zyg.compile_error, shared)
        if shared is not None:
            res["recycle"] = _worker_dirty(res, zyg.cfg)     # last key: the zygote checks the tail
        data = _dumps(res)
    except MemoryError:                 # the student's data left no room to encode the result
        res = data = None
        res = {"t": "result", "seq": req.get("seq"), "status": "memory", "recycle": True}
        data = _dumps(res)
    except BaseException:
        res = {"t": "result", "seq": req.get("seq"), "status": "internal",
               "internal": traceback.format_exc(), "recycle": True}
        data = _dumps(res)
    if os.getpid() != pid:      # a fork made by the student's code came back here: nothing to say
        _real_exit(0)
    write_all(wfd, data.encode("ascii") + b"\n")
    if shared is None or res["recycle"]:
        _real_exit(0)


def worker_loop(zyg, req_r, res_w):
    """The shared worker: imports the module on its first request, then serves calls."""
    lines = Lines(req_r)
    shared = {}
    while True:
        line = lines.readline()
        if line is None:
            _real_exit(0)
        req = _loads(line)
        if "ping" in req:           # the zygote checks it is idle (see Zygote.worker_idle)
            write_line(res_w, {"t": "pong", "nonce": req["ping"]})
            continue
        child_run(zyg, req, res_w, shared)


def _worker_dirty(res, cfg):
    """True when the worker must not serve another request (threads, children, limits hit)."""
    if res.get("status") in ("timeout", "memory", "internal") or res.get("cpu_limited"):
        return True
    if time.process_time() > cfg["limits"]["cpu_s"] / 2:
        return True
    try:
        if len(os.listdir("/proc/self/task")) > 1:
            return True
    except OSError:
        pass
    try:
        os.waitpid(-1, os.WNOHANG)     # returns at all only when it has children (alive or not)
    except ChildProcessError:
        return False
    return True


# ---------------------------------------------------------------------------------------
# Isolation setup (runs before any student code).
# ---------------------------------------------------------------------------------------
CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x04000000, 0x08000000
CLONE_NEWPID, CLONE_NEWNET = 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
PR_SET_PDEATHSIG, PR_SET_CHILD_SUBREAPER, PR_SET_NO_NEW_PRIVS = 1, 36, 38
PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2
SYS_MOUNT_SETATTR, AT_RECURSIVE, AT_FDCWD, MOUNT_ATTR_RDONLY = 442, 0x8000, -100, 1


class _Libc:
    def __init__(self):
        import ctypes
        self.ctypes = ctypes
        self.libc = ctypes.CDLL(None, use_errno=True)

    def call(self, what, name, *args):
        if getattr(self.libc, name)(*args) != 0:
            err = self.ctypes.get_errno()
            raise OSError(err, f"{what}: {os.strerror(err)}")

    def try_call(self, name, *args):
        return getattr(self.libc, name)(*args) == 0

    def mount(self, source, target, fstype, flags, data=None):
        def enc(text):
            return None if text is None else text.encode()
        self.call(f"mount {target}", "mount", enc(source), enc(target), enc(fstype),
                  self.ctypes.c_ulong(flags), enc(data))

    def set_readonly(self, path, readonly=True, recursive=True):
        """mount_setattr(2): flip read-only on PATH's mount (and below); False when unsupported."""
        ct = self.ctypes

        class MountAttr(ct.Structure):
            _fields_ = [("attr_set", ct.c_uint64), ("attr_clr", ct.c_uint64),
                        ("propagation", ct.c_uint64), ("userns_fd", ct.c_uint64)]
        attr = MountAttr(MOUNT_ATTR_RDONLY if readonly else 0, 0 if readonly else MOUNT_ATTR_RDONLY, 0, 0)
        flags = AT_RECURSIVE if recursive else 0
        return self.libc.syscall(ct.c_long(SYS_MOUNT_SETATTR), ct.c_int(AT_FDCWD), path.encode(),
                                 ct.c_uint(flags), ct.byref(attr), ct.c_size_t(ct.sizeof(attr))) == 0


def _within(path, top):
    return path == top or path.startswith(top.rstrip("/") + "/")


def enter_namespaces(cfg):
    """As root, before forking the zygote: private mounts, no network, and a minimal root.

    The new root (pivot_root into a small tmpfs) holds only what the allowlist names: the
    Python runtime (sys.base_prefix, without its site-packages) and the system libraries it
    loads, read-only; /dev/null and friends; an empty /proc for the pid namespace; and private
    tmpfs /tmp, /var/tmp and /dev/shm.  Nothing else exists in it (no /home, /root, /work, /srv,
    /opt, /var, /mnt, no kit, no classmates), so a search of the disk finds nothing to copy."""
    lib = _Libc()
    flags = CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS | (CLONE_NEWPID if cfg["pidns"] else 0)
    lib.call("unshare", "unshare", flags)
    lib.mount(None, "/", None, MS_REC | MS_PRIVATE)
    applied = {"namespaces": ["mount", "net", "ipc", "uts"] + (["pid"] if cfg["pidns"] else []),
               "network": "none", "ipc_limits": limit_ipc()}
    hidden = [os.path.realpath(p) for p in cfg.get("hidden", [])]
    applied.update(build_root(lib, cfg, hidden))
    return applied


STAGE = "/tmp"          # mount point of the new root before pivot_root (our mount namespace only)
SYSTEM_LIBS = ("/lib", "/lib64", "/lib32", "/usr/lib", "/usr/lib64", "/usr/lib32")
ROOT_LINKS = ("lib", "lib64", "lib32", "libx32", "bin", "sbin")
DEVICES = ("null", "zero", "full", "random", "urandom")
SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41, "riscv64": 41, "ppc64le": 203, "s390x": 217}
MNT_DETACH = 2


def allowlist():
    """(path, is_dir) pairs bound read-only into the new root: the runtime and its libraries."""
    prefix = os.path.realpath(sys.base_prefix)
    stdlib = os.path.realpath(os.path.dirname(os.__file__))
    # A system Python (prefix /usr, as on Gradescope) needs /usr/lib only, not all of /usr.
    paths = ([prefix] if prefix not in ("/", "/usr") else []) + [stdlib]
    paths += [os.path.realpath(p) for p in SYSTEM_LIBS if os.path.isdir(p)]
    paths += [p for p in ("/etc/ld.so.cache",) if os.path.isfile(p)]
    out = []
    for path in sorted(set(paths), key=len):
        if not any(_within(path, q) for q, _ in out):
            out.append((path, os.path.isdir(path)))
    return out


def _site_packages():
    """Installed packages are not the runtime: hidden inside the new root."""
    version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    found = []
    for base in {os.path.realpath(sys.base_prefix), "/usr", "/usr/local"}:
        for sub in (f"lib/{version}/site-packages", f"lib/{version}/dist-packages", "lib/python3/dist-packages"):
            path = os.path.join(base, sub)
            if os.path.isdir(path):
                found.append(os.path.realpath(path))
    return found


def _bind(lib, source, target, is_dir):
    if is_dir:
        os.makedirs(target, 0o755, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(target), 0o755, exist_ok=True)
        os.close(os.open(target, os.O_WRONLY | os.O_CREAT, 0o644))
    lib.mount(source, target, None, MS_BIND | MS_REC)
    if not lib.set_readonly(target):
        lib.mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)


def build_root(lib, cfg, hidden):
    os.umask(0o022)
    lib.mount("tmpfs", STAGE, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,nr_inodes=4000,mode=0755")
    allowed = allowlist()
    for path, is_dir in allowed:
        _bind(lib, path, STAGE + path, is_dir)
    for name in ROOT_LINKS:                  # merged /usr: /lib -> usr/lib and such
        if os.path.islink("/" + name):
            os.symlink(os.readlink("/" + name), f"{STAGE}/{name}")
    # Inside the allowed trees, still hide installed packages and anything the grader names.
    covered = []
    for path in sorted(set(_site_packages() + hidden), key=len):
        if not any(_within(path, a) for a, _ in allowed) or any(_within(path, c) for c in covered):
            continue
        target = STAGE + path
        if os.path.isdir(target):
            lib.mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV | MS_RDONLY, "size=4k,nr_inodes=16,mode=0755")
        elif os.path.lexists(target):
            lib.mount("/dev/null", target, None, MS_BIND)
        covered.append(path)
    os.makedirs(f"{STAGE}/dev", 0o755)
    for name in DEVICES:
        if os.path.exists(f"/dev/{name}"):
            _bind_device(lib, f"/dev/{name}", f"{STAGE}/dev/{name}")
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"),
                         ("stdout", "/proc/self/fd/1"), ("stderr", "/proc/self/fd/2")):
        os.symlink(target, f"{STAGE}/dev/{name}")
    for folder in ("proc", "tmp", "var/tmp", "dev/shm", "etc"):
        os.makedirs(f"{STAGE}/{folder}", 0o755, exist_ok=True)
    if not cfg["pidns"]:                      # no pid namespace to mount a /proc of its own for
        lib.mount("/proc", f"{STAGE}/proc", None, MS_BIND | MS_REC)
    os.makedirs(f"{STAGE}/.old-root", 0o700)
    os.chdir(STAGE)
    number = SYS_PIVOT_ROOT.get(os.uname().machine)
    if number is None:
        raise OSError(f"pivot_root: unknown system call number on {os.uname().machine}")
    ct = lib.ctypes
    if lib.libc.syscall(ct.c_long(number), b".", b".old-root") != 0:
        err = ct.get_errno()
        raise OSError(err, f"pivot_root: {os.strerror(err)}")
    os.chdir("/")
    lib.call("umount old root", "umount2", b"/.old-root", ct.c_int(MNT_DETACH))
    os.rmdir("/.old-root")
    tmp_mb = cfg["tmp_mb"]
    private = [("/tmp", f"size={tmp_mb}m,mode=1777"), ("/var/tmp", "size=8m,mode=1777"),
               ("/dev/shm", "size=8m,mode=1777")]
    for path, opts in private:
        lib.mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, opts)
    # The root itself (dirs and links only) read-only: nothing can be left in it.
    if not lib.set_readonly("/", recursive=False):
        lib.mount(None, "/", None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
    return {"root": "minimal", "allowed": [p for p, _ in allowed], "hidden": hidden + covered,
            "private_tmp": [p for p, _ in private], "readonly_root": True}


def _bind_device(lib, source, target):
    os.close(os.open(target, os.O_WRONLY | os.O_CREAT, 0o644))
    lib.mount(source, target, None, MS_BIND)


def limit_ipc():
    """In the new IPC namespace: System V shared memory limited to almost nothing (seccomp also
    refuses shmget/semget/msgget; this holds where the filter is missing)."""
    done = {}
    for key, value in (("shmmax", 1 << 20), ("shmall", 256), ("shmmni", 4), ("msgmni", 0)):
        try:
            with open(f"/proc/sys/kernel/{key}", "w") as f:
                f.write(str(value))
            done[key] = value
        except OSError:
            pass
    return done


def set_rlimits(limits, nproc):
    import resource
    mb = 1 << 20
    wanted = [("RLIMIT_CPU", limits["cpu_s"], limits["cpu_s"] + 1),
              ("RLIMIT_AS", limits["memory_mb"] * mb, limits["memory_mb"] * mb),
              ("RLIMIT_FSIZE", limits["fsize_mb"] * mb, limits["fsize_mb"] * mb),
              ("RLIMIT_NOFILE", max(limits["nofile"], 16), max(limits["nofile"], 16)),
              ("RLIMIT_CORE", 0, 0)]
    if nproc:
        wanted.append(("RLIMIT_NPROC", limits["nproc"], limits["nproc"]))
    applied = {}
    for name, soft, hard in wanted:
        res = getattr(resource, name)
        _, cur_hard = resource.getrlimit(res)
        if cur_hard != resource.RLIM_INFINITY:     # unprivileged: cannot raise the hard limit
            soft, hard = min(soft, cur_hard), min(hard, cur_hard)
        resource.setrlimit(res, (soft, hard))
        applied[name[7:].lower()] = soft
    return applied


def become_sandbox_user(cfg):
    """Still root: /proc for the new pid namespace, the work dir, limits; then drop to the sandbox uid."""
    lib = _Libc()
    applied = {}
    if cfg["pidns"]:
        try:
            lib.mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
            applied["proc"] = True
        except OSError:
            applied["proc"] = False
    uid = gid = cfg["uid"]
    work = cfg["workdir"]
    os.makedirs(work, 0o700, exist_ok=True)
    os.chown(work, uid, gid)
    applied["rlimits"] = set_rlimits(cfg["limits"], nproc=True)
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
    applied["no_new_privs"] = lib.try_call("prctl", PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    if cfg["pidns"]:
        lib.try_call("prctl", PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    else:       # no pid namespace: be the reaper of escaped processes ourselves
        applied["subreaper"] = lib.try_call("prctl", PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    try:
        os.setuid(0)
    except PermissionError:
        pass
    else:
        raise RuntimeError("privilege drop failed: could become root again")
    applied["seccomp"] = install_seccomp(lib, cfg.get("seccomp"))
    os.chdir(work)
    os.environ["HOME"] = work
    stdlib = os.path.dirname(os.__file__)
    if not os.access(stdlib, os.R_OK | os.X_OK):
        raise RuntimeError(f"the sandbox uid {uid} cannot read the Python standard library at {stdlib}")
    applied.update(uid=uid, gid=gid, workdir=work)
    return applied


def install_seccomp(lib, program_hex):
    """Install the grader's seccomp filter (classic BPF, built by engine/seccomp.py); False without one."""
    if not program_hex:
        return False
    ct = lib.ctypes
    data = bytes.fromhex(program_hex)

    class SockFilter(ct.Structure):
        _fields_ = [("code", ct.c_ushort), ("jt", ct.c_ubyte), ("jf", ct.c_ubyte), ("k", ct.c_uint)]

    class SockFprog(ct.Structure):
        _fields_ = [("len", ct.c_ushort), ("filter", ct.POINTER(SockFilter))]
    count = len(data) // 8
    program = (SockFilter * count).from_buffer_copy(data)
    fprog = SockFprog(count, ct.cast(program, ct.POINTER(SockFilter)))
    if lib.libc.prctl(ct.c_int(PR_SET_SECCOMP), ct.c_ulong(SECCOMP_MODE_FILTER), ct.byref(fprog),
                      ct.c_ulong(0), ct.c_ulong(0)) != 0:
        raise OSError(ct.get_errno(), "seccomp: the filter was refused")
    return True


def limit_self(cfg):
    """Not root: only limits, and become a child subreaper so escaped processes stay ours."""
    applied = {"rlimits": set_rlimits(cfg["limits"], nproc=False), "uid": os.getuid(),
               "workdir": os.getcwd(), "namespaces": [], "network": "host"}
    try:
        lib = _Libc()
        applied["subreaper"] = lib.try_call("prctl", PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
        applied["no_new_privs"] = lib.try_call("prctl", PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
        applied["seccomp"] = install_seccomp(lib, cfg.get("seccomp")) if applied["no_new_privs"] else False
    except OSError:
        applied["subreaper"] = False
    return applied


def outer_wait(pid, fds):
    """The root process outside the pid namespace: wait for the zygote, exit like it."""
    for fd in fds:
        os.close(fd)
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            break
        except InterruptedError:
            continue
    code = os.waitstatus_to_exitcode(status)
    _real_exit(code if code >= 0 else 128 - code)


def main():
    if sys.argv[1] == "template":
        template_main(int(sys.argv[2]))
    res_fd = int(sys.argv[1])
    ctl_fd = os.dup(0)                      # requests; fd 0 itself becomes /dev/null
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    sandbox_main(ctl_fd, res_fd)


def sandbox_main(ctl_fd, res_fd):
    """One sandbox: read its config, isolate (as root: namespaces, minimal root, uid, seccomp),
    then serve requests as the zygote.  Never returns."""
    ctl = Lines(ctl_fd)
    try:
        cfg = _loads(ctl.readline())
        applied = {"root": bool(cfg.get("root"))}
        if cfg.get("root"):
            if cfg.get("namespaces"):
                applied.update(enter_namespaces(cfg))
            if cfg.get("pidns"):
                pid = os.fork()
                if pid:
                    outer_wait(pid, (ctl_fd, res_fd))
            applied.update(become_sandbox_user(cfg))
        else:
            applied.update(limit_self(cfg))
        zygote = Zygote(cfg, ctl, ctl_fd, res_fd, applied)
    except BaseException:
        write_line(res_fd, {"t": "fatal", "error": traceback.format_exc()})
        _real_exit(1)
    zygote.serve()


# ---------------------------------------------------------------------------------------
# The template: a pre-booted process that forks one sandbox per request.
# ---------------------------------------------------------------------------------------
def template_main(sock_fd):
    """The grader's pre-booted template (root, grader-side, never sees student code or a config):
    the interpreter is started and this harness is loaded once; for each sandbox the grader
    sends its three pipe ends (SCM_RIGHTS) and the environment, the template forks, and the
    child becomes exactly what `python -c BOOT <fd>` would be at that point: its own session,
    the scrubbed environment, fresh random state, only those pipes open; it then reads its
    config and isolates itself (sandbox_main), as a spawned sandbox does.  The template answers
    with a pidfd of the child (the grader's handle on it: wait, kill, cgroup) and exits at end
    of input.  It reaps its children as they exit (so their CPU time is counted as the grader's)."""
    import _socket
    import ctypes  # noqa: F401  (the isolation setup loads it; every child has it already)
    sock = _socket.socket(fileno=sock_fd)
    os.dup2(os.open(os.devnull, os.O_RDWR), 0)
    signal.signal(signal.SIGCHLD, _reap_children)
    space = _socket.CMSG_SPACE(3 * 4)
    gc.collect()
    gc.freeze()
    while True:
        try:
            data, anc, _, _ = sock.recvmsg(1 << 16, space)
        except InterruptedError:
            continue
        except OSError:
            break
        fds = []
        for level, kind, payload in anc:
            if level == _socket.SOL_SOCKET and kind == _socket.SCM_RIGHTS:
                n = len(payload) - len(payload) % 4
                fds += [int.from_bytes(payload[i:i + 4], sys.byteorder) for i in range(0, n, 4)]
        if not data:
            break
        try:
            msg = _loads(data)
            ctl_fd, res_fd, raw_fd = fds
        except (ValueError, TypeError):
            for fd in fds:
                os.close(fd)
            continue
        pid = os.fork()
        if pid == 0:
            try:
                sock.close()
                _template_child(msg, ctl_fd, res_fd, raw_fd)
            finally:
                _real_exit(HARNESS_SPAWN_FAILED)
        for fd in fds:
            os.close(fd)
        pidfd = _pidfd(pid)
        try:
            if pidfd is None:
                sock.send(_dumps({"pid": pid}).encode())
            else:
                sock.sendmsg([_dumps({"pid": pid}).encode()],
                             [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, pidfd.to_bytes(4, sys.byteorder))])
        except OSError:
            _kill(pid)
            break
        finally:
            if pidfd is not None:
                os.close(pidfd)
    _real_exit(0)


HARNESS_SPAWN_FAILED = 118


def _reap_children(signum=None, frame=None):
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _template_child(msg, ctl_fd, res_fd, raw_fd):
    """In the fork of the template: set up what a freshly spawned sandbox process has, then run."""
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    os.setsid()
    os.dup2(raw_fd, 1)
    os.dup2(raw_fd, 2)
    keep = sorted({0, 1, 2, ctl_fd, res_fd})
    for lo, hi in zip(keep, keep[1:] + [1 << 20]):
        if hi > lo + 1:
            os.closerange(lo + 1, hi)
    os.environ.clear()
    os.environ.update({str(k): str(v) for k, v in msg["env"].items()})
    os.chdir(msg["cwd"])
    random.seed()                    # as a new interpreter would: not the template's state
    sandbox_main(ctl_fd, res_fd)


if __name__ == "__main__":
    main()
