"""The speed shortcuts keep every outcome the same (issue 13): a request plan run in one round
trip, a shared-worker history replayed when the checks leave the plan, the reference cache, the
time budget.  Real sandboxes, no mocks; no timing is asserted (figures belong to `make bench`).
"""

from __future__ import annotations

import dataclasses
import json
import textwrap
from pathlib import Path

import pytest

from autograder.engine import refcache
from autograder.engine.program import Program
from autograder.engine.sandbox import Limits, Request, Sandbox

# A module with state: pure-looking calls that are not (a counter), a game that reads input.
STATEFUL = textwrap.dedent("""
    import random
    COUNT = [0]

    def bump(n):
        COUNT[0] += n
        return COUNT[0]

    def add(a, b):
        return a + b

    def game():
        name = input("name? ")
        return [name, random.randint(1, 6), bump(100)]

    def slow(seconds):
        import time
        time.sleep(seconds)
        return seconds

    def spin():
        while True:
            pass
""").lstrip()


def shared(func: str, *args) -> Request:
    return Request("call", func, list(args), {}, None, None, None, False, None)


def fresh(func: str, *args, stdin=None, seed=None) -> Request:
    return Request("call", func, list(args), {}, stdin, seed, None, True, None)


def same(a, b) -> bool:
    keep = ("status", "value", "stdout", "events", "error", "args_after", "inputs_asked", "dice_used", "message")
    return all(getattr(a, k) == getattr(b, k) for k in keep)


def test_a_batch_gives_the_outcomes_of_one_by_one():
    plan = [shared("bump", 1), fresh("game", stdin=["ann"], seed=3), shared("bump", 2), shared("add", 2, 3),
            fresh("game", stdin=[], seed=3), shared("nope"), shared("bump", 4)]
    with Sandbox(STATEFUL, "m.py", Limits(wall_s=2)) as one, Sandbox(STATEFUL, "m.py", Limits(wall_s=2)) as many:
        alone = [one.run(r) for r in plan]
        batched = many.run_batch(plan)
    assert len(batched) == len(plan)
    assert [o.status for o in batched] == ["ok", "ok", "ok", "ok", "input_exhausted", "no_function", "ok"]
    assert [o.value for o in batched[:4]] == [1, ["ann", alone[1].value[1], 100], 3, 5]
    for a, b in zip(alone, batched):
        assert same(a, b), (a, b)


def test_a_batch_stops_after_the_first_unclean_request_and_the_rest_run_alone():
    plan = [shared("add", 1, 2), dataclasses.replace(shared("spin"), timeout=0.3), shared("add", 3, 4)]
    with Sandbox(STATEFUL, "m.py", Limits(wall_s=2)) as box:
        out = box.run_batch(plan)
        assert [o.status for o in out] == ["ok", "timeout"]       # the third never ran in the batch
        assert box.run(plan[2]).value == 7                         # ...and runs alone as before


def test_leaving_the_plan_replays_the_shared_history():
    """The checks ask bump(1), then NOT the planned bump(2) but bump(10): the worker served bump(2)
    ahead, so it is replaced and bump(1) replayed; bump(10) sees COUNT == 1, as without a plan."""
    plan = [shared("bump", 1), shared("bump", 2), fresh("game", stdin=["x"], seed=1), shared("bump", 5)]
    student = Program(STATEFUL, "m.py", limits=Limits(wall_s=2))
    plain = Program(STATEFUL, "m.py", limits=Limits(wall_s=2))
    try:
        student.prefetch(plan)
        asked = [shared("bump", 1), shared("bump", 10), fresh("game", stdin=["x"], seed=1), shared("bump", 5)]
        got = [student.run(r) for r in asked]
        want = [plain.run(r) for r in asked]
        assert [o.value for o in got] == [1, 11, ["x", want[2].value[1], 100], 16]   # a fresh game: fresh module
        assert [o.value for o in got] == [o.value for o in want]
        assert student.diverged
        assert student.round_trips < plain.round_trips
    finally:
        student.close()
        plain.close()


def test_a_plan_followed_exactly_is_one_round_trip():
    plan = [shared("bump", 1), fresh("game", stdin=["x"], seed=1), shared("bump", 2), shared("add", 1, 1)]
    student = Program(STATEFUL, "m.py", limits=Limits(wall_s=2))
    try:
        student.prefetch(plan)
        values = [student.run(r).value for r in plan]
        assert values[0] == 1 and values[2] == 3 and values[3] == 2
        assert student.round_trips == 1 and not student.diverged
    finally:
        student.close()


def test_the_budget_skips_requests_once_finished_ones_used_it():
    student = Program(STATEFUL, "m.py", limits=Limits(wall_s=2, budget_s=0.5))
    try:
        spin = student.run(dataclasses.replace(shared("spin"), timeout=0.3))
        assert spin.status == "timeout" and student.spent == 0.0      # running out of time is not charged
        first = student.run(shared("slow", 0.3))
        assert first.status == "ok" and student.spent >= 0.3
        second = student.run(shared("slow", 0.3))       # stopped at what is left of the budget: charged
        assert second.status == "timeout" and student.spent >= 0.5
        third = student.run(shared("add", 1, 2))
        assert third.status == "timeout" and "used up the grading time" in third.message
    finally:
        student.close()


def test_the_cache_key_changes_with_the_reference_and_limits(tmp_path):
    ref = tmp_path / "ref.py"
    ref.write_text("def f():\n    return 1\n")
    suites = tmp_path / "suites"
    suites.mkdir()
    (suites / "test_a.py").write_text("def test_a():\n    pass\n")
    key = refcache.fingerprint(ref, [suites], Limits())
    assert key == refcache.fingerprint(ref, [suites], Limits())
    (suites / "test_a.py").write_text("def test_a():\n    assert 1\n")
    changed_suite = refcache.fingerprint(ref, [suites], Limits())
    ref.write_text("def f():\n    return 2\n")
    changed_ref = refcache.fingerprint(ref, [suites], Limits())
    changed_limits = refcache.fingerprint(ref, [suites], Limits(wall_s=1))
    assert len({key, changed_suite, changed_ref, changed_limits}) == 4


def test_the_cache_file_round_trips(tmp_path):
    with Sandbox(STATEFUL, "m.py", Limits(wall_s=2)) as box:
        outcome = box.run(fresh("game", stdin=["bo"], seed=2))
    plan = {"suite.py::test_x": [fresh("game", stdin=["bo"], seed=2)]}
    path = refcache.save(tmp_path, "demo", "k1", {"key": outcome}, plan)
    outcomes, plan_back = refcache.load(path)
    assert same(outcomes["key"], outcome) and plan_back == plan
    assert refcache.find(tmp_path / "nowhere", "demo", "k2") is None
    path.write_text(json.dumps({"format": refcache.FORMAT, "reference": {"k": {"bogus": 1}}, "plan": {}}))
    assert refcache.load(path) is None                         # a damaged file is ignored, not trusted


@pytest.mark.parametrize("name", ["bob.py", "dave.py"])
def test_a_grade_with_the_plan_equals_a_grade_without(name, monkeypatch):
    """The sample students graded with the cached plan and without it: same statuses and feedback."""
    from autograder.grading import grade as grade_module
    from autograder.grading.grade import grade

    path = str(Path(__file__).resolve().parents[1] / "samples" / "class" / name)
    with_plan = grade(path)
    monkeypatch.setattr(grade_module, "reference_outcomes", lambda *args, **kwargs: None)
    without = grade(path)
    assert [(t.test_id, t.status, t.score, t.output) for t in with_plan.tests] == \
        [(t.test_id, t.status, t.score, t.output) for t in without.tests]


def test_the_collector_grades_with_a_larger_young_generation_and_gets_its_settings_back(monkeypatch):
    """guards.frozen: while a session grades, its setup is frozen and the youngest generation is
    collected every GRADING_GC_YOUNG allocations; afterwards the collector is as it was."""
    import gc

    from autograder.engine import guards, plugin
    from autograder.grading.grade import grade

    seen = []
    original = plugin.GradingPlugin._grade_each

    def spy(self, *args):
        seen.append((gc.get_threshold(), gc.get_freeze_count() > 0))
        return original(self, *args)

    monkeypatch.setattr(plugin.GradingPlugin, "_grade_each", spy)
    gc.unfreeze()           # (another test's in-process grade-all or charts may have frozen its objects)
    before = gc.get_threshold()
    report = grade(str(Path(__file__).resolve().parents[1] / "solution" / "yahtzee.py"))
    assert report.score == report.max_score
    # (one session grades the submission; a first run after the grader changed grades the
    # reference in a session of its own first, to fill the reference cache: the same settings)
    assert seen and set(seen) == {((max(before[0], guards.GRADING_GC_YOUNG), *before[1:]), True)}
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0


def test_every_check_of_the_kit_runs_light(monkeypatch):
    """A marker or fixture the light runner does not know sends a check through pytest's protocol
    (slower): the kit's own suites must not need it."""
    from autograder.engine import plugin
    from autograder.grading.grade import grade

    seen: dict[str, bool] = {}
    original = plugin.GradingPlugin._light_ok

    def spy(self, item):
        seen[item.nodeid] = original(self, item)
        return seen[item.nodeid]

    monkeypatch.setattr(plugin.GradingPlugin, "_light_ok", spy)
    for assignment in ("yahtzee", "pytzee", "swe3006", "cs21", "yatzy"):     # swe3006: record_property
        spec_solution = Path(__file__).resolve().parents[1] / "solution" / f"{assignment}.py"
        report = grade(str(spec_solution), assignment)
        assert report.score == report.max_score
    assert seen and all(seen.values()), [k for k, ok in seen.items() if not ok][:5]


def test_checks_through_pytest_between_light_ones_are_set_up_and_torn_down(monkeypatch):
    """Every check of stage 2 through pytest's protocol, the others light, in one session of two
    submissions: the same results as all light, and no grader error."""
    from autograder.engine import plugin
    from autograder.grading.grade import grade_stream

    reference = str(Path(__file__).resolve().parents[1] / "solution" / "yahtzee.py")
    bob = str(Path(__file__).resolve().parents[1] / "samples" / "class" / "bob.py")
    light: list = []
    grade_stream(iter([reference, bob]), light.append)
    original = plugin.GradingPlugin._light_ok
    monkeypatch.setattr(plugin.GradingPlugin, "_light_ok",
                        lambda self, item: original(self, item) and "stage2" not in item.nodeid)
    mixed: list = []
    grade_stream(iter([reference, bob]), mixed.append)
    for a, b in zip(light, mixed):
        assert [(t.test_id, t.status, t.score, t.output) for t in a.tests] == \
            [(t.test_id, t.status, t.score, t.output) for t in b.tests]
        assert not [t for t in b.tests if t.status == "error"]


@pytest.mark.serial      # a wall-clock or CPU bound: alone in make test
def test_a_check_hanging_in_the_grader_is_stopped_by_the_backstop():
    """The light runner's backstop (as pytest-timeout's signal method, guards.with_backstop): a
    check that hangs grader-side is stopped at its limit, the timer is disarmed after every check,
    and the session's end gives SIGALRM its old handler back.  (This test's own pytest-timeout
    timer is paused meanwhile: an outer timer would make the backstop stand aside.)"""
    import signal
    import time

    from autograder.engine import guards

    def hang(seconds):
        time.sleep(seconds)

    def answer(**kwargs):
        return sorted(kwargs)

    outer, handler = signal.setitimer(signal.ITIMER_REAL, 0), signal.getsignal(signal.SIGALRM)
    try:
        started = time.monotonic()
        with guards.backstop_handler():
            assert guards.with_backstop(answer, {"b": 1, "a": 2}, 5.0) == ["a", "b"]
            assert signal.getitimer(signal.ITIMER_REAL)[0] == 0
            with pytest.raises(pytest.fail.Exception, match=r"Timeout \(>0.3s\) from the grader's backstop"):
                guards.with_backstop(hang, {"seconds": 30}, 0.3)
            assert signal.getitimer(signal.ITIMER_REAL)[0] == 0
        assert time.monotonic() - started < 10
        assert signal.getsignal(signal.SIGALRM) is handler
    finally:
        signal.signal(signal.SIGALRM, handler)
        if outer[0] > 0:
            signal.setitimer(signal.ITIMER_REAL, *outer)


def test_one_backstop_timer_for_a_submissions_checks_stops_the_one_that_hangs():
    """guards.watch: one timer for a submission's checks.  Between checks (none running) it only
    sets itself again; a check that runs past the limit is stopped with the backstop's message;
    pause() disarms it around a check pytest runs and gives SIGALRM its handler back; at the end
    the timer is off and backstop_handler restores the old handler."""
    import signal
    import time

    from autograder.engine import guards

    outer, handler = signal.setitimer(signal.ITIMER_REAL, 0), signal.getsignal(signal.SIGALRM)
    try:
        with guards.backstop_handler():
            with guards.watch(0.2):
                time.sleep(0.5)                 # no check running: the timer fires, nothing fails
                assert signal.getitimer(signal.ITIMER_REAL)[0] > 0
                guards._RUNNING[0] = time.perf_counter()
                with pytest.raises(pytest.fail.Exception, match=r"Timeout \(>0.2s\) from the grader's backstop"):
                    time.sleep(5)
                guards._RUNNING[0] = None
                with guards.pause():
                    assert signal.getitimer(signal.ITIMER_REAL)[0] == 0
                    signal.signal(signal.SIGALRM, signal.SIG_DFL)      # (as pytest-timeout leaves it)
                assert signal.getitimer(signal.ITIMER_REAL)[0] > 0
                assert signal.getsignal(signal.SIGALRM) is guards._on_backstop
            assert signal.getitimer(signal.ITIMER_REAL)[0] == 0 and guards._RUNNING[0] is None
        assert signal.getsignal(signal.SIGALRM) is handler
    finally:
        signal.signal(signal.SIGALRM, handler)
        if outer[0] > 0:
            signal.setitimer(signal.ITIMER_REAL, *outer)


@pytest.mark.serial      # a wall-clock or CPU bound: alone in make test
def test_the_backstop_counts_the_graders_own_time_not_a_sandboxs():
    """The backstop stops grader-side hangs only: the time a check waits on a sandbox (bounded by the
    request's own limits) is not counted, so a busy machine that slows the sandbox cannot make the
    backstop stop the check (pass 21: a stage-5 contest under load ~18 ran past its 120 s and the
    grade moved).  A request of 1.2 s under a 0.4 s backstop passes, and its wait moves the check's
    start on; grader-side time past the limit still fails the check (it fails if Sandbox.run does
    not tell guards of its wait)."""
    import signal
    import time

    from autograder.engine import guards

    box = Sandbox("import time\ndef nap(s):\n    time.sleep(s)\n    return s\n", "yahtzee.py",
                  limits=Limits(wall_s=10))
    outer, handler = signal.setitimer(signal.ITIMER_REAL, 0), signal.getsignal(signal.SIGALRM)
    try:
        assert box.run(Request("call", "nap", [0])).status == "ok"       # (started before the watch)
        with guards.backstop_handler(), guards.watch(0.4):
            guards._RUNNING[0] = begun = time.perf_counter()
            outcome = box.run(Request("call", "nap", [1.2]))
            assert (outcome.status, outcome.value) == ("ok", 1.2)
            assert guards._RUNNING[0] - begun >= 1.2 and guards._WAITING[0] is None
            outcome = box.run_batch([Request("call", "nap", [0.6]), Request("call", "nap", [0.6])])
            assert [o.status for o in outcome] == ["ok", "ok"]
            with pytest.raises(pytest.fail.Exception, match=r"Timeout \(>0.4s\) from the grader's backstop"):
                time.sleep(5)                   # the grader's own time: stopped at the limit
            guards._RUNNING[0] = None
    finally:
        box.close()
        signal.signal(signal.SIGALRM, handler)
        if outer[0] > 0:
            signal.setitimer(signal.ITIMER_REAL, *outer)


@pytest.mark.serial      # a wall-clock or CPU bound: alone in make test
def test_a_light_check_hanging_grader_side_is_stopped_and_the_others_run(monkeypatch):
    """Through the plugin: one check of a grade hangs in the grader (its test function sleeps); the
    submission's one backstop timer stops it at the limit as "took too long", and every other
    check of the grade runs as usual.  (This test's own pytest-timeout timer is paused meanwhile.)"""
    import dataclasses
    import signal
    import time

    from autograder.engine import plugin
    from autograder.grading.grade import grade

    solution = str(Path(__file__).resolve().parents[1] / "solution" / "yahtzee.py")
    grade(solution)             # (the reference cache made first, by checks that do not hang)
    original = plugin._light_call
    hung: list[str] = []

    def light_call(item):
        call = original(item)
        if hung or "test_stage1_scoring" not in item.nodeid:
            return call
        hung.append(item.nodeid)
        return dataclasses.replace(call, function=lambda **kwargs: time.sleep(30))

    monkeypatch.setattr(plugin, "_light_call", light_call)
    monkeypatch.setattr(plugin, "_has_ini", lambda session, name: False)
    monkeypatch.setattr(plugin, "BACKSTOP_S", 0.5)
    outer = signal.setitimer(signal.ITIMER_REAL, 0)
    try:
        started = time.monotonic()
        report = grade(solution)
        assert time.monotonic() - started < 25
        assert signal.getitimer(signal.ITIMER_REAL)[0] == 0
    finally:
        if outer[0] > 0:
            signal.setitimer(signal.ITIMER_REAL, *outer)
    stopped = [t for t in report.tests if t.test_id == hung[0]]
    assert stopped and stopped[0].status == "failed" and "took too long" in stopped[0].output
    assert all(t.status == "passed" for t in report.tests if t.test_id != hung[0])


@pytest.mark.parametrize("versions", ["ctypes", "none"])
def test_the_load_probe_and_the_plan_share_one_request_process(monkeypatch, versions):
    """Program.load_early: the load probe is a fresh request where the sandbox has a fresh runner, so
    the runner that loaded the file serves the plan's fresh requests and then becomes the shared
    worker: one request process for the life (the pid each request ran in: printed at import, which
    every request that imports reports, and returned by a call).  Its shared calls see what a
    worker forked for them would (the module imported once, no call before), as load_early with
    the probe as a shared call gave them.  Without a fresh runner (VERSIONS none: no dict versions)
    the probe stays a shared call, whose worker serves the plan's shared calls."""
    monkeypatch.setenv("AUTOGRADER_DICT_VERSIONS", versions)
    source = "import os\nprint(os.getpid())\n" + STATEFUL + "\ndef pid():\n    return os.getpid()\n"
    plan = [fresh("pid"), fresh("game", stdin=["ann"], seed=3), shared("bump", 1), shared("pid"), shared("bump", 2)]
    student = Program(source, "m.py", limits=Limits(wall_s=2))
    try:
        student.load_early(lambda: plan)
        probe, ran = student.loaded_early
        got = [student.run(r) for r in plan]
        assert ran == len(plan) and student.round_trips == 2 and not student.diverged
        assert probe.status == "no_function" and [o.status for o in got] == ["ok"] * 5
        assert [got[2].value, got[4].value] == [1, 3] and got[1].value[::2] == ["ann", 100]
        pids = {probe.import_stdout.strip(), *(str(got[i].value) for i in (0, 3)),
                *(o.import_stdout.strip() for o in got)}
        assert bool(student._sandbox.applied.get("fresh_runner")) == (versions != "none")
        if versions != "none":
            assert len(pids) == 1, pids
        else:       # one fork per fresh request; the probe's shared worker serves the shared calls
            assert probe.import_stdout == got[3].import_stdout == f"{got[3].value}\n"
            assert len(pids) == 3, pids
    finally:
        student.close()
