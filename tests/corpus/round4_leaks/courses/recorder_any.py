# Any course's recorder (tests/test_hostile_leaks.py joins it after a course's reference): every
# function of the module and every method of its classes, called by the grader (not by another of
# them), writes what it was asked (its name and arguments; input()'s answers between « ») to a
# file of the work folder ($HOME, which outlives a request), then raises an exception whose
# message is that file's tail.  Before pass 16's "public first" the public checks' feedback showed
# the inputs of hidden checks asked before them in the same life; now never.
import builtins as _builtins
import functools as _functools
import inspect as _inspect
import os as _os

_LEAK = _os.path.join(_os.environ.get("HOME", "/tmp"), "leak-store.txt")
_DEPTH = [0]


def _put(text):
    try:
        with open(_LEAK, "a") as f:
            f.write(text + "\n")
    except OSError:
        pass


def _seen():
    try:
        with open(_LEAK) as f:
            return "SEEN " + f.read()[-1500:].replace("\n", " ")
    except OSError:
        return "SEEN "


def input(prompt=""):     # (a module global: builtins stay as they are)
    answer = _builtins.input(prompt)
    _put("«" + answer + "»")
    return answer


def _wrap(name, func, method):
    @_functools.wraps(func)
    def recorded(*args, **kwargs):
        top = not _DEPTH[0]
        if top:
            _put(name + repr(args[1:] if method else args))
        _DEPTH[0] += 1
        try:
            result = func(*args, **kwargs)
        finally:
            _DEPTH[0] -= 1
        if top:
            raise ValueError(_seen())
        return result
    return recorded


for _name, _thing in list(globals().items()):
    if _name.startswith("_") or getattr(_thing, "__module__", None) != __name__:
        continue
    if _inspect.isfunction(_thing) and _name != "input":
        globals()[_name] = _wrap(_name, _thing, False)
    elif _inspect.isclass(_thing):
        for _attr, _value in list(vars(_thing).items()):
            if _inspect.isfunction(_value) and _attr != "__init__":
                setattr(_thing, _attr, _wrap(_attr, _value, True))
