"""The process sandbox: real child processes and real limits, no mocks.

Measured on the development container (2 CPUs, root, all namespaces available):
  first request of a new sandbox ~70 ms; 100 fresh=False calls ~40 ms; a fresh-fork game ~6 ms.
test_speed prints the numbers of the machine it runs on.
"""

from __future__ import annotations

import random
import textwrap
import time
from pathlib import Path

import pytest

from autograder.engine.sandbox import Request, Sandbox, isolation

ISO = isolation()
REPO = Path(__file__).resolve().parents[1]
needs_uid = pytest.mark.skipif(not ISO["uid_drop"], reason="only root gives each sandbox its own uid to check")


def call(box: Sandbox, func: str, *args, **kwargs):
    return box.run(Request("call", func, list(args), **kwargs))


def rolls(outcome) -> list[int]:
    return [e[1] for e in outcome.events if e[0] == "roll"]


# -- values -------------------------------------------------------------------------------
def test_call_returns_value_and_mutated_args(make):
    box = make("""
        def score(card, category, points):
            card[category] = points
            return sum(v for v in card.values() if v is not None)
    """)
    out = call(box, "score", {"ones": 3, "twos": None}, "twos", 6)
    assert (out.status, out.value, out.message) == ("ok", 9, "")
    assert out.args_after == [{"ones": 3, "twos": 6}, "twos", 6]
    assert out.error is None and out.exit_code is None


def test_values_are_normalised_without_running_student_code(make):
    box = make("""
        class MyInt(int):
            pass

        def odd_values():
            loop = [1]
            loop.append(loop)
            return [(1, 2), {1, 2}, {1: "a", "b": 2}, MyInt(3), loop, True, None, 1.5]
    """)
    out = call(box, "odd_values")
    assert out.value == [[1, 2], {"__type__": "set"}, {"1": "a", "b": 2}, {"__type__": "MyInt"},
                         [1, {"__type__": "list", "cycle": True}], True, None, 1.5]


@pytest.mark.serial      # a wall-clock or CPU bound: alone in make test
def test_hanging_repr_and_always_equal_object_cannot_hang_the_grader(make):
    box = make("""
        class Evil:
            def __repr__(self):
                while True:
                    pass
            __str__ = __repr__
            def __eq__(self, other):
                return True
            def __hash__(self):
                return 0

        def make_evil():
            return [Evil(), {"k": Evil()}]

        def raise_evil():
            raise ValueError(Evil())
    """)
    t0 = time.process_time()
    out = call(box, "make_evil", timeout=3)
    assert out.status == "ok" and out.cpu < 1.5         # its repr never ran to the 3 s limit (CPU time)
    assert out.value == [{"__type__": "Evil"}, {"k": {"__type__": "Evil"}}]
    out = call(box, "raise_evil", timeout=3)
    assert out.status == "exception" and out.cpu < 1.5
    assert out.error["type"] == "ValueError" and out.error["message"] == "<Evil object>"
    assert time.process_time() - t0 < 1.5       # nor in the grader: CPU, not the wall clock (was
    #                                              monotonic() < 1.5 for both calls and a life's start: pass 22)


# -- output, input, dice, events ----------------------------------------------------------
def test_events_interleave_output_input_and_rolls(make):
    box = make("""
        import random

        def turn():
            print("Welcome")
            name = input("Name? ")
            print("Hello,", name)
            a = random.randint(1, 6)
            b = random.randint(1, 6)
            print("You rolled", a, b)
            return input("Keep? ")
    """)
    out = call(box, "turn", stdin=["Ann", "y"], dice=[3, 5])
    assert out.status == "ok" and out.value == "y"
    assert out.events == [["out", "Welcome\n"], ["in", "Name? ", "Ann"], ["out", "Hello, Ann\n"],
                          ["roll", 3], ["roll", 5], ["out", "You rolled 3 5\n"], ["in", "Keep? ", "y"]]
    assert out.stdout == "Welcome\nName? Ann\nHello, Ann\nYou rolled 3 5\nKeep? y\n"
    assert (out.inputs_asked, out.stdin_lines, out.dice_used) == (2, 2, 2)


def test_stderr_imported_randint_and_other_random_calls_are_recorded(make):
    box = make("""
        import random
        import sys
        from random import randint

        def mixed():
            sys.stderr.write("err\\n")
            random.seed(5)
            x = randint(1, 6)
            random.choice([1, 2])
            return x
    """)
    out = call(box, "mixed")
    random.seed(5)
    expected = random.randint(1, 6)
    assert out.value == expected
    assert out.events == [["out", "err\n"], ["seed", [5]], ["roll", expected], ["random", "choice", [[1, 2]]]]


def test_same_seed_gives_the_same_rolls_as_the_real_random_module(make):
    box = make("""
        import random

        def play():
            return [random.randint(1, 6) for _ in range(10)]
    """)
    random.seed(42)
    expected = [random.randint(1, 6) for _ in range(10)]
    first = call(box, "play", seed=42)
    second = call(box, "play", seed=42)
    assert rolls(first) == rolls(second) == first.value == expected
    assert rolls(call(box, "play", seed=7)) != expected


def test_script_runs_as_main_with_seed_and_echoed_input(make):
    box = make("""
        import random

        def main():
            n = input("n? ")
            print(int(n) * 2, random.randint(1, 6))

        if __name__ == "__main__":
            main()
    """)
    random.seed(3)
    die = random.randint(1, 6)
    out = box.run(Request("script", stdin=["21"], seed=3))
    assert out.status == "ok"
    assert out.stdout == f"n? 21\n42 {die}\n"
    loaded = call(box, "main", stdin=["1"])          # as a module, main() is not run at import
    assert loaded.import_stdout == "" and loaded.status == "ok"


def test_dice_injection_and_running_out_of_dice(make):
    box = make("""
        import random

        def roll_all(n):
            return [random.randint(1, 6) for _ in range(n)]
    """)
    out = call(box, "roll_all", 5, dice=[6, 5, 4, 3, 2])
    assert out.value == [6, 5, 4, 3, 2] and out.dice_used == 5
    out = call(box, "roll_all", 16, dice=[1] * 15)
    assert out.status == "dice_exhausted"
    assert out.message == "rolled a 16th die; this scenario provides 15"
    assert out.dice_used == 15 and out.value is None


def test_input_exhausted_reports_exact_numbers(make):
    box = make("""
        def game():
            while True:
                print("got", input("> "))
    """)
    out = call(box, "game", stdin=["a", "b", "c"])
    assert out.status == "input_exhausted"
    assert out.message == "asked for input a 4th time; this game's script has 3 lines"
    assert (out.inputs_asked, out.stdin_lines) == (4, 3)
    assert out.events[-1] == ["in", "> ", None]
    out = call(box, "game", stdin=[str(i) for i in range(7)])
    assert out.message == "asked for input an 8th time; this game's script has 7 lines"
    out = call(box, "game")
    assert out.message == "asked for input, but this run provides no input"


def test_input_during_import_stops_the_import_but_keeps_earlier_functions(make):
    box = make("""
        def helper(x):
            return x * 2

        print("loading")
        name = input("Your name? ")

        def later():
            return 1
    """)
    out = call(box, "helper", 21)
    assert out.status == "ok" and out.value == 42
    assert out.import_prompted == {"line": 5, "prompt": "Your name? "}
    assert out.import_stdout == "loading\nYour name? "
    assert out.inputs_asked == 0
    assert call(box, "later").status == "no_function"


@pytest.mark.serial      # a wall-clock or CPU bound: alone in make test
def test_input_loop_that_swallows_everything_is_input_exhausted_and_stopped(make):
    box = make("""
        def game():
            while True:
                try:
                    input("? ")
                except BaseException:
                    pass
    """)
    out = call(box, "game", stdin=["a"], timeout=1.0)
    assert out.cpu < 1.25           # it kept going and was stopped at its 1 s limit (a timer a quarter
    assert out.status == "input_exhausted"      # late at most), not later: CPU time (was the wall clock
    #                                             < 2.5 s, a life's start included: pass 22)
    assert out.message.startswith("asked for input a 2nd time; this game's script has 1 line")
    assert out.message.endswith("was stopped after 1 s")
    assert out.inputs_asked > 2


# -- loading problems ---------------------------------------------------------------------
def test_syntax_error_has_line_and_text(make):
    box = make("""
        def fine():
            return 1
        def broken(:
            pass
    """)
    out = call(box, "fine")
    assert out.status == "syntax_error"
    assert out.error["type"] == "SyntaxError" and out.error["line"] == 3
    assert out.error["text"] == "def broken(:"
    assert out.message.startswith("has a syntax error on line 3")
    assert box.run(Request("script")).status == "syntax_error"


def test_missing_function_suggests_the_closest_name(make):
    box = make("""
        def playround():
            return 1
    """)
    out = call(box, "play_round")
    assert out.status == "no_function"
    assert out.error["type"] == "NameError" and out.error["suggestion"] == "playround"
    assert out.message == "has no function named play_round; did you mean playround?"


def test_a_dunder_name_gets_no_suggestion(make):
    # the grader's load probe calls one (program.LOAD_PROBE): no handout function is a dunder
    box = make("""
        def grader_load_probe():
            return 1
    """)
    out = call(box, "__grader_load_probe__")
    assert (out.status, out.error["type"], out.error["suggestion"]) == ("no_function", "NameError", None)
    assert call(box, "grader_load_probe_").error["suggestion"] == "grader_load_probe"



def test_a_name_with_its_words_in_another_order_is_offered_first(make):
    # difflib alone finds upper_score too far from score_upper (ratio 0.45) and offers the nearer
    # spelling of another word; the same words in another order or case come first (engine/nearby.py)
    box = make("""
        def upper_score(dice, face):
            return 0

        def scoreUpper(dice, face):
            return 0

        def score_uppr(dice):
            return 0
    """)
    out = call(box, "score_upper", [1, 1, 2, 3, 4], 1)
    assert out.status == "no_function"
    assert (out.error["suggestion"], out.error["close"]) == ("scoreUpper", ["upper_score", "score_uppr"])
    assert out.message == "has no function named score_upper; did you mean scoreUpper?"
    # a class and a method alike
    klass = make("""
        class GameYahtzee:
            def dice_roll(self, n):
                return n
    """)
    assert call(klass, "YahtzeeGame.roll_dice", 5, instance={}).error["suggestion"] == "GameYahtzee"


# -- methods of a class the student wrote ---------------------------------------------------
GAME_CLASS = """
    import random

    def total(dice):
        return sum(dice)

    class YahtzeeGame:
        def __init__(self, players=1, name=None):
            self.players, self.name = players, name
            self.dice = [0] * 5
            self._rolls = 0

        def roll_dices(self, n):
            self.dice = [random.randint(1, 6) for _ in range(n)]
            self._rolls += 1
            return total(self.dice)

        @staticmethod
        def double(x):
            return 2 * x
"""


def test_a_method_call_constructs_sets_state_and_returns_the_public_attributes_after(make):
    box = make(GAME_CLASS)
    out = call(box, "YahtzeeGame.roll_dices", 3, dice=[6, 5, 4],
               instance={"init": [2], "kwargs": {"name": "Ann"}, "state": {"dice": [1] * 5}})
    assert out.status == "ok" and out.value == 15 and rolls(out) == [6, 5, 4]
    assert out.state_after == {"players": 2, "name": "Ann", "dice": [6, 5, 4]}     # _rolls is private
    shared = [call(box, "YahtzeeGame.roll_dices", 2, fresh=False, instance={"state": {"players": k}})
              for k in (3, 4)]      # pure calls in the shared worker: a new object each time
    assert [o.state_after["players"] for o in shared] == [3, 4]
    assert all(o.status == "ok" and len(o.state_after["dice"]) == 2 for o in shared)
    static = call(box, "YahtzeeGame.double", 21, fresh=False)
    assert (static.status, static.value, static.state_after) == ("ok", 42, None)
    method = call(box, "YahtzeeGame.roll_dice", 5, instance={})
    assert (method.status, method.error["type"], method.error["suggestion"]) == ("no_function", "AttributeError",
                                                                                "roll_dices")
    assert method.message == "has no method roll_dice in class YahtzeeGame; did you mean roll_dices?"
    assert method.hidden_message == "has no method roll_dice in class YahtzeeGame"
    cls = call(box, "YahtzeGame.roll_dices", 5, instance={})
    assert (cls.status, cls.error["suggestion"]) == ("no_function", "YahtzeeGame")
    assert cls.message == "has no class named YahtzeGame; did you mean YahtzeeGame?"
    assert call(box, "total.real").message == "has no class named total"
    with pytest.raises(ValueError, match="keys init, kwargs, state"):
        call(box, "YahtzeeGame.roll_dices", 1, instance={"args": [1]})


def test_a_method_call_uses_the_references_functions_when_substituted(make):
    box = make(GAME_CLASS.replace("return sum(dice)", "return -1"), reference=textwrap.dedent(GAME_CLASS))
    sub = {"names": ["total"], "keep": ["YahtzeeGame"]}
    own, charged = (call(box, "YahtzeeGame.roll_dices", 2, dice=[3, 4], instance={}, substitute=s)
                    for s in (None, sub))
    assert (own.status, own.value, charged.status, charged.value) == ("ok", -1, "ok", 7)


def test_a_hostile_class_cannot_hang_or_flood_the_grader(make):
    box = make("""
        class Hostile:
            def __init__(self):
                self.name = input("name? ")
                self.big = "x" * 10_000_000
                self.many = list(range(1_000_000))

            def __getattr__(self, name):
                raise RuntimeError("no " + name)

            @property
            def forever(self):
                while True:
                    pass

            def touch(self):
                return self.forever

            def size(self):
                return len(self.name)

        class Slotted:
            __slots__ = ("x", "_y", "unset")

            def __init__(self):
                self.x, self._y = 1, 2

            def get(self):
                return self.x

        class FakeDict:
            @property
            def __dict__(self):
                while True:
                    pass

            def get(self):
                self.a = 1
                return 1
    """)
    out = call(box, "Hostile.size", stdin=["Ann"], instance={})
    assert (out.status, out.value, out.state_after["name"]) == ("ok", 3, "Ann")
    assert out.state_after["big"]["__type__"] == "str" and out.state_after["big"]["length"] == 10_000_000
    assert len(out.state_after["many"]) < 200_000
    assert call(box, "Hostile.size", instance={}).status == "input_exhausted"   # the constructor asked
    assert call(box, "Hostile.touch", stdin=["Ann"], instance={}, timeout=0.5).status == "timeout"
    missing = call(box, "Hostile.sizes", stdin=["Ann"], instance={})    # __getattr__ is not consulted
    assert (missing.status, missing.error["suggestion"]) == ("no_function", "size")
    slotted = call(box, "Slotted.get", instance={}, fresh=False)
    assert (slotted.status, slotted.state_after) == ("ok", {"x": 1})
    fake = call(box, "FakeDict.get", instance={}, fresh=False)
    assert (fake.status, fake.value, fake.state_after) == ("ok", 1, {})


def test_exception_trace_shows_student_frames_only(make):
    box = make("""
        import random

        def inner(d):
            return d["missing"]

        def outer():
            return inner({})

        def empty_choice():
            return random.choice([])
    """)
    out = call(box, "outer")
    assert out.status == "exception"
    assert out.error == {"type": "KeyError", "message": "'missing'", "line": 4,
                         "trace": ["yahtzee.py, line 7, in outer", "yahtzee.py, line 4, in inner"]}
    assert out.message == "raised KeyError on line 4: 'missing'"
    out = call(box, "empty_choice")
    assert out.error["type"] == "IndexError" and out.error["trace"] == ["yahtzee.py, line 10, in empty_choice"]


def test_exception_at_import_is_import_error(make):
    box = make("""
        def f():
            return 1
        total = 1 / 0
    """)
    out = call(box, "f")
    assert out.status == "import_error"
    assert out.error["type"] == "ZeroDivisionError" and out.error["line"] == 3


# -- the harness in parts -------------------------------------------------------------------
def test_the_harness_parts_join_into_one_program_with_each_name_defined_once():
    """The sandbox runs harness.source(): the parts in one namespace.  A name defined in two parts
    would silently replace the first; a relative import must name a definition of that part."""
    import ast

    from autograder.engine import harness
    defined: dict[str, str] = {}
    imported: list[tuple[str, str, str]] = []
    for path in harness.part_files():
        tree = ast.parse(path.read_text())
        assert len(path.read_text().splitlines()) <= 600, path.name
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.level:
                imported += [(path.stem, node.module or "", alias.name) for alias in node.names]
            targets = ([node] if isinstance(node, (ast.FunctionDef, ast.ClassDef)) else
                       node.targets if isinstance(node, ast.Assign) else [])
            for target in targets:
                names = [target.name] if not isinstance(target, ast.expr) else \
                    [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]
                for name in names:
                    assert defined.setdefault(name, path.stem) == path.stem, (name, defined[name], path.stem)
    assert imported and all(defined.get(name) == module for _, module, name in imported)
    text = harness.source()
    assert "from ." not in text and compile(text, "<sandbox-harness>", "exec")


def test_the_sandbox_and_the_notebooks_script_input_and_dice_with_one_runtime(make):
    """engine/scripted.py is a part of the harness and embedded in the checking tools (notebooks,
    check.py): the same program, answers and dice print the same transcript in both."""
    import inspect

    from autograder.engine import harness, scripted
    from autograder.notebooks import TOOLS
    shared = inspect.getsource(scripted.Scripted)
    assert shared in harness.source() and shared in TOOLS
    src = """
        import random

        def turn():
            name = input("Name? ")
            dice = [random.randint(1, 6) for _ in range(3)]
            keep = input(f"{name}, keep which of {dice}? ")
            print("kept", keep)
            return sum(dice)
    """
    out = call(make(src), "turn", stdin=["Ann", "1 3"], dice=[6, 2, 5])
    tools: dict = {}
    exec(TOOLS, tools)
    exec(textwrap.dedent(src), tools)
    value, printed = tools["run_scripted"](tools["turn"], ["Ann", "1 3"], [6, 2, 5])
    assert (out.status, out.value, out.stdout) == ("ok", value, printed)
    assert printed == "Name? Ann\nAnn, keep which of [6, 2, 5]? 1 3\nkept 1 3\n"
