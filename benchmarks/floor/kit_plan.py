"""kit_trip.py on a real plan: the requests one life of a warm grade gets (capture_plan.py's JSON,
its life LIFE), run as one batch K times in one sandbox of the reference (which also substitutes),
in R sandboxes; the zygote's and its request processes' CPU per request from /proc schedstat
(nothing added to the harness).  Prints the medians over the R sandboxes.

    .venv/bin/python benchmarks/floor/capture_plan.py /tmp/plan.json
    .venv/bin/python benchmarks/floor/kit_plan.py /tmp/plan.json LIFE [K] [R]"""
import json
import os
import sys

sys.path.insert(0, os.getcwd())
from autograder.engine.sandbox import Request, Sandbox, template_scope  # noqa: E402

PLAN, LIFE = json.load(open(sys.argv[1])), int(sys.argv[2])
K = int(sys.argv[3]) if len(sys.argv) > 3 else 8
R = int(sys.argv[4]) if len(sys.argv) > 4 else 5
SRC = open("autograder/assignments/yahtzee/reference.py").read()
REQS = [Request(**{k: v for k, v in r.items() if k not in ("life", "how")}) for r in PLAN if r["life"] == LIFE]


def ns(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/schedstat") as f:
            return int(f.read().split()[0])
    except OSError:
        return 0


def tree(pid: int, depth: int = 0) -> dict[int, int]:
    """{pid: depth} of PID and every descendant (0: PID)."""
    out = {pid: depth}
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            kids = [int(x) for x in f.read().split()]
    except OSError:
        kids = []
    for kid in kids:
        out.update(tree(kid, depth + 1))
    return out


rows = []
with template_scope():
    for _ in range(R):
        s = Sandbox(SRC, "yahtzee.py", reference=SRC)
        s.run_batch(REQS)                       # started, its request processes made
        top = s._state.proc.popen.pid
        depth = tree(top)
        zdepth = max(depth.values()) - 1        # the zygote: its request processes are the deepest
        before = {p: ns(p) for p in depth}
        for _ in range(K):
            assert len(s.run_batch(REQS)) == len(REQS)
        after_depth = tree(top)
        after = {p: ns(p) for p in after_depth}
        n = K * len(REQS)
        rows.append((sum(after[p] - before.get(p, 0) for p in after if after_depth[p] <= zdepth) / 1e3 / n,
                     sum(after[p] - before.get(p, 0) for p in after if after_depth[p] > zdepth) / 1e3 / n))
        s.close()
zyg, procs = sorted(r[0] for r in rows), sorted(r[1] for r in rows)
print(f"life {LIFE}: {len(REQS)} requests x {K} in {R} sandboxes: zygote {zyg[R // 2]:.1f} us a request "
      f"(min {zyg[0]:.1f}), request processes {procs[R // 2]:.1f}; zygote all: " + " ".join(f"{z:.1f}" for z in zyg))
