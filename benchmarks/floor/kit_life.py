"""The kit's own cost of a student's five lives, in situ: one Family (a student root forked from the
session's template) and five sandboxes of the reference (the first without, four with the reference
to substitute, as a four-stage grade's), each started with ONE fresh and ONE shared trivial request
(its fresh runner then becomes its worker: one request process a life, as in a grade), then closed,
and the family dropped.  Per student: the tree's CPU (tree_cpu: grader + template + root + lives +
request processes) and the grader's alone.  The requests' own cost (kit_trip.py: ~0.26 ms a life)
is inside; subtract it to get the lives' fixed cost.   Usage: .venv/bin/python bench/kit_life.py [K]"""
import os
import sys
import time

sys.path.insert(0, os.getcwd())
from autograder.authoring.bench.measure import tree_cpu  # noqa: E402
from autograder.engine.roots import Family  # noqa: E402
from autograder.engine.sandbox import Request, Sandbox, template_scope  # noqa: E402

K = int(sys.argv[1]) if len(sys.argv) > 1 else 20
LIVES = int(sys.argv[2]) if len(sys.argv) > 2 else 5
src = open("autograder/assignments/yahtzee/reference.py").read()


def req(fresh):
    return Request("call", "score", ["Chance", [1, 2, 3, 4, 5]], {}, None, None, None, fresh, None)


def student():
    fam = Family([])
    boxes = []
    for i in range(LIVES):
        s = Sandbox(src, "yahtzee.py", reference=None if i == 0 else src)
        s.family = fam
        outs = s.run_batch([req(True), req(False)])
        assert all(o.status == "ok" for o in outs), [o.status for o in outs]
        boxes.append(s)
    for s in boxes:
        s.close()
    fam.drop()


with template_scope():
    student()
    student()
    time.sleep(0.3)
    t0, g0 = tree_cpu(), time.process_time()
    for _ in range(K):
        student()
    time.sleep(0.3)           # the lives' exits and reaping land before the reading
    tree, grader = (tree_cpu() - t0) / K * 1000, (time.process_time() - g0) / K * 1000
print(f"kit: a student's {LIVES} lives (+ root, 2 trivial requests a life): tree CPU {tree:.1f} ms, "
      f"of it grader {grader:.1f} ms, sandbox side {tree - grader:.1f} ms (K={K})")
