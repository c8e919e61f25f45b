"""What a call request calls: a module function, a method of a class the student wrote (and the
object's state after it), or the reference's versions of functions graded in other stages (substitute;
in a script run, where the file's main part starts: script_parts)."""

import __future__

import _ast
import types

from ..nearby import close_names
from .base import _MISSING, _REFERENCE, MAX_ITEMS, _exec, _mro_of, _type_dict
from .run import _new_module
from .values import _safe_str, normalise


def substitute(mod, sub, stand_ins=None):
    """Charge a bug once: put the reference's versions of SUB["names"] (the handout's functions of
    other stages) into the student's module MOD, so the student's code calls them by those names.
    The reference's functions see the student's own SUB["keep"] functions (the stage being graded;
    missing ones stay missing), and SUB["own"] ones (an in-stage retry's control run: functions the
    sandbox's reference holds, called as the student's all the same).  A name "Class.method" sets the reference's method on the STUDENT's
    class (_substitute_method), so `self.method(...)` in the student's code runs the reference's
    with the student's own object.  Returns the function that undoes it (the shared worker is reused).
    SUB["stand_in"]: stand-ins instead (_stand_ins; the grader's tried run, where there is no reference),
    STAND_INS: the ones this worker made (its own dict, dropped with its module)."""
    if not sub:
        return _nothing
    if sub.get("stand_in"):
        return _stand_ins(mod, sub, {} if stand_ins is None else stand_ins)
    if _REFERENCE is None:
        return _nothing
    ref = _new_module("__reference__", "<reference>")
    ours = ref.__dict__
    _exec(_REFERENCE, ours)
    names = mod.__dict__
    own_of, ref_of = names.get, ours.get     # (bound once: ~30 names a request)
    for name in (*(sub.get("keep") or ()), *(sub.get("own") or ())):     # ("own": a retry's control run)
        if "." in name:
            continue          # a kept method: the reference's methods call it on the student's object
        own = own_of(name)
        if callable(own):
            ours[name] = own
        else:
            ours.pop(name, None)
    saved, undo_methods = {}, []
    function = types.FunctionType
    for name in sub.get("names") or ():
        if "." in name:
            undo_methods.append(_substitute_method(names, ours, name))
        elif type(new := ref_of(name)) is function:
            saved[name] = own_of(name, _MISSING)
            names[name] = new

    def undo():
        _restore(names, saved)
        for undo_method in reversed(undo_methods):
            undo_method()
    return undo


def script_parts(source, filename):
    """SOURCE (the student's file, already compiled whole) as two code objects run one after the
    other in the same __main__ namespace: its definitions, then its main part, so that a script run
    that substitutes (Run.run_script) puts the reference's functions in between, where the program
    starts, after the student's own definitions of them (which would otherwise replace them again).
    The main part starts at the first top-level `if __name__ == "__main__":` (what the handouts
    ask for; a statement before it, a stray debug call, still runs the student's own), or, in a
    file without one, at the first top-level statement that calls a function or class the file
    defines at top level (`main()`, `play_game(13)`, `score = main()`, a top-level game loop):
    the program cannot run any function of the file before such a call, and the names it binds
    after it are either never used by that run or make it fail as they would without
    substitution.  Imports, constants, `print("Welcome")` or `random.seed(1)` are definitions
    there: they call none of the file's functions.  Each part is compiled from the file's own AST
    with its file name (its line numbers are the file's); the main part gets the file's
    `from __future__` flags.  None: no main part (nothing to substitute before)."""
    if type(source) is bytes:
        source = source.decode("utf-8", "surrogatepass")
    body = compile(source, filename, "exec", _ast.PyCF_ONLY_AST, dont_inherit=True).body
    at = _main_part(body)
    if at is None:
        return None
    flags = 0
    for node in body[:at]:
        if type(node) is _ast.ImportFrom and node.module == "__future__":
            for alias in node.names:
                flags |= getattr(getattr(__future__, alias.name, None), "compiler_flag", 0)
    return (compile(_ast.Module(body[:at], []), filename, "exec", dont_inherit=True),
            compile(_ast.Module(body[at:], []), filename, "exec", flags, dont_inherit=True))


def _main_part(body):
    """The index in BODY (a module's statements) where its main part starts (script_parts), or None."""
    for index, node in enumerate(body):
        if _is_main_guard(node):
            return index
    defined = {node.name for node in body
               if type(node) in (_ast.FunctionDef, _ast.AsyncFunctionDef, _ast.ClassDef)}
    for index, node in enumerate(body):
        if type(node) not in (_ast.FunctionDef, _ast.AsyncFunctionDef, _ast.ClassDef) and _calls(node, defined):
            return index
    return None


def _is_main_guard(node):
    """Whether NODE is `if __name__ == "__main__":` (either way round)."""
    test = node.test if type(node) is _ast.If else None
    if type(test) is not _ast.Compare or len(test.ops) != 1 or type(test.ops[0]) is not _ast.Eq:
        return False
    sides = (test.left, test.comparators[0])
    return (any(type(s) is _ast.Name and s.id == "__name__" for s in sides)
            and any(type(s) is _ast.Constant and s.value == "__main__" for s in sides))


def _calls(node, names):
    """Whether NODE (a statement) holds a call of one of NAMES by its plain name."""
    todo = [node]
    while todo:
        node = todo.pop()
        if type(node) is _ast.Call and type(node.func) is _ast.Name and node.func.id in names:
            return True
        for field in node._fields:
            value = getattr(node, field, None)
            if type(value) is list:
                todo.extend(v for v in value if isinstance(v, _ast.AST))
            elif isinstance(value, _ast.AST):
                todo.append(value)
    return False


def _restore(names, saved):
    """Put SAVED (name -> its old value in NAMES, or _MISSING: it had none) back into NAMES."""
    for name, old in saved.items():
        if old is _MISSING:
            names.pop(name, None)
        else:
            names[name] = old


# Set for good (in this process) once a stand-in was called: the request that notices it says so
# (touched), its worker is then replaced and the grader discards the tried run (Program.prefetch).
_TOUCHED = [False]


def _stand_ins(mod, sub, made):
    """A tried run's substitution (the grader's plan runs a variant's calls in the student's own
    sandbox first, which holds no reference): every plain name of SUB["names"] bound to a stand-in,
    a function of that name that, called, marks this process touched and raises.  A call that
    touches none gives the outcome the reference's versions would have given (they never ran);
    one that does is run again where the reference is (the variant's own sandbox).  The undo
    returns True when a stand-in was touched (by this call, or an earlier one that kept it).
    MADE: name -> its stand-in, made once in a worker (a try's calls all bind the same); the
    worker's own, not a harness global: a worker made the fresh runner again after a try
    (Zygote.worker_as_runner) is then as its check wants it."""
    names = mod.__dict__
    saved = {}
    for name in sub.get("names") or ():
        if type(name) is str and "." not in name:
            saved[name] = names.get(name, _MISSING)
            names[name] = made.get(name) or made.setdefault(name, _stand_in(name))

    def undo():
        _restore(names, saved)
        return _TOUCHED[0]
    return undo


def _stand_in(name):
    touched = _TOUCHED

    def stand_in(*args, **kwargs):
        touched[0] = True
        raise RuntimeError(f"{name} is not available here")
    stand_in.__name__ = stand_in.__qualname__ = name
    stand_in.__module__ = "__reference__"
    return stand_in


_METHOD_KINDS = (types.FunctionType, staticmethod, classmethod)


def _substitute_method(names, ref_names, qualified):
    """Set the reference's Class.method (QUALIFIED) on the student's class of that name (in NAMES,
    the student's module's dictionary); the function that undoes it.  Read and written without
    running student code: the class must be a real class (a subclass of type made it), found in the
    module's dictionary; its metaclass must not define the name (a descriptor there would run on
    the write); the write bypasses the metaclass's __setattr__.  Anything else (no such class, a
    class that is not a class, an immutable type) leaves the student's class as it is: the call
    then fails, or runs the student's own method, as it would without substitution."""
    cls_name, _, method = qualified.partition(".")
    cls, ref_cls = names.get(cls_name), ref_names.get(cls_name)
    if not issubclass(type(cls), type) or type(ref_cls) is not type or "." in method:
        return _nothing
    new = _type_dict(ref_cls).get(method, _MISSING)
    if type(new) not in _METHOD_KINDS or _static_attr(type(cls), method) is not _MISSING:
        return _nothing
    old = _type_dict(cls).get(method, _MISSING)
    try:
        type.__setattr__(cls, method, new)
    except (TypeError, AttributeError):          # an immutable type (a builtin), a read-only name
        return _nothing

    def undo():
        try:
            if old is _MISSING:
                type.__delattr__(cls, method)
            else:
                type.__setattr__(cls, method, old)
        except (TypeError, AttributeError):
            pass
    return undo


def _nothing():
    return None


def _no_function(func, mod):
    names = sorted(k for k, v in list(mod.__dict__.items())
                   if type(k) is str and not k.startswith("__") and callable(v))
    # (a dunder name is the grader's own, as its load probe: no handout function is one, and the
    # search is ~0.2 ms of a grade in a sandbox)
    close = close_names(func, names, _CLOSE) if type(func) is str and func[:2] != "__" else []
    return {"type": "NameError", "message": f"name {_safe_str(func)!r} is not defined", **_suggested(close)}


# Up to this many close names go back: the grader drops one that the handout requires under its own
# name (a missing score_small_straight is not a misspelt score_large_straight) and offers the next.
_CLOSE = 4


def _suggested(close):
    return {"suggestion": close[0] if close else None, "close": close[1:]}


def _no_class(name, mod):
    names = sorted(k for k, v in list(mod.__dict__.items())
                   if type(k) is str and not k.startswith("_") and issubclass(type(v), type))
    close = close_names(name, names, _CLOSE)
    return {"type": "NameError", "message": f"name {name!r} is not defined (a class)", **_suggested(close)}


def _no_method(cls, cls_name, name):
    names = sorted({k for klass in _mro_of(cls) if klass is not object
                    for k in list(_type_dict(klass)) if type(k) is str and not k.startswith("__")})
    close = close_names(name, names, _CLOSE)
    return {"type": "AttributeError", "message": f"class {cls_name!r} has no attribute {name!r}",
            **_suggested(close)}


def _static_attr(cls, name):
    """CLS's attribute NAME from the class dictionaries of its MRO (no descriptor, no __getattr__ runs)."""
    for klass in _mro_of(cls):
        d = _type_dict(klass)
        if name in d:
            return d[name]
    return _MISSING


def instance_state(obj, typed=False):
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
    return normalise(state, typed=typed)
