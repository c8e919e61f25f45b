"""The student's own code alone: the reference's functions on one warm grade's plan (captured by
capture_plan.py), in this process, outside any sandbox, with the least harness that gives them
their scripted stdin, dice and seed: input() from a list, print() into a list, random.randint
from the dice, a freshly executed module for every fresh request (executing the module body is
the student's code too).  Prints CPU per grade (process_time, N repeats, best and median).
Usage: .venv/bin/python bench/student_code.py [PLAN.json] [N]"""
import builtins
import json
import os
import random
import statistics
import sys
import time
import types

plan = json.load(open(sys.argv[1] if len(sys.argv) > 1 else "/tmp/floor_plan.json"))
N = int(sys.argv[2]) if len(sys.argv) > 2 else 30
REF = os.path.join(os.getcwd(), "autograder/assignments/yahtzee/reference.py")
code = compile(open(REF).read(), REF, "exec")


def fresh_module():
    mod = types.ModuleType("yahtzee")
    mod.__file__ = REF
    sys.modules["yahtzee"] = mod
    exec(code, mod.__dict__)
    return mod


class Stop(Exception):
    pass


def run(req, shared):
    mod = fresh_module() if (req["fresh"] or req["kind"] == "script") else shared
    lines = list(req["stdin"] or [])
    dice = list(req["dice"]) if req["dice"] is not None else None
    out = []

    def inp(prompt=""):
        out.append(prompt)
        if not lines:
            raise Stop("input exhausted")
        return lines.pop(0)

    def prn(*a, sep=" ", end="\n", file=None, flush=False):
        out.append(sep.join(map(str, a)) + end)

    orig_randint = random.randint
    if dice is not None:
        def randint(a, b):
            if not dice:
                raise Stop("dice exhausted")
            return dice.pop(0)
        random.randint = randint
    builtins.input, builtins.print = inp, prn
    try:
        if req["seed"] is not None:
            random.seed(req["seed"])
        if req["func"] == "__grader_load_probe__":
            return "probe"
        name = req["func"]
        if "." in name:
            cls, meth = name.split(".")
            obj = getattr(mod, cls)
            if req["instance"]:
                inst = req["instance"]
                obj = obj(*inst.get("init", []), **inst.get("kwargs", {}))
                for k, v in (inst.get("state") or {}).items():
                    setattr(obj, k, v)
            return getattr(obj, meth)(*req["args"], **req["kwargs"])
        return getattr(mod, name)(*req["args"], **req["kwargs"])
    except Stop:
        return "stopped"
    except Exception as e:          # a check may expect an exception of the reference
        return type(e).__name__
    finally:
        builtins.input, builtins.print = ORIG_INPUT, ORIG_PRINT
        random.randint = orig_randint


ORIG_INPUT, ORIG_PRINT = builtins.input, builtins.print


def one_grade():
    results = []
    shared = {}
    for req in plan:
        if req["life"] not in shared:
            shared[req["life"]] = fresh_module()      # each life's module (its load / the worker's)
        results.append(run(req, shared[req["life"]]))
    return results


first = one_grade()
times = []
for _ in range(N):
    t0 = time.process_time()
    one_grade()
    times.append(time.process_time() - t0)
fresh = sum(1 for r in plan if r["fresh"] or r["kind"] == "script")
t0 = time.process_time()
for _ in range(200):
    fresh_module()
exec_ms = (time.process_time() - t0) / 200 * 1000
errs = {r for r in first if isinstance(r, str)}
print(f"student code, {len(plan)} requests ({fresh} fresh) + {len(set(r['life'] for r in plan))} module loads: "
      f"best {min(times)*1000:.2f} ms, median {statistics.median(times)*1000:.2f} ms CPU a grade "
      f"(of it module execs {exec_ms:.3f} ms each x {fresh + len(set(r['life'] for r in plan))}); "
      f"string results seen: {sorted(errs)[:8]}")
