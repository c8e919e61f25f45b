"""CPU of N student roots started and closed (no lives) from a warm template: the tree's CPU a root.

    .venv/bin/python benchmarks/floor/root_cost.py 60

Run from the repository root, as root (a student root needs a pid namespace).  Measurement only.
"""

import os
import sys
import time

sys.path.insert(0, os.getcwd())

from autograder.authoring.bench.measure import tree_cpu  # noqa: E402
from autograder.engine import launch, seccomp  # noqa: E402

try:                                   # (main before the root template: launch.StudentRoot)
    from autograder.engine.roots import StudentRoot  # noqa: E402
except ImportError:
    StudentRoot = launch.StudentRoot
from autograder.engine.sandbox import template_scope  # noqa: E402

n = int(sys.argv[1])
setup = {"seccomp": (seccomp.filter_bpf() or b"").hex(), "sockets_refused": seccomp.refuses_sockets(),
         "hidden": [os.getcwd()]}
env = launch._env("/work")
with template_scope():
    t = launch._template()
    StudentRoot(t, setup, env).close()
    time.sleep(0.2)
    c0, w0 = tree_cpu(), time.perf_counter()
    for _ in range(n):
        StudentRoot(t, setup, env).close()
    time.sleep(0.3)
    c1, w1 = tree_cpu(), time.perf_counter()
print(f"per root: tree CPU {(c1 - c0) / n * 1e3:.2f} ms, wall {(w1 - w0) / n * 1e3:.2f} ms")
