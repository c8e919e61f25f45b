"""The kit's grader with every outcome given: a warm four-stage grade of the reference is recorded
once (every Outcome the student's sandboxes return, by the request's content), then graded again N
times with Sandbox.run/run_batch answering from the record and no sandbox started at all.  The
grader's CPU then is the checks (plugin's light runner, the suites, charge-once), the Programs'
request planning and memo, the report: everything of F except the wire and the sandbox starts.
Usage: .venv/bin/python bench/grader_given.py [N]"""
import dataclasses
import marshal
import os
import sys
import time

sys.path.insert(0, os.getcwd())
from autograder.engine.program import close_references  # noqa: E402
from autograder.engine.sandbox import Request, Sandbox, template_scope  # noqa: E402
from autograder.grading.grade import grade, grade_stream  # noqa: E402

REF = "autograder/assignments/yahtzee/reference.py"
N = int(sys.argv[1]) if len(sys.argv) > 1 else 20
record, mode, missing = {}, ["record"], [0]
orig_run, orig_batch, orig_start = Sandbox.run, Sandbox.run_batch, Sandbox.start


FIELDS = [f.name for f in dataclasses.fields(Request)]
spent = [0.0]       # CPU of key() itself: this script's overhead, subtracted from the figure


def key(req):
    t0 = time.process_time()
    probe = req.func == "__grader_load_probe__"     # (fresh only where the sandbox already has a runner)
    k = marshal.dumps(tuple(None if probe and f == "fresh" else getattr(req, f) for f in FIELDS))
    spent[0] += time.process_time() - t0
    return k


def run(self, req, *a, **k):
    if mode[0] == "record":
        out = orig_run(self, req, *a, **k)
        record[key(req)] = out
        return out
    if key(req) not in record:
        missing[0] += 1
        return orig_run(self, req, *a, **k)
    return record[key(req)]


def run_batch(self, reqs, *a, **k):
    if mode[0] == "record":
        outs = orig_batch(self, reqs, *a, **k)
        record.update((key(r), o) for r, o in zip(reqs, outs))
        if k.get("aside"):
            applied["aside_end"] = getattr(self, "aside_end", None)
        return outs
    if any(key(r) not in record for r in reqs):
        missing[0] += 1
        return orig_batch(self, reqs, *a, **k)
    if k.get("aside"):              # (a try in the student's own sandbox: it ended as when recorded)
        self.aside_end = applied.get("aside_end")
    return [record[key(r)] for r in reqs]


applied = {}        # what a started sandbox said it got (the engine reads it, e.g. its fresh runner)


def start(self):
    if mode[0] == "record":
        out = orig_start(self)
        applied.setdefault("applied", dict(self.applied))
        return out
    self.applied = dict(applied.get("applied") or {})


Sandbox.run, Sandbox.run_batch, Sandbox.start = run, run_batch, start
scores = []
with template_scope():
    grade(REF, "yahtzee", stage="all")
    scores.append(grade(REF, "yahtzee", stage="all"))
    mode[0] = "given"
    grade(REF, "yahtzee", stage="all")
    spent[0] = 0.0
    t0, w0 = time.process_time(), time.perf_counter()
    grade_stream((REF for _ in range(N)), lambda r: scores.append(r), "yahtzee", "all")
    t1, w1 = time.process_time(), time.perf_counter()
close_references()
pts = {round(getattr(r, "score", getattr(r, "total", 0)) or 0, 3) for r in scores if r is not None}
print(f"grader with every outcome given: {(t1 - t0 - spent[0]) / N * 1000:.1f} ms CPU a grade (this script's lookups "
      f"{spent[0] / N * 1000:.1f} ms subtracted), {(w1 - w0) / N * 1000:.1f} ms wall "
      f"(N={N}; requests not in the record, run for real: {missing[0]}; scores seen {sorted(pts)[:4]})")
