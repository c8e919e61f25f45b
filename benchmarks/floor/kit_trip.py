"""The kit's own cost of a request, in situ, by process: a sandbox of the reference (in a
template session, as a grade's), M requests in one batch, the CPU that each process used for
them (the grader: process_time; the life (zygote, and the outer process if any) and its request processes: /proc schedstat, ns)
divided by M.  Shared calls (the shared worker) and fresh calls (the fresh runner, with its clean
check), a trivial function (score, "Chance"): the harness and the zygote, not the student's code.
Usage: .venv/bin/python bench/kit_trip.py [M] [REPEATS]"""
import os
import sys
import time

sys.path.insert(0, os.getcwd())
from autograder.engine.sandbox import Request, Sandbox, template_scope  # noqa: E402

M = int(sys.argv[1]) if len(sys.argv) > 1 else 400
R = int(sys.argv[2]) if len(sys.argv) > 2 else 3
src = open("autograder/assignments/yahtzee/reference.py").read()


def req(fresh):
    return Request("call", "score", ["Chance", [1, 2, 3, 4, 5]], {}, None, None, None, fresh, None)


def ns(pid):
    try:
        with open(f"/proc/{pid}/schedstat") as f:
            return int(f.read().split()[0])
    except OSError:
        return 0


def minflt(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[7])
    except OSError:
        return 0


def tree(pid, depth=0):
    """{pid: depth} of PID and every descendant (0: PID)."""
    out = {pid: depth}
    for k in kids(pid):
        out.update(tree(k, depth + 1))
    return out


def kids(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return []


with template_scope():
    for fresh in (False, True):
        rows = []
        for _ in range(R):
            s = Sandbox(src, "yahtzee.py")
            s.run_batch([req(fresh) for _ in range(4)])          # started, its request process made
            top = s._state.proc.popen.pid       # the outer process, or the zygote itself
            depth = tree(top)
            zdepth = max(depth.values()) - 1        # the zygote: its request processes are the deepest
            before = {p: ns(p) for p in depth}
            faults0 = {p: minflt(p) for p in depth}
            g0 = time.process_time()
            outs = s.run_batch([req(fresh) for _ in range(M)])
            g1 = time.process_time()
            depth_after = tree(top)
            after = {p: ns(p) for p in depth_after}
            faults = sum(minflt(p) - faults0.get(p, 0) for p in depth_after) / M
            assert all(o.status == "ok" for o in outs), {o.status for o in outs}
            zyg = sum(after[p] - before.get(p, 0) for p in after if depth_after[p] <= zdepth) / 1e3 / M
            procs = sum(after[p] - before.get(p, 0) for p in after if depth_after[p] > zdepth) / 1e3 / M
            gone = [p for p in before if p not in after]
            n = sum(1 for p in after if depth_after[p] > zdepth)
            rows.append((zyg, procs, (g1 - g0) * 1e6 / M, n, len(gone), faults))
            s.close()
        best = min(rows, key=lambda r: r[0] + r[1] + r[2])
        print(f"kit {'fresh' if fresh else 'shared'} request in a batch of {M}: zygote {best[0]:.1f} us, request process "
              f"{best[1]:.1f} us, grader {best[2]:.1f} us = {sum(best[:3]):.1f} us CPU a request "
              f"(best of {R}; request processes now {best[3]}, gone meanwhile {best[4]}; page faults in the sandbox "
              f"{best[5]:.2f} a request); all: " + ", ".join(f"{a:.0f}+{b:.0f}+{c:.0f}" for a, b, c, *_ in rows))
