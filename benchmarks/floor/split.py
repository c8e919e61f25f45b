"""CPU of N warm four-stage grades of one submission, split into the grader and its sandboxes.

    .venv/bin/python benchmarks/floor/split.py autograder/assignments/yahtzee/reference.py 20

Run from the repository root.  Also counts the sandbox starts and requests of a grade.
"""

import collections
import os
import resource
import sys
import time

sys.path.insert(0, os.getcwd())

from autograder.authoring.bench.measure import tree_cpu  # noqa: E402
from autograder.engine.program import close_references  # noqa: E402
from autograder.engine.sandbox import Sandbox, template_scope  # noqa: E402
from autograder.grading.grade import grade, grade_stream  # noqa: E402

counts: collections.Counter = collections.Counter()
forked: dict[int, tuple] = {}   # request processes each sandbox's zygote started (its "forked"), by its process
_run, _run_batch, _start, _collected = Sandbox.run, Sandbox.run_batch, Sandbox._start, Sandbox._collected


def run(self, req, limit=None):
    counts["single_fresh" if (req.fresh or req.kind == "script") else "single_shared"] += 1
    return _run(self, req, limit)


def run_batch(self, reqs, *args, **kwargs):
    counts["batches"] += 1
    for r in reqs:
        counts["batch_fresh" if (r.fresh or r.kind == "script") else "batch_shared"] += 1
    return _run_batch(self, reqs, *args, **kwargs)


def start(self):
    counts["starts"] += 1
    return _start(self)


def collected(self, proc, outcome, msg, result, trial):
    n = msg.get("forked") if isinstance(msg, dict) else None
    if isinstance(n, int):
        forked[id(proc)] = (proc, max(forked.get(id(proc), (None, 0))[1], n))   # (proc kept: no id reused)
    return _collected(self, proc, outcome, msg, result, trial)


def self_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def pin_template(cpu: int) -> None:
    """$SPLIT_PIN_TEMPLATE=CPU: every template this process boots (so its roots, lives and request
    processes) pinned to CPU, the grader left free (the experiment of pass 18, `vmcost`)."""
    from autograder.engine import launch

    boot = launch._boot

    def pinned(python):
        popen, sock = boot(python)
        os.sched_setaffinity(popen.pid, {cpu})
        return popen, sock

    launch._boot = pinned


def main() -> None:
    if os.environ.get("SPLIT_PIN_TEMPLATE"):
        pin_template(int(os.environ["SPLIT_PIN_TEMPLATE"]))
    Sandbox.run, Sandbox.run_batch, Sandbox._start, Sandbox._collected = run, run_batch, start, collected
    path, n = sys.argv[1], int(sys.argv[2])
    with template_scope():
        grade(path, "yahtzee", stage="all")
        counts.clear()
        forked.clear()
        t0, s0, w0 = tree_cpu(), self_cpu(), time.perf_counter()
        grade_stream((path for _ in range(n)), lambda row: None, "yahtzee", "all")
        t1, s1, w1 = tree_cpu(), self_cpu(), time.perf_counter()
    close_references()
    print(f"per grade: wall {(w1 - w0) / n * 1000:.0f} ms, tree CPU {(t1 - t0) / n * 1000:.0f} ms, "
          f"grader CPU {(s1 - s0) / n * 1000:.0f} ms, sandbox CPU {((t1 - t0) - (s1 - s0)) / n * 1000:.0f} ms")
    counts["request_processes"] = sum(n for _, n in forked.values())
    print({k: v / n for k, v in counts.items()})


if __name__ == "__main__":
    main()
