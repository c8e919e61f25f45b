"""Typed values in requests (engine/typed.py): tuples, sets and int-keyed dicts go into a
sandboxed call as such and come back as such, bounded; hostile containers cannot make the
harness run student code, and forged wire data cannot make the grader raise.  One sandbox."""

from __future__ import annotations

import pytest

from autograder.engine import bounds, typed
from autograder.engine.ahead import request_key
from autograder.engine.feedback import show
from autograder.engine.program import Program
from autograder.engine.sandbox import Request

STUDENT = '''
import random

def echo(x):
    return x

def kinds(*args, **kwargs):
    return [type(a).__name__ for a in args] + sorted(f"{k}={type(v).__name__}" for k, v in kwargs.items())

def roll_dices(kept_dices):
    return [kept_dices[p] if p in kept_dices else random.randint(1, 6) for p in range(1, 6)]

def keep(kept_dices):
    kept_dices[5] = 1          # mutates its argument: args_after shows it, keys still ints

def is_straight(dice_set, is_small):
    wanted = [{1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}] if is_small else [{1, 2, 3, 4, 5}, {2, 3, 4, 5, 6}]
    return any(s <= dice_set for s in wanted)

class Evil:
    def __hash__(self):
        while True:
            pass
    def __eq__(self, other):
        raise RuntimeError("eq")

class LoudSet(set):
    def __iter__(self):
        raise RuntimeError("iterated")

def hostile():
    e = Evil.__new__(Evil)
    d = {}
    dict.__setitem__(d, 1, e)
    return [set(), d, LoudSet([1]), (e,), frozenset({(1, 2)})]

class Once:                    # hashes once (into the dict), then hangs on any later hash
    hashed = 0
    def __hash__(self):
        Once.hashed += 1
        while Once.hashed > 1:
            pass
        return 1

def evil_keys():
    return {Once(): 1}

class Game:
    def __init__(self):
        self.kept = {}
    def play(self):
        self.kept[2] = 4
        return tuple(sorted(self.kept))
'''


@pytest.fixture(scope="module")
def program():
    prog = Program(STUDENT, "typed.py")
    yield prog
    prog.close()


def test_typed_arguments_arrive_as_python_values(program):
    out = program.call("kinds", (1, 2), {3}, frozenset(), {1: 2}, [1], x=(1,), y={"a": {2: 3}}, typed=True)
    assert out.value == ["tuple", "set", "frozenset", "dict", "list", "x=tuple", "y=dict"]
    assert program.call("is_straight", {2, 3, 4, 5}, True, typed=True).value is True
    assert program.call("is_straight", {1, 2, 3, 5, 6}, True, typed=True).value is False
    rolled = program.call("roll_dices", {1: 6, 3: 6}, dice=[2, 5, 1], typed=True)
    assert rolled.value == [6, 2, 6, 5, 1]


def test_typed_values_come_back_typed_in_a_canonical_form(program):
    value = ({3, 1, 2}, (3, [4, (5,)]), {(1, 2): frozenset({1}), "b": 2}, {"__x": 1}, {"a": 1})
    out = program.call("echo", value, typed=True)
    assert out.status == "ok" and typed.decode(out.value) == value
    assert out.value["__tuple__"][0] == {"__set__": [1, 2, 3]}
    assert out.value == typed.encode(value)            # the grader's and the harness's order agree
    mutated = program.call("keep", {1: 6}, typed=True)
    assert typed.decode(mutated.args_after) == [{1: 6, 5: 1}]
    game = program.call("Game.play", instance={"state": {"kept": {1: 3}}}, typed=True)
    assert typed.decode(game.value) == (1, 2) and typed.decode(game.state_after) == {"kept": {1: 3, 2: 4}}
    assert show(game.value) == "(1, 2)" and show(mutated.args_after) == "[{1: 6, 5: 1}]"


def test_untyped_requests_keep_the_plain_json_form(program):
    out = program.call("echo", [(1, 2), {"k": 1}])
    assert out.value == [[1, 2], {"k": 1}]
    assert program.call("echo", {1: 2}).value == {"1": 2}
    with pytest.raises(TypeError):
        program.call("echo", {1})
    assert request_key(Request("call", "echo", [(1,)], typed=True)) != \
        request_key(Request("call", "echo", [[1]], typed=True))


def test_hostile_containers_run_no_student_code(program):
    out = program.call("hostile", typed=True, timeout=2.0)
    assert out.status == "ok"
    empty, by_int, loud, evil_tuple, pairs = typed.decode(out.value)
    assert empty == set() and loud == {"__type__": "LoudSet"} and pairs == frozenset({(1, 2)})
    assert by_int == {1: {"__type__": "Evil"}} and evil_tuple == ({"__type__": "Evil"},)
    keys = program.call("evil_keys", typed=True, timeout=2.0)      # never hashed again: no hang
    assert keys.status == "ok" and keys.value == {"__dict__": [[{"__type__": "Once"}, 1]]}
    assert typed.decode(keys.value) == {"__type__": "dict"}        # an object key: not rebuilt


@pytest.mark.parametrize("forged", [
    {"__set__": "x"}, {"__dict__": [[1]]}, {"__dict__": [[[1], 2]]}, {"__set__": [[1], 2]},
    {"__tuple__": None}, {"__set__": [{"__type__": "Evil"}]}, {"__frozenset__": [{"a": 1}]},
])
def test_forged_wire_data_never_makes_the_grader_raise(forged):
    value = typed.decode(bounds.value(forged))
    assert isinstance(value, dict) and set(value) == {"__type__"}
    assert show(forged).startswith("<an object of type")


def test_deep_wire_data_is_bounded():
    deep: object = 1
    for _ in range(5000):
        deep = {"__tuple__": [deep]}
    assert typed.decode(bounds.value(deep)) is not None
    with pytest.raises(TypeError, match="must be data"):
        typed.encode([object()])


def test_a_typed_plan_round_trips_through_the_reference_cache(tmp_path):
    from autograder.engine import refcache

    request = Request("call", "is_straight", [{1, 2, 3, 4}, (1, 2)], {"k": {1: 2}}, typed=True,
                      instance={"state": {"kept": {1: 6}}})
    path = refcache.save(tmp_path, "demo", "k1", {}, {"suite.py::test_x": [request]})
    _, plan = refcache.load(path)
    assert plan == {"suite.py::test_x": [request]}
    assert request_key(plan["suite.py::test_x"][0]) == request_key(request)


def test_a_typed_request_gets_its_trial_at_the_reference_s_time(program):
    """Program.cpu_time finds the reference's time of a typed request by the same wire form as
    request_key (a tuple and a list stay two requests), so a typed request runs its trial."""
    reference = Program(STUDENT, "typed.py", cache=True, label="the reference")
    try:
        assert reference.call("is_straight", {2, 3, 4, 5}, True, typed=True).value is True
        assert reference.call("echo", (1, 2), typed=True).status == "ok"
        program.timing, trials = reference, list(program.trials)
        assert program.call("is_straight", {2, 3, 4, 5}, True, typed=True).value is True
        assert program.trials[0] == trials[0] + 1
        assert program.call("echo", [1, 2], typed=True).status == "ok"       # a list: not the reference's
        assert program.call("is_straight", {1, 2, 3, 4}, True, typed=True).value is True   # another set
        assert program.trials[0] == trials[0] + 1
        assert program.call("echo", (1, 2), typed=True).value == {"__tuple__": [1, 2]}
        assert program.trials[0] == trials[0] + 2
    finally:
        program.timing = None
        reference.close()
