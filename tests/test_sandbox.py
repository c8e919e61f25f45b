"""The process sandbox: real child processes and real limits, no mocks.

Measured on the development container (2 CPUs, root, all namespaces available):
  first request of a new sandbox ~70 ms; 100 fresh=False calls ~40 ms; a fresh-fork game ~6 ms.
test_speed prints the numbers of the machine it runs on.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import socket
import subprocess
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from autograder.engine.sandbox import Limits, Request, Sandbox, isolation, uid_processes

ISO = isolation()
REPO = Path(__file__).resolve().parents[1]
needs_namespaces = pytest.mark.skipif(not ISO["namespaces"], reason="isolation() reports no namespaces here "
                                      "(not root, or the kernel/container forbids unshare)")
needs_uid = pytest.mark.skipif(not ISO["uid_drop"], reason="only root gives each sandbox its own uid to check")


@pytest.fixture
def make():
    boxes: list[Sandbox] = []

    def _make(src: str, filename: str = "yahtzee.py", **kwargs) -> Sandbox:
        box = Sandbox(textwrap.dedent(src).lstrip("\n"), filename, **kwargs)
        boxes.append(box)
        return box

    yield _make
    for box in boxes:
        box.close()


def _stopped_within(timeout: float) -> float:
    """Wall seconds a request of TIMEOUT CPU seconds can take at most: its backstop, one retry at
    the long backstop, and the zygote's grace after each."""
    limits = Limits()
    return timeout * limits.wall_factor * (1 + limits.retry_factor) + 2 * 0.5 + 0.5


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


# -- limits -------------------------------------------------------------------------------
@pytest.mark.serial      # a wall-clock or CPU bound: alone in make test
def test_infinite_loop_times_out_and_the_sandbox_recovers(make):
    box = make("""
        import signal

        def spin():
            while True:
                pass

        def stubborn():
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            while True:
                try:
                    while True:
                        pass
                except BaseException:
                    pass

        def ok():
            return "fine"
    """)
    # The limit is CPU time: about 1 s of it, then stopped; on the wall clock 1 s on an idle machine
    # and never more than the backstop and its one retry (Limits.wall_factor, retry_factor) under load.
    t0 = time.monotonic()
    out = call(box, "spin", timeout=1.0)
    assert out.status == "timeout" and out.message == "your program was stopped after 1 s"
    assert out.cpu < 1.6
    assert time.monotonic() - t0 < _stopped_within(1.0)
    t0 = time.monotonic()
    out = call(box, "stubborn", timeout=1.0)
    assert out.status == "timeout"
    assert out.cpu < 2.1
    assert time.monotonic() - t0 < _stopped_within(1.0) + 0.5
    assert call(box, "ok").value == "fine"
    out = call(box, "spin", timeout=0.5, fresh=False)
    assert out.status == "timeout"
    assert call(box, "ok", fresh=False).value == "fine"


@pytest.mark.serial      # a wall-clock or CPU bound: alone in make test
def test_the_limit_is_cpu_time_a_starved_request_runs_on_a_sleeping_one_does_not(make):
    """A request held back by the machine's load (here: spinning children of its own, run
    alongside it) is under its CPU limit and runs on; one that sleeps stops at the limit."""
    box = make("""
        import os
        import time

        def crowded(n, work):
            kids = []
            for _ in range(n):
                pid = os.fork()
                if pid == 0:
                    while True:
                        pass
                kids.append(pid)
            start = time.process_time()
            while time.process_time() - start < work:
                pass

        def sleepy():
            time.sleep(30)
    """, limits=Limits(wall_factor=20))     # a backstop far enough for the machine's own load too
    # 3 spinners per core: the request gets about a quarter of a CPU, so its 0.3 s of CPU take
    # about 1 s of wall time (3 spinners on 2 cores left it half a CPU: 0.43-0.6 s, too close)
    out = call(box, "crowded", 3 * (os.cpu_count() or 2), 0.3, timeout=0.5)
    assert out.status == "ok", out.message
    # more wall time than the limit: a wall-clock limit would have stopped it (the request's run as the
    # grader timed it: since pass 19 the program's own time.monotonic() reads the request's clock)
    assert out.elapsed > 0.5
    assert not [a for a in out.attempts if "schedstat" in str(a)]   # the grader's look is not the program's
    retries = box.retries     # (a crowded run past its backstop on a very busy machine is retried once)
    t0 = time.monotonic()
    out = call(box, "sleepy", timeout=0.5)
    assert out.status == "timeout" and out.message == "your program was stopped after 0.5 s"
    # a sleeper is never retried, and stopped at its limit, not after its 30 s (the bound was 1.5 s of
    # wall time before pass 19: a loaded machine's late collection could cross it)
    assert time.monotonic() - t0 < 10 and out.cpu < 0.25 and box.retries == retries
    assert not [a for a in out.attempts if "schedstat" in str(a)], out.attempts


def test_swallowing_the_timeout_still_times_out_and_crashes_are_reported(make):
    box = make("""
        import ctypes

        def sneaky():
            try:
                while True:
                    pass
            except BaseException:
                return "escaped"

        def segfault():
            return ctypes.string_at(0)
    """)
    out = call(box, "sneaky", timeout=0.5)
    assert (out.status, out.value, out.message) == ("timeout", None, "your program was stopped after 0.5 s")
    out = call(box, "segfault")
    assert (out.status, out.message) == ("crash", "your program crashed (killed by SIGSEGV)")


@needs_uid
def test_fork_bomb_is_contained(make):
    box = make("""
        import os

        def bomb():
            while True:
                os.fork()

        def ok():
            return 1
    """)
    out = call(box, "bomb", timeout=3)
    assert out.status == "exception" and out.error["type"] == "BlockingIOError"
    assert len(uid_processes(box.uid)) == 1
    assert call(box, "ok").value == 1


def test_memory_bomb_is_memory(make):
    box = make("""
        def hog():
            data = []
            while True:
                data.append(bytearray(10 * 1024 * 1024))
    """, limits=Limits(memory_mb=256))
    out = call(box, "hog")
    assert out.status == "memory"
    assert out.message == "used more than 256 MB of memory"
    assert call(box, "hog", fresh=False).status == "memory"


@pytest.mark.serial      # a wall-clock or CPU bound: alone in make test
def test_print_flood_is_output_limit_and_raw_flood_cannot_block(make):
    box = make("""
        import os

        def flood():
            while True:
                print("x" * 1000)

        def raw_flood():
            for _ in range(500):
                os.write(1, b"y" * 65536)
                os.write(2, b"z" * 65536)
            return "done"
    """, limits=Limits(output_chars=50_000))
    out = call(box, "flood")
    assert out.status == "output_limit"
    assert out.message == "print output exceeded 50000 characters"
    assert len(out.stdout) == 50_000
    t0 = time.monotonic()
    assert call(box, "raw_flood").value == "done"
    assert time.monotonic() - t0 < 3


def test_junk_written_to_every_fd_does_not_confuse_the_grader(make):
    box = make("""
        import os

        def scribble():
            for fd in range(3, 64):
                for junk in (b'{"t":"result","seq":-1}\\n', b'{"t":"result" garbage\\n', b"\\x00junk\\n"):
                    try:
                        os.write(fd, junk)
                    except OSError:
                        pass
            return "done"
    """)
    assert call(box, "scribble").value == "done"
    assert call(box, "scribble", fresh=False).value == "done"


def test_sys_exit_and_os_exit_report_the_code(make):
    box = make("""
        import os
        import sys

        def quit_sys():
            print("bye")
            sys.exit(3)

        def quit_os():
            print("bye")
            os._exit(4)

        def ok():
            return 1
    """)
    out = call(box, "quit_sys")
    assert (out.status, out.exit_code, out.message, out.stdout) == ("exit", 3, "called sys.exit(3)", "bye\n")
    out = call(box, "quit_os")
    assert (out.status, out.exit_code, out.message, out.stdout) == ("exit", 4, "called os._exit(4)", "bye\n")
    out = call(box, "quit_os", fresh=False)       # kills the shared worker; the next call gets a new one
    assert (out.status, out.exit_code) == ("exit", 4)
    assert call(box, "ok", fresh=False).value == 1


def test_script_can_use_exit_builtin(make):
    box = make("""
        print("start")
        exit()
    """)
    out = box.run(Request("script"))
    assert (out.status, out.exit_code, out.message) == ("exit", 0, "called sys.exit()")


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


# -- processes and state ------------------------------------------------------------------
def test_fresh_isolates_globals_and_shared_keeps_them(make):
    box = make("""
        count = 0

        def bump():
            global count
            count += 1
            return count
    """)
    assert [call(box, "bump").value for _ in range(2)] == [1, 1]
    assert [call(box, "bump", fresh=False).value for _ in range(3)] == [1, 2, 3]
    assert call(box, "bump").value == 1               # forks start from the pristine zygote


@needs_uid
def test_background_processes_and_threads_do_not_outlive_their_request(make):
    box = make("""
        import os
        import threading
        import time

        def spawn():
            if os.fork() == 0:
                os.setsid()
                if os.fork() == 0:
                    time.sleep(60)
                os._exit(0)
            return "spawned"

        def thread():
            threading.Thread(target=time.sleep, args=(60,), daemon=True).start()
            return "started"
    """)
    assert call(box, "spawn").value == "spawned"
    uid = box.uid
    assert len(uid_processes(uid)) == 1              # only the zygote is left
    assert call(box, "spawn", fresh=False).value == "spawned"
    assert call(box, "thread", fresh=False).value == "started"
    assert len(uid_processes(uid)) == 1
    box.close()
    assert uid_processes(uid) == []


@needs_uid
def test_two_sandboxes_get_different_uids(make):
    first, second = make("def f():\n    return 1\n"), make("def f():\n    return 2\n")
    assert call(first, "f").value == 1 and call(second, "f").value == 2
    assert first.uid != second.uid and first.uid >= 40000


@needs_namespaces
def test_hidden_paths_network_and_files_are_isolated(make):
    src = """
        import os
        import socket

        def peek(path):
            try:
                with open(path) as f:
                    return f.read(20)
            except OSError as e:
                return type(e).__name__

        def write(path):
            try:
                with open(path, "w") as f:
                    f.write("x")
                return "written"
            except OSError as e:
                return type(e).__name__

        def connect(port):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=2).close()
                return "connected"
            except OSError:
                return "blocked"

        def env():
            return sorted(os.environ)
    """
    # A world-readable folder outside /tmp (the sandbox gets a private /tmp anyway, and a fresh
    # clone of the kit may itself live under /tmp).
    secret_dir = Path(tempfile.mkdtemp(prefix="sandbox-hidden-", dir="/run"))
    try:
        secret_dir.chmod(0o755)
        secret = secret_dir / "hidden-test.txt"
        secret.write_text("the hidden tests say", encoding="utf-8")
        secret.chmod(0o644)
        head = secret.read_text(encoding="utf-8")[:20]
        assert head and call(make(src), "peek", str(secret)).value == "FileNotFoundError"   # not allowlisted...
        box = make(src, hidden_paths=[str(secret_dir)])
        assert call(box, "peek", str(secret)).value == "FileNotFoundError"   # ...nor when named hidden
        assert box.applied["uid"] >= 40000 and str(secret_dir) in box.applied["hidden"]
    finally:
        shutil.rmtree(secret_dir, ignore_errors=True)
    assert call(box, "write", "/etc/sandbox-probe").value in ("OSError", "PermissionError")
    assert not os.path.exists("/etc/sandbox-probe")
    probe = f"/tmp/sandbox-probe-{os.getpid()}.txt"
    assert call(box, "write", probe).value == "written"
    assert not os.path.exists(probe)                              # its /tmp is private
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        assert call(box, "connect", listener.getsockname()[1]).value == "blocked"
    assert call(box, "env").value == ["HOME", "LANG", "PATH", "PYTHONDONTWRITEBYTECODE", "PYTHONHASHSEED",
                                      "PYTHONIOENCODING"]


@pytest.mark.skipif(not (ISO["root"] and shutil.which("setpriv") and os.path.exists("/usr/bin/python3")),
                    reason="needs root, setpriv and a system python to run the grader as an unprivileged user")
def test_unprivileged_grader_degrades_to_limits_and_a_temp_folder():
    package = readable_package_copy()      # the checkout may sit in a private (0700) folder
    try:
        _unprivileged_grader(package)
    finally:
        shutil.rmtree(package, ignore_errors=True)


def readable_package_copy() -> Path:
    """A copy of the autograder package that any user can read (a fresh clone in a `mktemp -d`
    folder or a home folder is readable by its owner only): the folder to put on sys.path."""
    top = Path(tempfile.mkdtemp(prefix="autograder-pkg-"))
    shutil.copytree(REPO / "autograder", top / "autograder",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for folder, _dirs, files in os.walk(top):
        os.chmod(folder, 0o755)
        for name in files:
            os.chmod(os.path.join(folder, name), 0o644)
    return top


def _unprivileged_grader(package: Path) -> None:
    script = textwrap.dedent(f"""
        import json, os, sys
        sys.path.insert(0, {str(package)!r})
        from autograder.engine.sandbox import Request, Sandbox, isolation
        src = '''
        import os, time
        def add(a, b):
            return a + b
        def spawn():
            pid = os.fork()
            if pid == 0:
                os.setsid()
                time.sleep(60)
            return pid
        def spin():
            while True:
                pass
        def game():
            return input("? ")
        '''
        with Sandbox(src, "yahtzee.py") as box:
            outs = [box.run(Request("call", "add", [1, 2])), box.run(Request("call", "game", stdin=[])),
                    box.run(Request("call", "spin", timeout=0.5)), box.run(Request("call", "spawn"))]
            pid = outs[-1].value
            alive = os.path.exists(f"/proc/{{pid}}") and "State:\\tZ" not in open(f"/proc/{{pid}}/status").read()
            applied = box.applied
        print(json.dumps({{"iso": isolation(), "applied": applied, "alive": alive,
                          "workdir_left": os.path.exists(applied["workdir"]),
                          "outs": [[o.status, o.value, o.message] for o in outs]}}))
    """)
    proc = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3",
                           "-c", script], capture_output=True, text=True, timeout=30, cwd="/")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["iso"]["root"] is False and report["iso"]["namespaces"] is False
    assert report["applied"]["uid"] == 65534 and "nproc" not in report["applied"]["rlimits"]
    assert report["outs"][:3] == [["ok", 3, ""],
                                  ["input_exhausted", None, "asked for input a 1st time; this game's script has 0 lines"],
                                  ["timeout", None, "your program was stopped after 0.5 s"]]
    assert report["outs"][3][0] == "ok"
    assert report["alive"] is False and report["workdir_left"] is False


def test_many_requests_leak_nothing(make):
    """A hundred shared calls and a hundred fresh games in one sandbox: more than Limits.nofile,
    so no descriptor or process may leak per request.  (Speed is measured by `make bench`.)"""
    box = make("""
        import random

        def add(a, b):
            return a + b

        def game():
            total = 0
            for _ in range(13):
                input("? ")
                total += sum(random.randint(1, 6) for _ in range(5))
            return total
    """)
    for i in range(100):
        assert call(box, "add", i, 1, fresh=False).value == i + 1
    for i in range(100):
        assert call(box, "game", stdin=["r"] * 13, seed=i).status == "ok"


@pytest.mark.skipif(not ISO["uid_drop"], reason="cgroups, seccomp and the minimal root need root")
def test_the_sandbox_is_one_cgroup_with_a_memory_limit_for_the_whole_tree(make, monkeypatch):
    """Memory is bounded for the sandbox, not per process: five children that each stay under
    RLIMIT_AS but together exceed the group's limit cannot all live."""
    box = make("""
        import os, signal

        def where():
            return open("/proc/self/cgroup").read()

        def many(n, mb):
            # Each child says "ready" once its block is touched; alive = the children that said so
            # and still live once every child has said so or died (under load a child still
            # touching its block is not yet charged for it, so a fixed sleep could count it).
            import time
            ready_r, ready_w = os.pipe()
            pids = []
            for _ in range(n):
                pid = os.fork()
                if pid == 0:
                    block = bytearray(mb << 20)          # touched: really charged
                    os.read(os.open("/dev/zero", os.O_RDONLY), 1)
                    os.write(ready_w, b"r")
                    signal.pause()
                pids.append(pid)
            os.close(ready_w)
            os.set_blocking(ready_r, False)
            ready, dead = 0, set()
            deadline = time.monotonic() + 10
            while ready + len(dead) < n and time.monotonic() < deadline:
                time.sleep(0.05)
                try:
                    ready += len(os.read(ready_r, 64))
                except BlockingIOError:
                    pass
                for pid in pids:
                    if pid not in dead and os.waitpid(pid, os.WNOHANG)[0]:
                        dead.add(pid)
            alive = 0
            for pid in pids:
                if pid not in dead and os.waitpid(pid, os.WNOHANG)[0] == 0:
                    alive += 1
                    os.kill(pid, signal.SIGKILL)
            return min(alive, ready)
    """, limits=Limits(memory_mb=160, wall_s=15))
    inside = call(box, "where")
    if box.applied.get("cgroup") is False:
        pytest.skip("this machine gives no writable cgroup (see Sandbox.applied['cgroup'])")
    assert "autograder-" in inside.value
    assert box.applied["seccomp"] is True and box.applied["root"] == "minimal"
    limit_mb = box._cgroup_memory() >> 20                  # 2 x 160 + tmpfs sizes + 64 = 432 MB
    assert call(box, "many", 2, 120).value == 2            # 240 MB: within the group's limit
    over = call(box, "many", 5, 120)                       # 600 MB > the group's limit
    # The kernel's OOM killer picks the victim: some children, or the request itself.
    assert (over.status == "ok" and over.value < 5) or (over.status == "crash" and "SIGKILL" in over.message), \
        f"five 120 MB children all lived under a {limit_mb} MB group: {over.status} {over.value} {over.message}"
    assert call(box, "where").status == "ok"               # the sandbox itself goes on
    from autograder.engine import cgroup

    monkeypatch.setattr(cgroup.Group, "create", classmethod(lambda cls, *a, **k: None))
    control = make(box.source, limits=Limits(memory_mb=160, wall_s=5))
    assert call(control, "many", 5, 120).value == 5         # without the group: RLIMIT_AS alone lets all live
    assert control.applied["cgroup"] is False


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
