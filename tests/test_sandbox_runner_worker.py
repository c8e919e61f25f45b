"""One request process per life: a batch's fresh requests are sent first, and the fresh runner
that served them, still clean, becomes the shared worker (Sandbox._fresh_first, harness
Zygote.runner_as_worker) instead of a fork of its own.

What a fresh request leaves behind must not reach a later shared call beyond what it reaches
today: a change the clean-state check sees retires the runner (the shared call gets a new fork,
as before), the private tmp folders are emptied after every fresh request, and the outcomes come
back in the plan's order.  Positive controls: the same notes planted by a shared call ARE seen
by the next one (the probe can see each of them), and a clean runner IS the worker afterwards.
One sandbox for the whole file (a handful of batches: cheap).
"""

from __future__ import annotations

import pytest
from test_sandbox import ISO

from autograder.engine.sandbox import Limits, Request, Sandbox

pytestmark = pytest.mark.skipif(not (ISO["uid_drop"] and ISO["pid_namespace"]),
                                reason="the fresh runner needs a pid namespace of its own (root)")

PROBE = '''
import builtins, json, os, signal, sys, time, types

KINDS = ("builtins", "module_attr", "environ", "sys_modules", "sys_path", "tmp_file", "dev_shm_file",
         "signal", "umask", "thread")


def plant(kind):
    if kind == "builtins":
        builtins.NOTE = 1
    elif kind == "module_attr":
        json.NOTE = 1
    elif kind == "environ":
        os.environ["NOTE"] = "1"
    elif kind == "sys_modules":
        sys.modules["note"] = types.ModuleType("note")
    elif kind == "sys_path":
        sys.path.append("/note")
    elif kind == "tmp_file":
        open("/tmp/note", "w").close()
    elif kind == "dev_shm_file":
        open("/dev/shm/note", "w").close()
    elif kind == "signal":
        signal.signal(signal.SIGUSR1, lambda *a: None)
    elif kind == "umask":
        os.umask(0o000)
    elif kind == "thread":
        import threading        # (a new import alone retires the runner: only where it is planted)
        threading.Thread(target=time.sleep, args=(30,), daemon=True).start()
    return os.getpid()


def look():
    seen = []
    if hasattr(builtins, "NOTE"):
        seen.append("builtins")
    if hasattr(json, "NOTE"):
        seen.append("module_attr")
    if "NOTE" in os.environ:
        seen.append("environ")
    if "note" in sys.modules:
        seen.append("sys_modules")
    if "/note" in sys.path:
        seen.append("sys_path")
    if os.path.exists("/tmp/note"):
        seen.append("tmp_file")
    if os.path.exists("/dev/shm/note"):
        seen.append("dev_shm_file")
    if signal.getsignal(signal.SIGUSR1) is not signal.SIG_DFL:
        seen.append("signal")
    mask = os.umask(0o077)
    os.umask(mask)
    if mask == 0:
        seen.append("umask")
    if "threading" in sys.modules and sys.modules["threading"].active_count() > 1:
        seen.append("thread")
    return [os.getpid(), seen]


def plant_look(kind):
    plant(kind)
    return look()


def pid():
    return os.getpid()


def spin():
    while True:
        time.sleep(0)


def plant_harness():
    input.__globals__["NOTE"] = 1      # the harness's own names (reading __globals__ is not audited)
    return os.getpid()


class Late:
    def __del__(self):
        sys.modules["late_note"] = types.ModuleType("late_note")


def plant_late():
    late = Late()
    late.me = late      # garbage in a cycle: its __del__ runs once a collection finds it, after this code
    return os.getpid()


ORIGINAL = {}


def record():
    import random
    ORIGINAL.update(input=builtins.input, stdout=sys.stdout, randint=random.randint, exit=os._exit,
                    argv=list(sys.argv))
    return os.getpid()


def tamper():
    """Replace what the harness installs before every request (in the shared worker: kept)."""
    import random
    builtins.input = lambda prompt="": "tampered"
    sys.stdout = open(os.devnull, "w")
    random.randint = lambda a, b: 7
    os._exit = lambda code: None
    sys.argv.append("tampered")         # (the list's items: no write to the sys module)
    return os.getpid()


def untampered():
    import random
    print("captured")
    return [os.getpid(), {"input": builtins.input is ORIGINAL["input"], "stdout": sys.stdout is ORIGINAL["stdout"],
                          "randint": random.randint is ORIGINAL["randint"], "exit": os._exit is ORIGINAL["exit"],
                          "argv": sys.argv == ORIGINAL["argv"]}]


def heap():
    import gc
    gc.get_objects()    # (audited: the heap walked, which a clean-state check cannot compare)
    return os.getpid()


def look_more():
    import gc
    gc.collect()        # (in the shared worker: what a collection would find)
    notes = {"harness": "NOTE" in input.__globals__, "late": "late_note" in sys.modules}
    return [os.getpid(), [name for name, seen in notes.items() if seen]]
'''

KINDS = ("builtins", "module_attr", "environ", "sys_modules", "sys_path", "tmp_file", "dev_shm_file",
         "signal", "umask", "thread")


def fresh(func, *args):
    return Request("call", func, list(args), fresh=True)


def shared(func, *args):
    return Request("call", func, list(args), fresh=False)


@pytest.fixture(scope="module")
def box():
    with Sandbox(PROBE, "yahtzee.py", Limits(wall_s=0.3)) as sandbox:
        yield sandbox


def values(outcomes):
    assert all(o.status == "ok" for o in outcomes), [(o.status, o.error) for o in outcomes]
    return [o.value for o in outcomes]


def test_a_clean_runner_becomes_the_shared_worker_and_outcomes_keep_the_plans_order(box):
    """[shared, fresh, fresh, shared]: the fresh requests run first, in one runner, which then
    serves both shared calls; each outcome comes back at its own place in the plan."""
    out = values(box.run_batch([shared("look"), fresh("pid"), fresh("pid"), shared("look")], reset_worker=True))
    assert box.applied["fresh_runner"]
    first, runner, again, second = out
    assert runner == again == first[0] == second[0]       # one request process for all four
    assert first[1] == second[1] == []


@pytest.mark.parametrize("kind", KINDS)
def test_a_note_a_fresh_request_leaves_never_reaches_the_shared_worker(box, kind):
    """A fresh request plants a note the clean-state check sees (or that the zygote removes: the
    private tmp folders); the shared calls planned before and after it, which now run after it,
    see none: the runner retired (a new worker was forked) or the note was removed."""
    out = values(box.run_batch([shared("look"), fresh("plant", kind), shared("look")], reset_worker=True))
    before, planted_in, after = out
    assert before[1] == [] and after[1] == []
    if kind in ("tmp_file", "dev_shm_file"):       # cleaned by the zygote: the runner stays clean
        assert before[0] == planted_in
    else:                                          # seen by the check: the runner retired
        assert before[0] != planted_in


@pytest.mark.parametrize("kind", KINDS)
def test_control_the_same_note_left_by_a_shared_call_is_seen_by_the_next(box, kind):
    """The positive control: each note, planted by a shared call, is there for the next shared call
    in the same worker (so the probe would see it had it reached the worker); a thread, which
    makes the worker itself be replaced, is seen by the call that starts it."""
    if kind == "thread":
        (_, seen), = values([box.run(shared("plant_look", kind))])
        assert kind in seen
        return
    planted_in, (looked_in, seen) = values(box.run_batch([shared("plant", kind), shared("look")], reset_worker=True))
    assert planted_in == looked_in and kind in seen


def test_a_dirty_fresh_request_is_the_last_its_runner_serves(box):
    """The runner is the worker only while it is clean: after a fresh request the check refuses,
    the next fresh request gets a new runner, and that one (clean) becomes the worker; with the
    dirty request last, the shared call gets a fork of its own, as before."""
    out = values(box.run_batch([fresh("pid"), fresh("plant", "builtins"), shared("look"), fresh("pid")],
                               reset_worker=True))
    runner, dirty, (worker, seen), later = out
    assert runner == dirty and seen == [] and worker == later != runner
    out = values(box.run_batch([fresh("pid"), shared("look"), fresh("plant", "builtins")], reset_worker=True))
    runner, (worker, seen), dirty = out
    assert runner == dirty and seen == [] and worker != runner


def test_a_batch_that_stops_at_a_fresh_request_still_runs_the_shared_calls_planned_before_it(box):
    """A fresh request that ends the batch (a timeout) after it ran first: the shared calls the plan
    put before it run all the same (as in the plan's order), the requests after it do not."""
    out = box.run_batch([shared("look"), fresh("pid"), shared("look"), fresh("spin"), shared("look"), fresh("pid")],
                        reset_worker=True)
    assert [o.status for o in out] == ["ok", "ok", "ok", "timeout"]
    assert out[0].value[1] == out[2].value[1] == []


def test_a_program_that_used_half_its_budget_keeps_the_plans_order():
    """A batch that could reach the submission's time budget stops where the plan's order would
    stop it: with less than half the budget left, nothing is sent ahead (two request processes)."""
    plan = [shared("pid"), fresh("pid"), shared("pid")]
    with Sandbox(PROBE, "yahtzee.py", Limits(wall_s=2, budget_s=10)) as sandbox:
        kept = values(sandbox.run_batch(plan, reset_worker=True, budget=4.0))
        ahead = values(sandbox.run_batch(plan, reset_worker=True, budget=6.0))
    assert kept[0] == kept[2] != kept[1]
    assert ahead[0] == ahead[1] == ahead[2]


@pytest.mark.parametrize("kind", ["harness", "late"])
def test_a_write_to_the_harness_names_or_sys_modules_after_the_code_ended_retires_the_runner(box, kind):
    """The runner's guard on sys.modules and the harness's names (clean.Untouched: their version
    tags read around each write of the harness's own, instead of comparing them entry by entry):
    a fresh request writes a name of the harness's (through a patched function's globals), or
    leaves garbage whose finalizer writes sys.modules when the clean-state check collects it (after
    the request's code ended: the old check had compared sys.modules before it collected, and let
    the note through); the next fresh request runs in a new runner and sees neither."""
    plant = "plant_harness" if kind == "harness" else "plant_late"
    (planted_in, (looked_in, seen)) = values(box.run_batch([fresh(plant), fresh("look_more")], reset_worker=True))
    assert seen == [] and looked_in != planted_in


@pytest.mark.parametrize("kind", ["harness", "late"])
def test_control_the_same_writes_in_the_shared_worker_are_seen_by_the_next_call(box, kind):
    """The positive control: in the shared worker (no check), the next call sees each write, so the
    probe would see it had it reached a later fresh request; and two clean fresh requests share
    their runner (the guard does not retire an honest one)."""
    plant = "plant_harness" if kind == "harness" else "plant_late"
    planted_in, (looked_in, seen) = values(box.run_batch([shared(plant), shared("look_more")], reset_worker=True))
    assert planted_in == looked_in and seen == [kind]
    first, (again, seen) = values(box.run_batch([fresh("pid"), fresh("look_more")], reset_worker=True))
    assert first == again and seen == []


def test_the_patches_are_back_for_the_next_shared_call_after_a_student_replaced_them(box):
    """The shared worker writes the harness's patches again only when a module they are in was
    written since (worker._patch_tags): a call that replaces input, stdout, randint, os._exit and
    appends to sys.argv leaves the next call in the same worker with every one of them back,
    its print captured.  (The control: an untouched worker's next call finds them too.)"""
    out = box.run_batch([shared("record"), shared("untampered"), shared("tamper"), shared("untampered")],
                        reset_worker=True)
    assert [o.status for o in out] == ["ok"] * 4
    first, (control_in, control), tampered_in, (looked_in, seen) = [o.value for o in out]
    assert first == control_in == tampered_in == looked_in          # one worker for all four
    assert all(control.values()) and all(seen.values()), (control, seen)
    assert out[1].stdout == out[3].stdout == "captured\n"


# -- the shared worker made the fresh runner again (public first: Zygote.worker_as_runner) --------
# A batch with public and hidden requests (run_batch's PUBLIC) runs public fresh, public shared,
# hidden shared, hidden fresh: the worker serves on with its history, then (clean, its module
# dropped) serves the hidden fresh requests.


def test_a_clean_worker_is_made_the_runner_for_the_fresh_requests_after_its_calls(box):
    """The positive control: [public fresh, public shared | hidden fresh, hidden shared] runs in one
    request process (the hidden shared call before the hidden fresh one, with the public call's
    history), every outcome at its place in the plan; the next shared call imports the module
    again (a new worker generation: what the grader's history follows)."""
    out = box.run_batch([fresh("pid"), shared("plant", "builtins"), fresh("look"), shared("look")],
                        reset_worker=True, public=2)
    assert [o.status for o in out] == ["ok"] * 4
    runner, planted_in, (fresh_in, fresh_seen), (shared_in, shared_seen) = [o.value for o in out]
    assert runner == planted_in == shared_in and shared_seen == ["builtins"]     # its history kept
    assert fresh_seen == [] and fresh_in != planted_in      # the note: the check refused that worker
    out = box.run_batch([fresh("pid"), shared("pid"), fresh("look"), shared("look")], reset_worker=True, public=2)
    runner, worker, (fresh_in, fresh_seen), (shared_in, shared_seen) = values(out)
    assert runner == worker == fresh_in == shared_in and fresh_seen == shared_seen == []
    assert out[3].worker == out[1].worker == (out[1].worker[0],) * 2     # one worker generation...
    assert out[2].worker[1] == out[1].worker[0] + 1     # ...ended by the fresh request run after them


@pytest.mark.parametrize("kind", KINDS)
def test_a_note_a_shared_call_leaves_never_reaches_a_fresh_request_of_the_worker_made_runner(box, kind):
    """A public shared call plants a note; the hidden fresh request after it runs in the worker made
    the runner only when the check passes: a note the check sees (or a thread: the worker itself
    ends) sends it to a fork of its own, and it sees nothing.  Files (the private tmp) are the
    life's, not the process's: a fork of the zygote would see them too (they are emptied after a
    fresh request), and the worker, clean otherwise, serves it."""
    out = values(box.run_batch([shared("plant", kind), fresh("look")], reset_worker=True, public=1))
    if kind == "thread":        # (the replaced worker stopped the batch: the caller runs the rest)
        out += values([box.run(fresh("look"))])
    planted_in, (looked_in, seen) = out
    if kind in ("tmp_file", "dev_shm_file"):
        assert looked_in == planted_in and seen == [kind]
    else:
        assert looked_in != planted_in and seen == []


@pytest.mark.parametrize("kind", ["harness", "late", "heap"])
def test_a_worker_whose_call_wrote_behind_the_check_or_walked_the_heap_is_not_made_the_runner(box, kind):
    """A shared call writes a name of the harness's, or leaves garbage whose finalizer writes
    sys.modules when the check collects it (after the worker's module was dropped), or walks the
    heap (the audit hook's dirty: nothing the check could compare): the fresh request after it runs
    in a fork of its own and sees nothing.  (Their controls: the writes are seen by the next shared
    call, test_control_the_same_writes_in_the_shared_worker_are_seen_by_the_next_call.)"""
    plant = {"harness": "plant_harness", "late": "plant_late", "heap": "heap"}[kind]
    planted_in, (looked_in, seen) = values(box.run_batch([shared(plant), fresh("look_more")],
                                                         reset_worker=True, public=1))
    assert seen == [] and looked_in != planted_in


def test_the_worker_of_a_try_is_the_runner_of_the_fresh_requests_after_it():
    """A try (an aside batch: Zygote.end_aside) ends its worker's calls; that worker, clean, serves
    the next fresh request (its module dropped, the check passed), and a dirty one does not."""
    with Sandbox(PROBE, "yahtzee.py", Limits(wall_s=0.3)) as sandbox:
        runner, = values(sandbox.run_batch([fresh("pid")]))
        tried = values(sandbox.run_batch([shared("pid"), shared("look")], aside=True))
        assert sandbox.aside_end == "clean" and tried[0] == tried[1][0] == runner and tried[1][1] == []
        after, = values(sandbox.run_batch([fresh("pid")]))
        assert after == runner
    with Sandbox(PROBE, "yahtzee.py", Limits(wall_s=0.3)) as sandbox:
        runner, = values(sandbox.run_batch([fresh("pid")]))
        planted_in, = values(sandbox.run_batch([shared("plant", "builtins")], aside=True))
        (looked_in, seen), = values(sandbox.run_batch([fresh("look")]))
        assert planted_in == runner != looked_in and seen == []
