"""Every sandbox test of test_sandbox.py, test_sandbox_limits.py and test_sandbox_processes.py (and the
fresh runner's reuse test of test_sandbox_shared_process.py: its zygote adopts the template's clean-state
snapshot here) again, with each sandbox forked from the pre-booted template (sandbox.template_scope,
what grading uses) instead of a new interpreter: the template changes how a sandbox process is born,
never what it gets (own uid, namespaces, minimal root, seccomp, cgroup, rlimits), so every isolation
and outcome test must hold unchanged. Plus what is the template's own: it never outlives its scope
and each sandbox still gets its own everything.
"""

from __future__ import annotations

import os

import pytest
from test_sandbox import *  # noqa: F403  (the same tests, collected again under the template)
from test_sandbox import ISO, call, needs_uid
from test_sandbox_limits import *  # noqa: F403
from test_sandbox_processes import *  # noqa: F403
from test_sandbox_shared_process import test_fresh_requests_share_a_process_only_while_it_stays_clean  # noqa: F401

from autograder.engine import launch, life
from autograder.engine import sandbox as sandbox_module
from autograder.engine.sandbox import Sandbox, template_scope

needs_template = pytest.mark.skipif(not (ISO["uid_drop"] and ISO["pid_namespace"]),
                                    reason="the template serves root graders with a pid namespace only")


SPAWN_TOO = {"test_unprivileged_grader_degrades_to_limits_and_a_temp_folder",     # not root: no template
             "test_sandboxes_forked_from_one_template_each_get_their_own_uid_pid_namespace_and_cgroup"}


@pytest.fixture(autouse=True)
def _in_template_scope(request):
    started: list[Sandbox] = []
    original = Sandbox._start

    def recording(self):
        started.append(self)
        return original(self)

    Sandbox._start = recording
    try:
        with template_scope():
            yield
    finally:
        Sandbox._start = original
    if ISO["uid_drop"] and ISO["pid_namespace"] and request.node.name not in SPAWN_TOO:
        for box in started:
            assert box.applied.get("started") in ("template", None), box.applied


@needs_template
def test_the_template_ends_with_its_scope_and_sandboxes_live_on(make):
    box = make("def f():\n    return os.getpid()\nimport os\n")
    assert call(box, "f").status == "ok"
    template = launch._templates[launch._python()]
    assert box.applied["started"] == "template"
    template_scope().__exit__(None, None, None)          # as the outermost scope's end would
    launch._template_depth[0] += 1               # (the fixture's scope is still open)
    assert template.popen.poll() is not None, "the template outlived its scope"
    assert call(box, "f").status == "ok"                 # the sandbox forked from it still serves


@needs_template
def test_a_template_booted_by_another_process_is_adopted_and_reaped_by_its_booter(make):
    """grade-all's parent boots each worker's template (launch.Booted) and the worker adopts it
    (launch.adopt_template): its sandboxes fork from it as from one of its own, it ends with the
    adopter's scope, and its booter reaps it, with the CPU of the processes it forked and reaped.
    One for another interpreter is not adopted: let go, it ends at once (not killed)."""
    assert launch._python() not in launch._templates
    booted = launch.Booted()
    assert launch.adopt_template(booted.handoff())
    template = launch._templates[launch._python()]
    assert template.popen.pid == booted.popen.pid and template.owner == os.getpid()
    box = make("def f():\n    return 6 * 7\n")
    assert call(box, "f").value == 42 and box.applied["started"] == "template"
    template_scope().__exit__(None, None, None)          # as the outermost scope's end would
    launch._template_depth[0] += 1               # (the fixture's scope is still open)
    assert template.popen.poll() is not None, "the template outlived its scope"
    cpu = booted.reap(10.0)
    assert cpu is not None and cpu > 0 and booted.popen.returncode == 0

    other = launch.Booted()
    python, sock, pid = other.handoff()
    assert not launch.adopt_template((python + "-another", sock, pid))
    assert launch._python() not in launch._templates
    assert other.reap(10.0) is not None and other.popen.returncode == 0


@needs_template
@needs_uid
def test_sandboxes_forked_from_one_template_each_get_their_own_uid_pid_namespace_and_cgroup(make):
    src = """
        import os
        def who():
            return [os.getuid(), os.getpid(), open('/proc/self/cgroup').read(), sorted(os.listdir('/tmp'))]
        def leave(name):
            open('/tmp/' + name, 'w').write('x')
            return sorted(os.listdir('/tmp'))
    """
    a, b = make(src), make(src)
    wa, wb = call(a, "who"), call(b, "who")
    assert wa.status == wb.status == "ok", (wa, wb)
    assert a.applied["started"] == b.applied["started"] == "template"
    assert wa.value[0] != wb.value[0] and min(wa.value[0], wb.value[0]) >= sandbox_module.UID_BASE
    assert wa.value[1] < 10 and wb.value[1] < 10, "a request process is not inside a fresh pid namespace"
    if a.applied["cgroup"]:
        assert wa.value[2] != wb.value[2], "two sandboxes share a cgroup"
    assert call(a, "leave", "note", fresh=False).status == "ok"
    assert "note" not in call(b, "who").value[3], "a file in one sandbox's /tmp is visible in another's"
    for key in ("root", "namespaces", "seccomp", "no_new_privs", "rlimits", "private_tmp", "readonly_root", "proc"):
        assert a.applied[key] == b.applied[key], key
    spawned = Sandbox("def f():\n    return 1\n")
    launch._template_depth[0] -= 1               # outside any scope: the old way
    try:
        assert spawned.run(sandbox_module.Request(func="f")).status == "ok"
    finally:
        launch._template_depth[0] += 1
        spawned.close()
    assert spawned.applied["started"] == "spawn"
    same = {k: v for k, v in spawned.applied.items() if k not in ("uid", "gid", "started")}
    assert same == {k: v for k, v in a.applied.items() if k not in ("uid", "gid", "started")}
    assert os.getpid() not in (wa.value[1], wb.value[1])


def test_a_lifes_config_line_is_its_json_with_long_texts_encoded_once():
    """Sandbox._start sends each life json.dumps of its config, byte for byte (life._config_line),
    while the long texts every life of a student gets (source, reference code, filter) are encoded
    once per text, not once per life."""
    import json

    source = 'def f():\n    return "é \\\\ \\u2028 \\x00 ✓"\n' * 40
    cfg = {"filename": "s.py", "source": source, "limits": {"cpu_s": 1.5, "nproc": 4}, "root": True,
           "hidden": ["/x"], "uid": None, "seccomp": "0a" * 700, "reference": None, "tmp_mb": 16}
    life._json_text.cache_clear()
    lines = [life._config_line(dict(cfg, uid=uid)) for uid in (40001, 40002)]
    assert lines == [json.dumps(dict(cfg, uid=uid)).encode() + b"\n" for uid in (40001, 40002)]
    assert life._json_text.cache_info().misses == 2      # the source and the filter, once each


@pytest.mark.skipif(not ISO["uid_drop"], reason="uid slots are taken as root only")
def test_a_slot_released_clean_stays_locked_by_its_process_and_marked_clean():
    """isolation._Slot: a slot released clean is kept locked by its process for its next sandbox
    (marked clean on file meanwhile, dirty again once taken); one released dirty is let go; a
    forked copy of the process never takes its parent's kept slots."""
    import subprocess
    import sys

    from autograder.engine import isolation

    def file_of(slot):
        return os.path.join(isolation._slot_folder(), f"slot-{slot.uid - isolation.UID_BASE}.lock")

    def locked_by_another(path):
        probe = "import fcntl, os, sys\nfd = os.open(sys.argv[1], os.O_RDWR)\ntry:\n    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)\nexcept OSError:\n    print('locked')\nelse:\n    print('free')\n"
        return subprocess.run([sys.executable, "-c", probe, path], capture_output=True, text=True).stdout.strip()

    slot = isolation._Slot.acquire()
    path = file_of(slot)
    slot.clean = True
    slot.release()
    assert open(path, "rb").read() == isolation.CLEAN and locked_by_another(path) == "locked"
    again = isolation._Slot.acquire()
    assert again is slot and open(path, "rb").read() == isolation.DIRTY
    again.clean = True
    again.release()                  # kept again while the process forks
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        child = isolation._Slot.acquire()
        os.write(write, str(child.uid).encode())
        os._exit(0)
    os.waitpid(pid, 0)
    os.close(write)
    assert int(os.read(read, 32)) != slot.uid
    os.close(read)
    again = isolation._Slot.acquire()
    assert again is slot
    again.clean = False              # left dirty (say, a process of its uid survived): let go
    again.release()
    ours = []                        # (another grader on the machine may take it at once: not probed)
    for fd in os.listdir("/proc/self/fd"):
        try:
            ours.append(os.readlink(f"/proc/self/fd/{fd}"))
        except OSError:
            pass
    assert os.path.realpath(path) not in ours
