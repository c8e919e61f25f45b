# The recorder every case of this round joins first (its control: it keeps nothing between
# requests, so it shows nothing it saw).  Every function of the module called by the grader (not
# by another function), and input(), write what they were asked (the function and its
# arguments, each scripted answer between « »), through _put, to the store a case defines after it; four functions that public checks ask (a stage-1,
# a stage-2, a stage-3 and a stage-4 one) raise an exception whose message is the store's tail,
# and play_game prints it first (a public game's transcript).  Before pass 16's "public first"
# (docs/threat-model.md) the hidden checks' inputs, kept in the store by their requests, reached
# those public checks' feedback through every store of this round; now a public request never
# runs in a life after a hidden one.
import builtins as _builtins
import functools as _functools
import inspect as _inspect


def _put(text):
    pass


def _get():
    return ""


def _seen():
    return "SEEN " + _get()[-1500:].replace("\n", " ")


def input(prompt=""):     # (a module global: builtins stay as they are, so a fresh runner is kept)
    answer = _builtins.input(prompt)
    _put("«" + answer + "»")
    return answer


_DEPTH = [0]


def _wrap(name, func):
    @_functools.wraps(func)
    def recorded(*args, **kwargs):
        if not _DEPTH[0]:
            _put(name + repr(args))
        _DEPTH[0] += 1
        try:
            return func(*args, **kwargs)
        finally:
            _DEPTH[0] -= 1
    return recorded


for _name, _func in list(globals().items()):
    if _inspect.isfunction(_func) and _func.__module__ == __name__ and not _name.startswith("_"):
        globals()[_name] = _wrap(_name, _func)


def _revealing(name):
    def reveal(*args, **kwargs):
        if not _DEPTH[0]:
            _put(name + repr(args))
        raise ValueError(_seen())
    return reveal


for _name in ("score_chance", "parse_keep", "format_scorecard", "joker_score"):
    globals()[_name] = _revealing(_name)

_play_game = play_game  # noqa: F821 -- (the solution's, above this file)


def play_game(*args, **kwargs):
    print(_seen())
    return _play_game(*args, **kwargs)
