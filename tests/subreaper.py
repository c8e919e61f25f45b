"""Run a command under a child subreaper and report what outlived it (for the batch tests).

    python tests/subreaper.py REPORT CMD...

CMD runs as the leader of a new session (so a test can signal its whole process group) with
stdout/stderr in REPORT.out/.err and its pid in REPORT.pid; this wrapper stays outside that group,
so whatever outlives CMD is re-parented here and reported (pid, uid, command line), then killed.
REPORT gets JSON: code, wall, left, stdout, stderr.
"""

import ctypes
import json
import os
import subprocess
import sys
import time

PR_SET_CHILD_SUBREAPER = 36


def children() -> list[int]:
    """Reap what has exited; return the live children re-parented to this process."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return []
        if pid == 0:
            break
    kids = []
    for tid in os.listdir(f"/proc/{os.getpid()}/task"):
        with open(f"/proc/{os.getpid()}/task/{tid}/children") as f:
            kids += [int(x) for x in f.read().split()]
    return kids


def main() -> None:
    ctypes.CDLL(None).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    report, cmd = sys.argv[1], sys.argv[2:]
    started = time.monotonic()
    with open(report + ".out", "w") as out, open(report + ".err", "w") as err:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=err, start_new_session=True)
        with open(report + ".pid", "w") as f:
            f.write(str(proc.pid))
        code = proc.wait()
    wall = time.monotonic() - started
    deadline = time.monotonic() + 6      # a forkserver or a worker may take a moment to see its parent left
    while children() and time.monotonic() < deadline:
        time.sleep(0.05)
    left = []
    for pid in children():
        try:
            with open(f"/proc/{pid}/status") as f:
                uid = int([line for line in f if line.startswith("Uid:")][0].split()[1])
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                command = f.read().replace(b"\0", b" ").decode(errors="replace")[:160]
            left.append({"pid": pid, "uid": uid, "cmd": command})
            os.kill(pid, 9)
        except (OSError, IndexError):
            pass
    with open(report + ".out") as out, open(report + ".err") as err:
        outputs = {"stdout": out.read(), "stderr": err.read()}
    with open(report, "w") as f:
        json.dump({"code": code, "wall": wall, "left": left, **outputs}, f)


if __name__ == "__main__":
    main()
