"""The process sandbox's processes and state: fresh and shared requests, background processes
and threads, uids, hidden paths and the network, an unprivileged grader, leaks, the cgroup.  Real
child processes, no mocks; test_sandbox_family.py and test_sandbox_template.py collect these again
with student roots and under the template."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import tempfile
import textwrap
from pathlib import Path

import pytest
from test_sandbox import ISO, REPO, call, needs_uid

from autograder.engine.sandbox import Limits, uid_processes

needs_namespaces = pytest.mark.skipif(not ISO["namespaces"], reason="isolation() reports no namespaces here "
                                      "(not root, or the kernel/container forbids unshare)")


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
