"""Every sandbox test of test_sandbox.py, test_sandbox_limits.py and test_sandbox_processes.py (and the
fresh runner's reuse test of test_sandbox_shared_process.py: its zygote adopts the template's clean-state
snapshot here) again, with each sandbox forked by a student root (roots.Family / StudentRoot, what
grading uses for a student's own sandbox and its substitution variants) instead of the template: the
root builds the read-only minimal root and compiles the source once per student and forks each life
as the pid 1 of a new pid namespace; each life still makes its own mount and ipc namespaces, private
folders, uid, cgroup, rlimits and seccomp (and shares the root's empty net namespace when the filter
refuses sockets), so every isolation and outcome test must hold unchanged. Plus what is the family's
own: its lives share nothing another life could write or read (tests/test_hostile_round2.py
`notes_between_sandboxes` grades the same as an attack).
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest
from test_sandbox import *  # noqa: F403  (the same tests, collected again with student roots)
from test_sandbox import ISO, call
from test_sandbox_limits import *  # noqa: F403
from test_sandbox_processes import *  # noqa: F403
from test_sandbox_shared_process import test_fresh_requests_share_a_process_only_while_it_stays_clean  # noqa: F401

from autograder.engine import launch, roots, seccomp
from autograder.engine.isolation import uid_processes
from autograder.engine.sandbox import Request, Sandbox, template_scope

needs_root = pytest.mark.skipif(not (ISO["uid_drop"] and ISO["pid_namespace"]),
                                reason="student roots serve root graders with a pid namespace only")

SPAWN_TOO = {"test_unprivileged_grader_degrades_to_limits_and_a_temp_folder"}     # not root: no root


@pytest.fixture(autouse=True)
def _in_a_family(request):
    started: list[Sandbox] = []
    families: dict[tuple[str, ...], roots.Family] = {}
    original = Sandbox._start

    def joining(self):
        started.append(self)
        key = tuple(self.hidden_paths)
        self.family = families.setdefault(key, roots.Family(self.hidden_paths))
        return original(self)

    Sandbox._start = joining
    try:
        with template_scope():
            yield
    finally:
        Sandbox._start = original
        for family in families.values():
            family.close()
    if ISO["uid_drop"] and ISO["pid_namespace"] and request.node.name not in SPAWN_TOO:
        for box in started:
            assert box.applied.get("started") in ("student_root", None), box.applied


# What a life shares with its student root: with a filter that refuses sockets, its net namespace too.
SHARED = ["uts", "readonly_root", "session"] + (["net"] if seccomp.refuses_sockets() else [])
NOTES = (Path(__file__).resolve().parent / "corpus" / "round2" / "notes_between_sandboxes.py").read_text()
PROBES = NOTES + '''

def found():
    return sorted(_FOUND)


def me():
    return [_ME, _os.getuid()]


def plant(name):
    """A note under another life's name, in this life: what a leak would look like."""
    _leave_notes(name)
    return len(_HELD)
'''


@needs_root
def test_the_lives_of_one_student_find_no_note_of_one_another(make):
    """A student's own sandbox and two substitution variants (each with another part of the
    reference), forked by one student root: none finds the others' notes in any channel (files
    in /tmp, /var/tmp, /dev/shm, an abstract unix socket, a POSIX message queue, processes of
    another uid), while a note planted inside one life under another name is found there (the
    probe works)."""
    own = make(PROBES)
    stage1 = make(PROBES, reference="def score_chance(dice):\n    return sum(dice)\n")
    stage2 = make(PROBES, reference="def reroll(dice, keep):\n    return dice\n")
    lives = (own, stage1, stage2)
    seen = []
    for box in lives:
        who = call(box, "me", fresh=False)
        assert who.status == "ok", who
        seen.append(who.value)
        assert call(box, "found", fresh=False).value == [], box.applied
        assert call(box, "found").value == []
    assert seen[0][0] == "own" and len({name for name, _ in seen}) == 3, seen
    assert len({uid for _, uid in seen}) == 3, "two lives of one student share a uid"
    assert all(box.applied["started"] == "student_root" for box in lives)
    # the first life compiled the source for the root, the later ones got it from there
    assert [box.applied["compiled"] for box in lives] == ["first_life", "student_root", "student_root"]
    assert all(box.applied["student_root"] == SHARED for box in lives)
    # The probe works: in one life, a note under another life's name is found at once.  Where the
    # filter refuses sockets (the lives share their root's net namespace) no abstract unix socket
    # can be made at all, the plant's no more than the life's own (test_sandbox_network.py).
    sockets = not seccomp.refuses_sockets()
    assert call(stage1, "plant", "intruder", fresh=False).value == (2 if sockets else 0)  # its own socket and the plant
    planted = call(stage1, "found").value
    assert {"/tmp/note-intruder", "/var/tmp/note-intruder", "/dev/shm/note-intruder",
            "mq:intruder"} | ({"@note-intruder"} if sockets else set()) <= set(planted), planted
    for box in (own, stage2):                      # ...and nowhere else, fresh or in the worker
        assert call(box, "found").value == []
        assert call(box, "found", fresh=False).value == []


GROUP = """
import os
import signal

_HEARD = []


def listen():
    signal.signal(signal.SIGWINCH, lambda signum, frame: _HEARD.append(os.getpid()))
    return [os.getpgrp(), os.getsid(0), os.getpid()]


def shout():
    os.kill(0, signal.SIGWINCH)             # the process group (also -getpgrp(): getpgrp() is 0)
    os.killpg(os.getpgrp(), signal.SIGWINCH)
    return True


def heard():
    return len(_HEARD)
"""


@needs_root
def test_a_signal_to_the_process_group_stays_in_its_life(make):
    """The lives of one student are the pid 1 of their own pid namespace, forked by their root
    with no outer process, and stay in the root's session and process group: from inside,
    getpgrp() and getsid() are 0 (the root is outside their namespace), and a signal sent to the
    group reaches only processes of the sender's uid, i.e. of its own life (positive control)."""
    lives = [make(GROUP), make(GROUP, reference="def g():\n    return 1\n"),
             make(GROUP, reference="def h():\n    return 2\n")]
    for box in lives:
        assert call(box, "listen", fresh=False).value[:2] == [0, 0]
        assert box.applied["student_root"] == SHARED
    def heard():                      # (two signals of one kind may arrive as one)
        return [call(box, "heard", fresh=False).value > 0 for box in lives]

    assert call(lives[0], "shout").value is True          # a fresh request: its own life's worker hears it
    assert heard() == [True, False, False]
    assert call(lives[1], "shout", fresh=False).value is True        # a worker: itself
    assert heard() == [True, True, False]


def _memory_holds(pid: int, needle: bytes) -> bool:
    """Whether NEEDLE is anywhere in the readable memory of process PID (read as root)."""
    with open(f"/proc/{pid}/maps") as maps, open(f"/proc/{pid}/mem", "rb", buffering=0) as mem:
        for line in maps:
            span, perms = line.split()[:2]
            if not perms.startswith("r") or line.rstrip().endswith(("[vvar]", "[vsyscall]")):
                continue
            lo, hi = (int(x, 16) for x in span.split("-"))
            try:
                mem.seek(lo)
                if needle in mem.read(hi - lo):
                    return True
            except (OSError, OverflowError, ValueError):
                continue
    return False


@needs_root
def test_the_student_root_never_holds_the_reference_and_its_lives_outlive_it(make):
    """The root forks every life of a student, so what it holds every life holds: it gets the
    student's source (compiled by its first life), never the reference, which each variant gets on
    its own pipe.  A life does not die with its root; a root that died is replaced for the
    student's next lives."""
    marker = "reference_only_function_of_stage_two"
    own = make("def f():\n    return 1\n")
    variant = make("def f():\n    return 1\n",
                   reference=f"def {marker}():\n    return 'SECRET-{marker}'\n")
    assert call(own, "f").status == "ok"
    assert call(variant, "f", substitute={"names": [marker], "keep": ["f"]}).status == "ok"
    family = own.family
    assert family is variant.family and family.root is not None
    root_pid = family.root.handle.pid
    assert _memory_holds(root_pid, b"def f():"), "the probe cannot see the root's memory"
    assert not _memory_holds(root_pid, marker.encode()), "the student root holds the reference"
    os.kill(root_pid, signal.SIGKILL)
    family.root.handle.wait(timeout=5)
    assert call(own, "f", fresh=False).status == "ok"           # its lives go on without it
    late = make("def f():\n    return 1\n")
    assert call(late, "f").status == "ok"
    assert late.applied["started"] == "student_root" and family.root.handle.pid != root_pid



BURN = "import time\n\ndef burn(seconds):\n    end = time.process_time() + seconds\n    while time.process_time() < end:\n        pass\n    return True\n"


def _ppid(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def _reaped_cpu(pid: int) -> float:
    """CPU seconds of the children PID reaped (cutime + cstime in /proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.serial      # a wall-clock or CPU bound: alone in make test
@needs_root
def test_a_stopped_lifes_request_processes_keep_their_cpu_in_the_accounts(make):
    """A life's clean stop (Zygote.serve) reaps its request processes itself: the CPU time
    of a shared worker still alive at the stop reaches its root, then the process that reaps the
    root (the root template that forked it, roots.RootTemplate, whose own reaper is the
    template), as the bench and a row's CPU count it.  (Left to the kernel, which empties the pid
    namespace as its init exits, they would be autoreaped and their CPU time lost.)"""
    box = make(BURN)
    assert call(box, "burn", 0.4, fresh=False).value is True      # the shared worker lives on
    template = launch._templates[launch._python()]
    family = box.family
    reaper = _ppid(family.root.handle.pid)
    assert reaper in {template.popen.pid} | {r.handle.pid for r in template.roots.values() if r is not None}
    before = _reaped_cpu(reaper)
    box.close()                  # its zygote, pid 1 of its namespace, stops and exits
    family.close()               # then its root, which its reaper reaps
    deadline = time.monotonic() + 10
    while _reaped_cpu(reaper) - before < 0.35 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert _reaped_cpu(reaper) - before >= 0.35


@needs_root
def test_sandboxes_ended_together_each_leave_nothing_and_refuse_requests(make):
    """Program.close ends the input of all of a student's sandboxes first (Sandbox.end_input), so
    their zygotes stop and exit at once: each refuses requests from then on, and each close still
    returns only once nothing of its uid runs (its shared worker and fresh runner included)."""
    boxes = [make(BURN), make(BURN, reference="def score_chance(dice):\n    return sum(dice)\n")]
    for box in boxes:
        assert call(box, "burn", 0.0, fresh=False).value is True
        assert call(box, "burn", 0.0).value is True
    uids = [box.uid for box in boxes]
    for box in boxes:
        box.end_input()
    with pytest.raises(RuntimeError):
        call(boxes[0], "burn", 0.0)
    for box in boxes:
        box.close()
    assert [uid_processes(uid) for uid in uids] == [[], []]

ADOPT = r'''
import json, os, random, sys, types
from autograder.engine import harness

clean = types.ModuleType("harness")      # the harness, one namespace as in a sandbox
exec(compile(harness.source(), "<sandbox-harness>", "exec"), clean.__dict__)
sys.modules["__main__"] = clean          # (in a sandbox the harness's names are __main__'s)
name = "yahtzee.py"
patched = sys.argv[-1] == "patched"
sys.argv = [name]                        # (else each snapshot's patches make a list of their own)
if patched:                              # as the template: the patches installed for good
    clean.prepare_random()
    clean.install_patches(name)
root = clean.CleanState(name, patched=patched)   # the template's snapshot, before it forks a sandbox
# What a sandbox may change before its zygote adopts it: names rebound to new containers and
# objects, an object's attributes, a list in place, the random state, a restored cache, the
# harness's own names.
json.LATE_LIST = [1]
sys.modules["json"].LATE_OBJECT = types.SimpleNamespace(held={"a": 1})
random._inst.__dict__["late"] = {2}
clean.LATE_HARNESS = []
sys.path.append("/late")
random.seed(7)
import re; re.compile("late[0-9]+")
adopted = root.adopt(name)
fresh = clean.CleanState(name, patched=patched)  # what the zygote would take itself
def ids(objs):
    return {id(o) for o in objs}
def rebinds():                           # Zygote.bind_reference: our name and its copy, tag kept
    snapshot, marker = root.adopt(name, "ctypes"), object()     # (after "none" above)
    snapshot.rebind("_REFERENCE", marker)
    kept = (vars(clean)["_REFERENCE"] is marker and snapshot.harness["_REFERENCE"] is marker
            and snapshot.untouched().holds() and snapshot.harness == dict(vars(clean)))
    clean.LATE_WRITE = 1                 # our names written since the copy: the tag is unknown
    snapshot.rebind("_REFERENCE", None)
    return kept and snapshot.copied[1] is None and not snapshot.untouched().holds()
def reads_writes(snapshot):             # its dict versions move with a write to a watched dict
    before = snapshot.versions()
    json.__dict__["LATE_NAME"] = before[:1]
    return len(before) == len(snapshot.dicts) and snapshot.versions() != before
os.write(1, json.dumps({                 # (print: the patched sys.stdout is a request's)
    "dicts": ids(fresh.dicts) <= ids(adopted.dicts), "others": ids(fresh.others) <= ids(adopted.others),
    "late": ids([json.LATE_LIST, json.LATE_OBJECT.held, random._inst.__dict__["late"],
                 clean.LATE_HARNESS]) <= ids(adopted.others) | ids(adopted.dicts),
    "modules": adopted.modules == fresh.modules, "random": adopted.random == fresh.random,
    "harness": adopted.harness == fresh.harness == dict(vars(clean)),
    "copies": (adopted.check_copies() or adopted.ids.same(adopted.ids_base))     # (lists, sets: by identity)
              and any("/late" in items for group in getattr(adopted.ids, "extra", [adopted.ids_base])
                      for items in group),
    "restored": [dict(c) for c, _ in adopted.restored] == [c for _, c in adopted.restored]
                and len(adopted.restored) == len(fresh.restored),
    "new_module": (__import__("fractions") and root.adopt(name).modules == dict(sys.modules)),
    "other_name": root.adopt("other.py").filename == "other.py",
    "reader": reads_writes(adopted) and reads_writes(root.adopt(name, "testcapi"))
              and root.adopt(name, "none").versions is None,
    "rebind": rebinds(),
}).encode())
'''


@pytest.mark.parametrize("mode", ["zygote", "patched"])
def test_a_sandbox_adopts_the_templates_snapshot_as_if_it_took_its_own(mode):
    """The clean-state snapshot is walked once by the template; each sandbox's zygote adopts it
    (clean.CleanState.adopt): every object a snapshot the zygote took itself would watch is
    watched (what the sandbox bound after the template's walk too), and what is compared by value
    (modules, random state, the harness's names, lists and sets, restored caches) is the
    sandbox's own.  A module imported since makes it walk everything again.  PATCHED: as the
    template does it, with the patches every request installs installed for good.  A name the
    zygote binds after the adopt (rebind) keeps a runner's guard known, unless anything else
    wrote the harness's names since the copy."""
    pytest.importorskip("_testcapi", reason="the snapshot exists only with dict versions")
    import json
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", ADOPT, mode], capture_output=True, text=True, timeout=60,
                          cwd=Path(__file__).resolve().parents[1])
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == dict.fromkeys(
        ["dicts", "others", "late", "modules", "random", "harness", "copies", "restored", "new_module",
         "other_name", "reader", "rebind"], True)


@needs_root
def test_in_a_student_roots_life_the_runner_becomes_the_worker(make):
    """A life forked by its student root (what grading uses): a batch's fresh requests run first,
    in one runner, which then serves the shared calls planned before and after them."""
    box = make("import os\n\ndef pid():\n    return os.getpid()\n")
    out = box.run_batch([Request("call", "pid", fresh=False), Request("call", "pid", fresh=True),
                         Request("call", "pid", fresh=False)])
    assert [o.status for o in out] == ["ok"] * 3
    assert len({o.value for o in out}) == 1
    assert box.applied["started"] == "student_root" and box.applied["compiled"] == "first_life"


@needs_root
def test_a_life_uses_the_roots_code_only_for_the_very_source_it_was_sent(make):
    """The root's code is the first life's compile of ITS source: a later life sent another source
    (or file name) compiles its own and runs that."""
    first = make("def f():\n    return 1\n")
    other = make("def f():\n    return 2\n")
    renamed = make("def f():\n    return 1\n", filename="other.py")
    same = make("def f():\n    return 1\n")
    assert [call(box, "f").value for box in (first, other, renamed, same)] == [1, 2, 1, 1]
    assert first.family is other.family is renamed.family is same.family
    assert [box.applied.get("compiled") for box in (first, other, renamed, same)] == [
        "first_life", None, None, "student_root"]


@needs_root
def test_every_life_has_exactly_the_environment_the_grader_sends(make):
    """The root is started with its lives' environment (StudentRoot(env=)), so a life sets none:
    the first life and the later ones (with and without a reference) have exactly the scrubbed
    variables, in order, HOME their work folder; a source and a reference sent as raw bytes after
    the config (its "blobs") arrive intact, non-ASCII and lone surrogates included.  (A lone
    surrogate a program returns comes back as its visible escape, bounds.wellformed: its code
    points are read too.)"""
    source = ("import os\n\ndef env():\n    return list(os.environ.items())\n\ndef text():\n    return 'é ✓ \\udcff'\n"
              "\ndef codes():\n    return [ord(c) for c in text()]\n")
    lives = [make(source), make(source), make(source, reference="def text():\n    return 'ref é'\n")]
    expected = [list(item) for item in launch._env("/tmp/work").items()]
    assert [call(box, "env").value for box in lives] == [expected] * 3
    assert [box.applied["compiled"] for box in lives] == ["first_life", "student_root", "student_root"]
    assert [call(box, "codes").value for box in lives] == [[0xe9, 0x20, 0x2713, 0x20, 0xdcff]] * 3
    assert [call(box, "text").value for box in lives] == ["é ✓ \\udcff"] * 3     # (was "é ✓ \udcff": round five)
    assert call(lives[2], "text", substitute={"names": ["text"]}).value == "ref é"


def _children(pid: int) -> list[int]:
    found: list[int] = []
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children") as f:
            found += [int(c) for c in f.read().split()]
    return found


@needs_root
def test_a_life_forks_nothing_before_its_first_request(make):
    """A pid-1 life joins the sandbox's cgroup while it isolates itself (Sandbox._start: the move is
    done before the grader reads its `ready`, which the life may write sooner), so a process it
    forked before its first request could stay outside the cgroup (its memory and pids limits) and
    become the shared worker.  Once started, and after a while, the life has no child; its first
    request's processes are in its cgroup."""
    box = make("""
        def where():
            return open("/proc/self/cgroup").read()
        def nothing():
            return None
    """)
    box.start()
    life = box._state.proc.popen.pid
    time.sleep(0.3)                         # (a fork made when ready would be there by now)
    assert _children(life) == []
    if box._state.group is None:
        pytest.skip("this machine gives no writable cgroup (see Sandbox.applied['cgroup'])")
    inside = call(box, "where")
    assert inside.status == "ok" and "autograder-" in inside.value, inside


BOOT = '''
import os
import random
import sys


def _runner():
    """The fresh runner's own loop frame (worker.runner_loop), above this request."""
    frame = sys._getframe()
    while frame is not None and frame.f_code.co_name != "runner_loop":
        frame = frame.f_back
    return frame.f_locals


def first_reading():
    """[whether this runner's first reading of the watched lists and sets is the snapshot's own
    (no item of one written since the template took it: its hold kept the template's reading),
    whether its guard on the patches' modules started as its zygote left them (nothing written)]"""
    runner = _runner()
    clean, tags = runner["clean"], runner["patch_tags"]
    return [clean.ids.items0 is not clean.ids_base and clean.ids.items0 == clean.ids_base,
            tags is not None and tags.tags is runner["zyg"].patches_as]


def digest(change=None):
    """[this process, random's state as this request found it]; CHANGE: then the generator's
    state changed without a write to any watched dict (the check's restore must undo it).  (Read from
    the generator itself: the module's getstate, as every draw, seeds the request's draws first.)"""
    found = [os.getpid(), hash(random._inst.getstate())]
    if change == "draw":
        random.random()
    elif change == "bits":
        random.getrandbits(4000)
    elif change == "internal":
        import _random
        _random.Random.setstate(random._inst, random.Random(5).getstate()[1])
    return found
'''


@needs_root
def test_a_fresh_runner_starts_with_the_templates_reading_and_the_patches_as_its_zygote_left_them(make):
    """A life's boot writes no watched list's item after the template's snapshot (what its fork
    server hands it is not kept in our names: entry._Given; the audit flag is in the snapshot as
    every zygote sets it), so a fresh runner's first reading of the watched lists and sets is the
    snapshot's (one written since made each runner read and hold it all again); and it writes no
    patch again (CleanState.installed_as: its guard on them starts known)."""
    box = make(BOOT)
    out = box.run(Request("call", "first_reading", fresh=True))
    if not box.applied.get("fresh_runner"):
        pytest.skip("no fresh runner here (no dict versions)")
    assert out.status == "ok", out
    assert out.value == [True, True]


@needs_root
@pytest.mark.parametrize("change", ["draw", "bits", "internal"])
def test_a_request_that_moves_randoms_generator_leaves_the_next_the_state_its_zygote_had(make, change):
    """The snapshot keeps random's state as its generator's bytes (CleanState: no 625 ints in each
    life); a request that changes it (a draw, or a C-level setstate that writes no watched dict)
    leaves the runner clean, and the next request finds random's state exactly as the one before
    found it (the zygote's)."""
    box = make(BOOT)
    first = box.run(Request("call", "digest", fresh=True))
    if not box.applied.get("fresh_runner"):
        pytest.skip("no fresh runner here (no dict versions)")
    second = box.run(Request("call", "digest", [change], fresh=True))
    third = box.run(Request("call", "digest", fresh=True))
    assert [o.status for o in (first, second, third)] == ["ok"] * 3
    assert first.value[0] == second.value[0] == third.value[0]          # one runner served all three
    assert third.value[1] == second.value[1]                            # the zygote's state again
