"""Capture every request one warm four-stage grade of the reference sends to its sandboxes
(the student's own life and each substitution life), as JSON, for student_code.py.
Usage (from the worktree): .venv/bin/python bench/capture_plan.py [OUT.json]"""
import dataclasses
import json
import os
import sys

sys.path.insert(0, os.getcwd())
from autograder.engine.program import close_references
from autograder.engine.sandbox import Sandbox, template_scope
from autograder.grading.grade import grade

REF = "autograder/assignments/yahtzee/reference.py"
out = sys.argv[1] if len(sys.argv) > 1 else "/tmp/floor_plan.json"
seen, lives = [], {}
orig_run, orig_batch = Sandbox.run, Sandbox.run_batch


def note(self, reqs, how):
    life = lives.setdefault(id(self), len(lives))
    for r in reqs:
        seen.append(dict(dataclasses.asdict(r), life=life, how=how))


answers = []


def keep(outcomes):
    for o in outcomes:
        try:
            answers.append(json.dumps(dataclasses.asdict(o), default=repr))
        except TypeError:
            answers.append(json.dumps({"status": getattr(o, "status", None)}))
    return outcomes


def run(self, req, *a, **k):
    note(self, [req], "single")
    return keep([orig_run(self, req, *a, **k)])[0]


def run_batch(self, reqs, *a, **k):
    note(self, reqs, "batch")
    return keep(orig_batch(self, reqs, *a, **k))


Sandbox.run, Sandbox.run_batch = run, run_batch
with template_scope():
    grade(REF, "yahtzee", stage="all")          # warm: the reference's outcomes cached
    seen.clear()
    lives.clear()
    answers.clear()
    grade(REF, "yahtzee", stage="all")
close_references()
json.dump(seen, open(out, "w"))
json.dump(answers, open(out.replace(".json", "") + "_answers.json", "w"))
by = {}
for r in seen:
    k = (r["life"], "fresh" if (r["fresh"] or r["kind"] == "script") else "shared")
    by[k] = by.get(k, 0) + 1
print(f"{len(seen)} requests in {len(lives)} lives -> {out}", sorted(by.items()))
