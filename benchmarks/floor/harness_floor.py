"""The least Python harness around a call that keeps the kit's obligations per request, in this
process (no sandbox, no isolation): decode the request line (json), a freshly executed student
module for a fresh request, a freshly executed reference namespace for a substituting request
(required: no reference state is shared between requests) with the substituted names swapped in
and put back after, scripted input / captured output / dice / seed, the call, the result
encoded (json) and written to a pipe.  Against student_code.py (the same calls with no harness)
the difference is the harness's floor in Python.  Usage: .venv/bin/python bench/harness_floor.py [PLAN|shared|fresh] [N] [nosub]"""
import builtins
import json
import os
import random
import statistics
import sys
import threading
import time
import types

PLAN = sys.argv[1] if len(sys.argv) > 1 else "/tmp/floor_plan.json"
if PLAN in ("shared", "fresh"):   # kit_trip.py's requests: score("Chance", ...) x 400, no substitution
    plan = [dict(kind="call", func="score", args=["Chance", [1, 2, 3, 4, 5]], kwargs={}, stdin=None, seed=None,
                 dice=None, fresh=PLAN == "fresh", timeout=None, substitute=None, life=0, how="batch")] * 400
else:
    plan = json.load(open(PLAN))
N = int(sys.argv[2]) if len(sys.argv) > 2 else 20
NOSUB = len(sys.argv) > 3 and sys.argv[3] == "nosub"     # the same without the reference's module body
REF = os.path.join(os.getcwd(), "autograder/assignments/yahtzee/reference.py")
code = compile(open(REF).read(), REF, "exec")
lines = [json.dumps({k: v for k, v in r.items() if k not in ("life", "how")}).encode() + b"\n" for r in plan]
r_fd, w_fd = os.pipe()
threading.Thread(target=lambda: [os.read(r_fd, 1 << 16) for _ in iter(int, 1)], daemon=True).start()
MISSING = object()
ORIG_INPUT, ORIG_PRINT, ORIG_RANDINT = builtins.input, builtins.print, random.randint


class Stop(Exception):
    pass


def module(name):
    mod = types.ModuleType(name)
    mod.__file__ = REF
    exec(code, mod.__dict__)
    return mod


def serve(line, shared, seq):
    req = json.loads(line)
    mod = module("yahtzee") if (req["fresh"] or req["kind"] == "script") else shared
    saved = {}
    sub = req.get("substitute")
    names = mod.__dict__
    if sub and not NOSUB:
        ours = module("__reference__").__dict__
        for name in sub.get("keep") or ():
            if callable(names.get(name)):
                ours[name] = names[name]
        for name in sub.get("names") or ():
            if type(new := ours.get(name)) is types.FunctionType:
                saved[name] = names.get(name, MISSING)
                names[name] = new
    stdin = list(req["stdin"] or [])
    dice = list(req["dice"]) if req["dice"] is not None else None
    events, out = [], []

    def inp(prompt=""):
        out.append(prompt)
        if not stdin:
            raise Stop
        ans = stdin.pop(0)
        events.append(["in", prompt, ans])
        return ans

    def prn(*a, sep=" ", end="\n", file=None, flush=False):
        text = sep.join(map(str, a)) + end
        out.append(text)
        events.append(["out", text])

    def randint(a, b):
        if not dice:
            raise Stop
        d = dice.pop(0)
        events.append(["roll", d])
        return d
    builtins.input, builtins.print = inp, prn
    if dice is not None:
        random.randint = randint
    status, value, error = "ok", None, None
    t0 = time.process_time()
    try:
        if req["seed"] is not None:
            random.seed(req["seed"])
        if req["func"] != "__grader_load_probe__":
            value = getattr(mod, req["func"])(*req["args"], **req["kwargs"])
    except Stop:
        status = "input_exhausted"
    except Exception as e:
        status, error = "exception", {"type": type(e).__name__, "message": str(e)[:500]}
    finally:
        builtins.input, builtins.print, random.randint = ORIG_INPUT, ORIG_PRINT, ORIG_RANDINT
        for name, old in saved.items():
            if old is MISSING:
                names.pop(name, None)
            else:
                names[name] = old
    res = {"seq": seq, "status": status, "value": value, "error": error, "stdout": "".join(out)[:200000],
           "events": events, "args_after": req["args"], "cpu": round(time.process_time() - t0, 6)}
    os.write(w_fd, json.dumps(res, default=repr).encode() + b"\n")


def one_grade():
    shared = {}
    for seq, (req, line) in enumerate(zip(plan, lines)):
        if req["life"] not in shared:
            shared[req["life"]] = module("yahtzee")
        serve(line, shared[req["life"]], seq)


one_grade()
times = []
for _ in range(N):
    t0 = time.process_time()
    one_grade()
    times.append(time.process_time() - t0)
subs = sum(1 for r in plan if r["substitute"])
print(f"minimal Python harness + student code, {len(plan)} requests ({0 if NOSUB else subs} substituting): "
      f"best {min(times) * 1000:.2f} ms, median {statistics.median(times) * 1000:.2f} ms CPU a grade "
      f"= {min(times) / len(plan) * 1e6:.1f} us a request (reader thread included)")
