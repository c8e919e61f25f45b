"""Charge a bug once for a class: a check of stage N runs with the reference's versions of the
METHODS other stages grade set on the STUDENT's class (Assignment.substitution names them
"Class.method"; the harness sets them, harness/targets.py), in a sandbox that holds the reference
without stage N's methods (reference_without).  Real sandboxes, one Program for every class below.
Hostile classes (a metaclass, __slots__, __getattr__, a property, a class that is not a class, a
missing class) never make the substitution run student code or raise: it is skipped, and the call
reports what it would report without it."""

from __future__ import annotations

import ast
import textwrap

import pytest

from autograder.assignment import load_assignment as load
from autograder.engine.program import Program
from autograder.engine.sources import reference_without

NAMES = ("Game", "WithMeta", "Slotted", "Lookup", "Prop", "MetaDescriptor", "Inherits", "Static")

REFERENCE = "\n".join(f"""
class {name}:
    def __init__(self):
        self.dice = [1, 2, 3, 4, 5]

    def score(self):
        return sum(self.dice)

    def turn(self):
        return ["reference turn", self.score()]
""" for name in NAMES) + """
class Static:
    @staticmethod
    def score():
        return 15

    def turn(self):
        return ["reference turn", self.score()]
"""

STUDENT = textwrap.dedent("""
    class Meta(type):
        def __setattr__(cls, name, value):
            raise RuntimeError("the metaclass refuses " + name)

        def __delattr__(cls, name):
            raise RuntimeError("the metaclass refuses to delete " + name)


    class Forever:
        def __get__(self, obj, kind=None):
            return -2

        def __set__(self, obj, value):
            while True:
                pass


    class DescriptorMeta(type):
        score = Forever()        # a data descriptor on the metaclass: a write of `score` would run it


    class Mine:                   # not substituted itself: the classes below inherit its methods
        def __init__(self):
            self.dice = [1, 2, 3, 4, 5]

        def score(self):
            return -1

        def turn(self):
            return ["my turn", self.score()]


    class Game(Mine):
        def score(self):
            return -1


    class WithMeta(Mine, metaclass=Meta):
        pass


    class Slotted:
        __slots__ = ("dice",)

        def __init__(self):
            self.dice = [1, 2, 3, 4, 5]

        def score(self):
            return -1

        def turn(self):
            return ["my turn", self.score()]


    class Lookup:                 # no score at all: __getattr__ answers every missing name
        def __init__(self):
            self.dice = [1, 2, 3, 4, 5]

        def __getattr__(self, name):
            raise RuntimeError("no " + name)

        def turn(self):
            return ["my turn", self.score()]


    class Prop(Mine):
        @property
        def score(self):
            while True:
                pass


    class MetaDescriptor(Mine, metaclass=DescriptorMeta):
        pass


    class Inherits(Mine):         # score comes from a base class
        pass


    class Static(Mine):
        pass


    NotAClass = Mine()            # an instance, not a class
    Immutable = int
""")

SUB = {"names": [f"{n}.score" for n in NAMES + ("NotAClass", "Immutable", "Missing")]
       + ["Game.score.real", ".score", "Game.", "Game..score"],
       "keep": [f"{n}.turn" for n in NAMES + ("NotAClass", "Immutable", "Missing")]}


@pytest.fixture(scope="module")
def program():
    prog = Program(STUDENT, "game.py", reference=REFERENCE)
    yield prog
    prog.close()


def turn(program, name, substitute, timeout=2.0, **kwargs):
    program.substitute = substitute
    try:
        return program.call(f"{name}.turn", instance={}, timeout=timeout, **kwargs)
    finally:
        program.substitute = None


def test_the_reference_s_methods_run_on_the_student_s_object(program):
    for name in ("Game", "WithMeta", "Slotted", "Lookup", "Prop", "Inherits"):
        charged = turn(program, name, SUB)
        assert (name, charged.status, charged.value) == (name, "ok", ["my turn", 15])
    static = turn(program, "Static", SUB)
    assert (static.status, static.value) == ("ok", ["my turn", 15])


def test_without_substitution_the_student_s_own_methods_run(program):
    assert turn(program, "Game", None).value == ["my turn", -1]
    assert turn(program, "Lookup", None).error["message"] == "no score"
    assert turn(program, "Prop", None, timeout=0.3).status == "timeout"     # its own: a property that loops


def test_the_shared_worker_is_left_as_it_was(program):
    """Substituted, then not, in the same long-lived worker: the undo restores the student's
    methods (an own method, an inherited one, one a metaclass guards, none at all)."""
    for name, own in (("Game", ["my turn", -1]), ("Inherits", ["my turn", -1]), ("WithMeta", ["my turn", -1])):
        assert turn(program, name, SUB, fresh=False).value == ["my turn", 15]
        assert turn(program, name, None, fresh=False).value == own
    assert turn(program, "Lookup", SUB, fresh=False).value == ["my turn", 15]
    assert turn(program, "Lookup", None, fresh=False).error["message"] == "no score"


def test_a_hostile_class_is_left_as_it_is_and_nothing_raises(program):
    # a data descriptor on the metaclass would run on the write: not substituted, its own runs
    guarded = turn(program, "MetaDescriptor", SUB)
    assert (guarded.status, guarded.value) == ("ok", ["my turn", -1])
    for name in ("NotAClass", "Missing"):
        assert turn(program, name, SUB).status == "no_function"
    immutable = turn(program, "Immutable", SUB)
    assert immutable.status == "no_function" and "no attribute 'turn'" in immutable.error["message"]


def test_the_substitution_sandbox_holds_the_reference_without_the_graded_methods():
    kept = reference_without(REFERENCE, tuple(SUB["keep"]))
    tree = ast.parse(kept)
    defined = {(c.name, f.name) for c in tree.body if isinstance(c, ast.ClassDef)
               for f in c.body if isinstance(f, ast.FunctionDef)}
    assert all(method != "turn" for _, method in defined)
    assert ("Game", "score") in defined and ("Static", "score") in defined
    empty = reference_without("class A:\n    def f(self):\n        return 1\nB = 2\n", ("A.f",))
    assert empty == "class A:\n    pass\nB = 2\n"
    assert reference_without("def f():\n    pass\nclass A:\n    pass\n", ("f.x", "A.y", "A")) == \
        "def f():\n    pass\n"


def test_the_table_s_class_name_qualifies_the_methods():
    spec = load("swe3006")
    sub = spec.substitution(3)
    assert "YahtzeeGame.play" in sub["keep"] and "YahtzeeGame.calculate_score" in sub["names"]
    assert not set(sub["keep"]) & set(sub["names"])
    assert spec.qualified("Other.method") == "Other.method"
    assert load("yahtzee").substitution(3)["names"][0].count(".") == 0
