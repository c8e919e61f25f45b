"""A floor of the grader's work on one warm grade with every outcome given: each of the plan's
answers (as captured by capture_plan.py: the Outcome fields as JSON, ~the size of the answer lines)
decoded once (json, C), compared with the reference's outcome for the same request (in memory, as
the kit's refcache holds it), and a check result row made per request (~the grade's checks).
No pytest, no suites' own logic (a Fail's text, a replay's first divergence: only on a failure).
Usage: .venv/bin/python bench/grader_floor.py [PLAN] [N]"""
import json
import statistics
import sys
import time

base = sys.argv[1] if len(sys.argv) > 1 else "/tmp/floor_plan.json"
N = int(sys.argv[2]) if len(sys.argv) > 2 else 50
answers = [a.encode() for a in json.load(open(base.replace(".json", "") + "_answers.json"))]
reference = [json.loads(a) for a in answers]          # the reference's outcomes, in memory
plan = [{k: v for k, v in r.items() if k not in ("life", "how")} for r in json.load(open(base))]
KEYS = ("status", "value", "stdout", "events", "args_after", "state_after", "error")


def grade():
    lines = b"".join(json.dumps(r).encode() + b"\n" for r in plan)      # the plan sent
    rows, points = [], len(lines) * 0
    for i, raw in enumerate(answers):
        got = json.loads(raw)
        ref = reference[i]
        ok = all(got.get(k) == ref.get(k) for k in KEYS)
        points += ok
        rows.append((i, ok, None if ok else "differs"))
    return points, rows


grade()
times = []
for _ in range(N):
    t0 = time.process_time()
    grade()
    times.append(time.process_time() - t0)
print(f"grader floor (plan encoded, answers decoded + compared + a row each, {len(answers)} answers, {sum(map(len, answers)) // 1024} KB): "
      f"best {min(times) * 1000:.2f} ms, median {statistics.median(times) * 1000:.2f} ms CPU a grade")
