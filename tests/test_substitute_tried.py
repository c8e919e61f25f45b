"""Substitution only where it is needed (engine/ahead.py, "a variant's calls tried in the student's
own sandbox"): a variant whose planned requests are all shared calls (Yahtzee's stage 1) runs them
first in the student's own sandbox, with stand-ins for the substituted names and no reference;
its outcomes count only when the whole try was clean, else the variant runs in its own sandbox as
before.  Real sandboxes: every program below is graded in one session with tries and in one
without (engine_tries.TRY_ASIDE), and the reports must be the same, byte for byte (times aside), except
for the program that searches its memory for the reference (the try holds none: its exact score).
A Sandbox of its own shows the aside batch's rules: refused where a worker ran or a file was left,
the life left as it was, files left behind say so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from autograder.engine import tries as engine_tries
from autograder.engine.program import Program, close_references
from autograder.engine.sandbox import Request, Sandbox, isolation, template_scope
from autograder.grading.grade import grade_stream

ROOT = Path(__file__).resolve().parent.parent
SOLUTION = (ROOT / "solution" / "yahtzee.py").read_text(encoding="utf-8")
CHANCE = "    # BEGIN PROBLEM 5\n    return sum(dice)\n"


def _chance(body: str) -> str:
    """The solution with score_chance (stage 1) doing BODY before it returns the sum."""
    assert SOLUTION.count(CHANCE) == 1
    return SOLUTION.replace(CHANCE, "    # BEGIN PROBLEM 5\n" + body + "    return sum(dice)\n")


PROGRAMS = {
    # the positive control: nothing of stage 1 touches another stage's function (one life less)
    "untouched": SOLUTION,
    # searches its memory for the reference's code during stage-1 calls and scores 0 if it finds any
    "searches": _chance("    import gc\n"
                        "    if any(getattr(getattr(f, '__code__', None), 'co_filename', '') == '<reference>'\n"
                        "           for f in gc.get_objects() if callable(f)):\n        return 0\n"),
    # a stage-1 function that calls a stage-2 function: the try fails, the variant runs as before
    "calls_stage2": _chance("    format_dice(dice)\n"),
    # ...and one that catches what the stand-in raises: the try still fails
    "catches_stand_in": _chance("    try:\n        format_dice(dice)\n    except Exception:\n        pass\n"),
    # keeps the substituted function in a global (a stage-1 call) and calls it in a later call
    "keeps_it": _chance("    global KEPT\n    if 'KEPT' in globals():\n        KEPT(dice)\n"
                        "    else:\n        KEPT = format_dice\n"),
    # leaves a file behind in a stage-1 call (the try fails: a new life would hold none)
    "writes_tmp": _chance("    open('/tmp/chance-was-here', 'a').close()\n"),
    # slow at its first stage-1 call only: beyond a try's bound (0.25 s), well within the call's
    "slow_first": _chance("    global SLOW\n    if 'SLOW' not in globals():\n        SLOW = 1\n"
                          "        import time\n        time.sleep(0.4)\n"),
    # defeats the stand-in: resets its mark (through its closure) and answers right only then; the
    # variant's sandbox would run the reference's format_dice (no exception: chance answers 0).
    # The try is good, and the program scores what its own code does there (it could answer right
    # anyway; the try holds less than the variant's sandbox: no reference at all)
    "resets_the_mark": _chance("    try:\n        format_dice(dice)\n    except RuntimeError:\n"
                               "        [c.cell_contents for c in format_dice.__closure__\n"
                               "         if type(c.cell_contents) is list][0][0] = False\n"
                               "        return sum(dice)\n    return 0\n"),
    # untouched again, after tries of stage 1 in this process of which fewer than half were good:
    # tried all the same (a student's try never depends on the students graded before it)
    "untouched_again": SOLUTION + "\n",
}


def _reports(paths: list[Path], tries: bool) -> tuple[dict, dict]:
    """Each program's report (JSON text without times), and its Program's figures: (tries made,
    tries good, variant sandboxes started)."""
    figures: list[tuple[int, int, int]] = []
    close = Program.close

    def closing(self: Program) -> None:      # (reads what the Program did; changes nothing)
        if self._owner is None and self._reference is not None:     # (each right after its report)
            figures.append((*self.tries, sum(1 for v in self._variants.values() if v._sandbox.starts)))
        close(self)

    reports: dict[str, str] = {}
    order: list[str] = []

    def deliver(report) -> None:
        data = report.to_dict()
        data.pop("execution_time", None)
        for test in data.get("tests", []):
            test.pop("elapsed", None)
        name = Path(data["submission"]).stem
        order.append(name)
        reports[name] = json.dumps(data, sort_keys=True)

    saved = engine_tries.TRY_ASIDE
    engine_tries.TRY_ASIDE = tries
    Program.close = closing
    try:
        with template_scope():
            grade_stream(iter(paths), deliver, "yahtzee", "all")
        close_references()
    finally:
        Program.close = close
        engine_tries.TRY_ASIDE = saved
    assert len(figures) == len(order)
    return reports, dict(zip(order, figures))


def _graded(folder: Path, programs: dict[str, str]) -> tuple[dict, dict, dict, dict]:
    if not (isolation()["uid_drop"] and isolation()["pid_namespace"]):
        pytest.skip("tries need the root sandbox (private tmp folders, a fresh runner)")
    paths = []
    for name, source in programs.items():
        path = folder / f"{name}.py"
        path.write_text(source, encoding="utf-8")
        paths.append(path)
    before, before_figures = _reports(paths, tries=False)
    after, after_figures = _reports(paths, tries=True)
    return before, after, before_figures, after_figures


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> tuple[dict, dict, dict, dict]:
    return _graded(tmp_path_factory.mktemp("tried"), PROGRAMS)


def _score(report: str) -> float:
    return json.loads(report)["score"]


def test_an_untouched_student_runs_one_life_less_with_the_same_report(graded):
    before, after, before_figures, after_figures = graded
    assert before_figures["untouched"] == (0, 0, 4)       # without tries: four substitution lives
    assert after_figures["untouched"] == (1, 1, 3)        # stage 1's served by the try: three
    assert after["untouched"] == before["untouched"]
    assert _score(after["untouched"]) == 100.0


@pytest.mark.parametrize("name", ["calls_stage2", "catches_stand_in", "keeps_it", "writes_tmp", "slow_first"])
def test_a_try_that_touched_or_left_anything_falls_back_to_the_same_report(graded, name):
    before, after, _, after_figures = graded
    assert after_figures[name] == (1, 0, 4)      # tried, not good: stage 1's own sandbox ran it all
    assert after[name] == before[name]


def test_the_falling_back_programs_exact_scores(graded):
    _, after, _, _ = graded
    # format_dice runs the reference's in stage 1's sandbox: each of them scores as the reference
    assert {n: _score(after[n]) for n in ("calls_stage2", "catches_stand_in", "keeps_it", "writes_tmp",
                                          "slow_first")} == {
        "calls_stage2": 100.0, "catches_stand_in": 100.0, "keeps_it": 100.0, "writes_tmp": 100.0, "slow_first": 100.0}


def test_a_students_try_does_not_depend_on_the_tries_of_the_students_before_it(graded):
    """Eight tries of stage 1 made before it in this process, three good: it is tried all the
    same (a record of those once stopped trying it, and a classmate's refused try could then
    change the grade of a later student whose tried outcome is not its variant's: corpus round3
    `unseen_notes_own`)."""
    before, after, _, after_figures = graded
    assert after_figures["untouched_again"] == (1, 1, 3)
    assert after["untouched_again"] == before["untouched_again"]


def test_a_search_for_the_reference_during_a_try_finds_none(graded):
    before, after, _, after_figures = graded
    assert after_figures["searches"] == (1, 1, 3)
    assert _score(after["searches"]) == 100.0           # the try holds no reference: chance is right
    assert _score(before["searches"]) < 100.0           # stage 1's own sandbox holds the other stages'


# -- the aside batch itself, in one Sandbox ------------------------------------------------------
SOURCE = """
import os
COUNT = []

def count():
    COUNT.append(1)
    return len(COUNT)

def write():
    open('/tmp/left-here', 'w').close()
    return 1

def litter():
    open('/tmp/work/litter', 'w').close()      # (a fresh request's own folder is removed; this stays)
    return 1

def files():
    here = os.path.basename(os.getcwd())         # (a fresh request's own run folder)
    return sorted(os.listdir('/tmp')), sorted(n for n in os.listdir('/tmp/work') if n != here)

def pid():
    return os.getpid()

def note(how):
    import builtins, threading, time
    if how == "builtins":
        builtins.NOTE = 1
    elif how == "environ":
        os.environ["NOTE"] = "1"
    elif how == "module":
        import json
        json.NOTE = 1
    else:
        threading.Thread(target=lambda: (time.sleep(0.05), setattr(builtins, "NOTE", 1)), daemon=True).start()
    return os.getpid()

def noted():
    import builtins, json
    return hasattr(builtins, "NOTE") or "NOTE" in os.environ or hasattr(json, "NOTE")
"""


def _call(func: str, fresh: bool = False, args: list | None = None) -> Request:
    return Request("call", func, args or [], {}, None, None, None, fresh, None)


def test_the_clean_runner_serves_the_try_and_ends_with_it():
    """The fresh runner there is when a try begins (clean: it passed the clean-state check after
    each request it served) serves the try as its worker, one fork less; the try's end makes it the
    runner again (Zygote.worker_as_runner: since pass 16's runnerback, where it ended with the try
    and the next fresh request got a new runner): its module dropped and the clean-state check
    passed, it serves the next fresh request, and the shared call after that imports the module
    anew (none of the try's calls).  A runner a fresh request left unclean (a note the check
    sees) is retired before: the try's worker is a fork of its own, which holds no note."""
    if not (isolation()["uid_drop"] and isolation()["pid_namespace"]):
        pytest.skip("the aside batch needs the root sandbox (private tmp folders, a fresh runner)")
    with template_scope(), Sandbox(SOURCE, "prog.py") as box:
        runner = box.run(_call("pid", fresh=True)).value
        assert box.run(_call("pid", fresh=True)).value == runner        # (the runner serves on)
        tried = box.run_batch([_call("pid"), _call("count"), _call("pid")], aside=True)
        assert [o.value for o in tried] == [runner, 1, runner] and box.aside_end == "clean"
        after = box.run(_call("pid", fresh=True)).value
        assert after == runner                          # the try's worker made the runner again
        assert box.run(_call("count")).value == 1        # the life's own worker: none of the try's calls
    for how in ("builtins", "environ", "module", "thread"):
        with template_scope(), Sandbox(SOURCE, "prog.py") as box:
            dirty = box.run(_call("note", fresh=True, args=[how])).value
            tried = box.run_batch([_call("noted"), _call("pid")], aside=True)
            assert box.aside_end == "clean" and tried[0].value is False, how
            assert tried[1].value != dirty, how
            assert box.run(_call("noted", fresh=True)).value is False, how    # (nor does a fresh request)


def test_an_aside_batch_leaves_the_life_as_it_was_and_is_refused_after_a_worker():
    if not (isolation()["uid_drop"] and isolation()["pid_namespace"]):
        pytest.skip("the aside batch needs the root sandbox (private tmp folders)")
    with template_scope(), Sandbox(SOURCE, "prog.py") as box:
        assert box.run(_call("files", fresh=True)).value == [["work"], []]
        counted = box.run_batch([_call("count"), _call("count")], aside=True)
        assert [o.value for o in counted] == [1, 2] and box.aside_end == "clean"
        wrote = box.run_batch([_call("write"), _call("count")], aside=True)
        assert [o.value for o in wrote] == [1, 1] and box.aside_end == "left"    # a new worker: 1 again
        assert box.run(_call("files", fresh=True)).value == [["work"], []]      # nothing left of either
        assert box.run(_call("count")).value == 1       # the life's own worker: none of the tries' calls
        assert box.run_batch([_call("count")], aside=True) == [] and box.aside_end == "refused"
        assert box.run(_call("count")).value == 2       # its worker untouched by the refused batch
    with template_scope(), Sandbox(SOURCE, "prog.py") as box:
        assert box.run(_call("litter", fresh=True)).value == 1
        assert box.run_batch([_call("count")], aside=True) == [] and box.aside_end == "refused"
        assert box.run(_call("files", fresh=True)).value == [["work"], ["litter"]]     # left as it was


STUDENT = """
COUNT = []

def count():
    COUNT.append(1)
    return len(COUNT)

def helper():
    return "mine"
"""
REFERENCE = 'def helper():\n    return "the reference\'s"\n\n\ndef count():\n    return 0\n'


@pytest.mark.parametrize("past", [True, False])
def test_a_call_after_a_good_try_sees_the_calls_the_checks_made(past):
    """Past the plan (or off it), the variant's own sandbox starts and first replays the calls
    the try served, so the count goes on as it would have in that sandbox from the start."""
    if not (isolation()["uid_drop"] and isolation()["pid_namespace"]):
        pytest.skip("tries need the root sandbox")
    sub = {"names": ["helper"], "keep": ["count"]}
    with template_scope():
        student = Program(STUDENT, "prog.py", reference=REFERENCE)
        try:
            student.load_probe()
            student.prefetch([Request("call", "count", [], {}, None, None, None, False, None, sub)] * 2)
            variant = next(iter(student._variants.values()))
            assert student.tries == [1, 1] and not variant._sandbox.starts
            student.substitute = sub
            if past:
                assert [student.call("count").value for _ in range(3)] == [1, 2, 3]
            else:
                assert student.call("count").value == 1
                assert student.call("helper").value == "the reference's"    # off the plan: replayed
                assert student.call("count").value == 2
            assert variant._sandbox.starts == 1
        finally:
            student.close()


def test_a_program_that_defeats_the_stand_in_scores_what_it_does_in_the_try(graded):
    before, after, _, after_figures = graded
    assert after_figures["resets_the_mark"] == (1, 1, 3)
    assert _score(after["resets_the_mark"]) == 100.0
    assert _score(before["resets_the_mark"]) == 98.4    # chance answers 0 there (97.9714 before pass 16: P6 charged it again)


# -- the own life's fresh requests first: the runner that served them serves the try -------------
GAME = "    # BEGIN PROBLEM 16\n"


def _game(body: str, source: str = SOLUTION) -> str:
    """SOURCE with play_game (stage 4: the own life's fresh requests, which run before the try,
    in the fresh runner that then serves it as its worker) doing BODY first."""
    assert source.count(GAME) == 1
    return source.replace(GAME, GAME + body)


# score_chance (stage 1, the try) answers 0 where it finds the note a game left
_READS_NOTE = _chance("    import builtins, os\n"
                      "    if hasattr(builtins, 'NOTE') or 'NOTE' in os.environ:\n        return 0\n")

# ...and only outside a game: a thread's note lands when the thread wakes, which under load can
# be inside the very game that started it, and a game that read it would score by the clock
_READS_NOTE_OUTSIDE_GAMES = _chance("    import builtins, sys\n    frame = sys._getframe()\n"
                                    "    while frame is not None and frame.f_code.co_name != 'play_game':\n"
                                    "        frame = frame.f_back\n"
                                    "    if frame is None and hasattr(builtins, 'NOTE'):\n        return 0\n")

AFTER_GAMES = {
    "untouched": SOLUTION,
    # touches the stand-in at its second call only (the first was good): the try fails
    "touches_second": _chance("    global CALLS\n    CALLS = globals().get('CALLS', 0) + 1\n"
                              "    if CALLS == 2:\n        format_dice(dice)\n"),
    # leaves a thread running after a stage-1 call: the try's worker is replaced, the try fails
    "thread_in_try": _chance("    import threading, time\n"
                             "    threading.Thread(target=time.sleep, args=(0.3,), daemon=True).start()\n"),
    # leaves a child process running after a stage-1 call: the try's worker is replaced, it fails
    "child_in_try": _chance("    import os, time\n    if os.fork() == 0:\n        time.sleep(0.3)\n"
                            "        os._exit(0)\n"),
    # hostile: a game leaves a note in the runner and stage 1 reads it there.  The clean-state
    # check retires that runner: the try gets a worker of its own, which holds no note (nor does
    # the variant's own sandbox)
    "game_notes_builtins": _game("    import builtins\n    builtins.NOTE = 1\n", _READS_NOTE),
    "game_notes_environ": _game("    import os\n    os.environ['NOTE'] = '1'\n", _READS_NOTE),
    # ...a thread that leaves the note a little later (the runner is not settled: retired)
    "game_leaves_a_thread": _game("    import builtins, threading, time\n"
                                  "    threading.Thread(target=lambda: (time.sleep(0.05), setattr(builtins, 'NOTE', 1)),"
                                  " daemon=True).start()\n", _READS_NOTE_OUTSIDE_GAMES),
    # slow games (beyond a trial's bound, well within a game's limit): the first one run before
    # the try runs out its trial and is dropped with those after it; they run where the plan has
    # them (after stage 2's sandbox), with what the parts before them learnt, as without tries
    "slow_games": _game("    import time\n    spin = time.process_time() + 0.4\n"
                        "    while time.process_time() < spin:\n        pass\n"),
    # a game leaves a child process running (the runner is not settled: retired, the try's worker
    # is a fork of its own, the child killed before it)
    "game_leaves_a_child": _game("    import os, time\n    if os.fork() == 0:\n        time.sleep(1)\n"
                                 "        os._exit(0)\n", _READS_NOTE),
    # a game leaves a file in the work folder (it outlives a request).  The own life's games are
    # hidden checks' requests (stage 4's own_functions game): public first (ahead.py) runs them
    # after the try (which holds public calls), so the try finds no file and is good; was
    # (1, 0, 4): the games ran before it and the try was refused
    "game_leaves_a_file": _game("    open('/tmp/work/game-was-here', 'a').close()\n"),
}


@pytest.fixture(scope="module")
def graded_after_games(tmp_path_factory) -> tuple[dict, dict, dict, dict]:
    return _graded(tmp_path_factory.mktemp("after_games"), AFTER_GAMES)


def test_the_own_life_games_then_the_try_the_same_reports(graded_after_games):
    before, after, before_figures, after_figures = graded_after_games
    assert before == after
    assert {n: f for n, f in before_figures.items()} == dict.fromkeys(AFTER_GAMES, (0, 0, 4))
    assert after_figures == {
        "untouched": (1, 1, 3), "touches_second": (1, 0, 4), "thread_in_try": (1, 0, 4), "child_in_try": (1, 0, 4),
        "game_leaves_a_child": (1, 1, 3),
        "game_notes_builtins": (1, 1, 3), "game_notes_environ": (1, 1, 3), "game_leaves_a_thread": (1, 1, 3),
        "slow_games": (1, 1, 3), "game_leaves_a_file": (1, 1, 3)}


def test_the_own_life_games_then_the_try_exact_scores(graded_after_games):
    _, after, _, _ = graded_after_games
    assert {n: _score(r) for n, r in after.items()} == {
        "untouched": 100.0, "touches_second": 100.0, "thread_in_try": 100.0, "child_in_try": 100.0,
        "game_leaves_a_child": 100.0,
        "game_notes_builtins": 99.0, "game_notes_environ": 99.0, "game_leaves_a_thread": 100.0,
        "slow_games": 100.0, "game_leaves_a_file": 100.0}
