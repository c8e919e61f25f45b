"""Benchmark of the coach (part of `make bench`; alone: python -m autograder.coach.bench).

Measures, each in a fresh process with an empty cache: the whole float32 table (wall, CPU, peak
memory, file size), loading it back, one piece of advice with every option's value, a review of a
whole recorded game; plus an anchor from the same run: the dense (252 x 462) matrix-product turn
against the one-die-at-a-time turn on the same states.
"""

from __future__ import annotations

import builtins
import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGETS = {"table_s": 20.0, "peak_mb": 200.0, "file_mb": 8.0, "load_s": 0.5, "advice_ms": 1.0, "review_ms": 100.0}

CHILD = r"""
import json, resource, sys, time
import numpy as np
from autograder.coach import solver
what = sys.argv[1]
out = {}
if what == "compute":
    w, c = time.perf_counter(), time.process_time()
    solver.load_table(solver.OFFICIAL, np.float32)
    out.update(wall=time.perf_counter() - w, cpu=time.process_time() - c,
               path=str(solver.table_path(solver.OFFICIAL, np.float32)))
else:
    w = time.perf_counter()
    table = solver.load_table(solver.OFFICIAL, np.float32)
    out["load"] = time.perf_counter() - w
    from autograder.coach.bench import measure_use
    out.update(measure_use(table))
out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(out))
"""


def recorded_game(seed: int = 5) -> str:
    """A whole game of the reference played in this process (trusted code), input echoed like a terminal."""
    from .solver import kit

    m = kit()
    answers = iter([a for c in m.CATEGORIES for a in ("1 2", "", c)])
    out = io.StringIO()

    def echo_input(prompt: str = "") -> str:
        answer = next(answers)
        out.write(f"{prompt}{answer}\n")
        return answer

    import random

    random.seed(seed)
    saved = builtins.input
    builtins.input = echo_input
    try:
        with contextlib.redirect_stdout(out):
            m.play_game()
    finally:
        builtins.input = saved
    return out.getvalue()


def measure_use(table) -> dict:
    """Advice latency (median of many positions) and the time of a whole-game review."""
    import random

    import numpy as np

    from . import advice, review, solver

    m = solver.kit()
    rng = random.Random(1)
    times = []
    for _ in range(300):
        card = m.new_scorecard()
        for category in rng.sample(m.CATEGORIES, rng.randrange(0, 12)):
            card[category] = 0
        dice = [rng.randint(1, 6) for _ in range(5)]
        start = time.perf_counter()
        advice.advise(card, dice, rng.randrange(3), table=table)
        times.append(time.perf_counter() - start)
    text = recorded_game()
    review.review_game(text, table=table)                  # warm
    start = time.perf_counter()
    review.review_game(text, table=table)
    review_s = time.perf_counter() - start
    # anchor: the same turn with the dense transition product, on the same 2048 states
    flat = table.reshape(-1)
    states = solver.states_with(6, solver.OFFICIAL)[:2048]
    t = solver.tables()
    pt = t.transition.T.astype(table.dtype)
    sub = t.subkeeps
    start = time.perf_counter()
    for chunk in np.array_split(states, 4):
        final = solver.box_values(flat, chunk, solver.OFFICIAL, table.dtype).max(axis=1)
        best = final @ pt
        best = np.max(best[:, sub], axis=2) @ pt
        np.max(best[:, sub], axis=2) @ t.first.astype(table.dtype)
    dense = time.perf_counter() - start
    start = time.perf_counter()
    for chunk in np.array_split(states, 4):
        solver._turn_value(flat, chunk, solver.OFFICIAL, table.dtype)
    fast = time.perf_counter() - start
    return {"advice_ms": 1000 * float(np.median(times)), "advice_p95_ms": 1000 * float(np.percentile(times, 95)),
            "review_ms": 1000 * review_s, "decisions": len(review.review_game(text, table=table).decisions),
            "dense_ms": 1000 * dense, "fast_ms": 1000 * fast}


def _child(what: str, cache: Path) -> dict:
    env = dict(os.environ, YAHTZEE_KIT_CACHE=str(cache), OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "2"))
    done = subprocess.run([sys.executable, "-c", CHILD, what], env=env, capture_output=True, text=True,
                          timeout=600, cwd=Path(__file__).resolve().parents[2])
    if done.returncode:
        raise RuntimeError(f"coach bench child failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _verdict(ok: bool) -> str:
    return "MET" if ok else "NOT MET"


def bench_coach() -> list[tuple[str, bool]]:
    """Print part (g) of `make bench` and return (target, met) pairs."""
    print("\n(g) the coach: the optimal table (official rules, float32), advice and review")
    with tempfile.TemporaryDirectory(prefix="coach-bench-") as scratch:
        cache = Path(scratch)
        made = _child("compute", cache)
        size_mb = Path(made["path"]).stat().st_size / 2 ** 20
        used = _child("use", cache)
    rows = [
        ("whole table, wall", f"{made['wall']:.1f} s (CPU {made['cpu']:.1f} s)", f"<= {TARGETS['table_s']:.0f} s",
         made["wall"] <= TARGETS["table_s"]),
        ("peak memory computing it", f"{made['peak_mb']:.0f} MB", f"< {TARGETS['peak_mb']:.0f} MB",
         made["peak_mb"] < TARGETS["peak_mb"]),
        ("table file", f"{size_mb:.1f} MB", f"a few MB (<= {TARGETS['file_mb']:.0f})", size_mb <= TARGETS["file_mb"]),
        ("loading it", f"{1000 * used['load']:.1f} ms", f"well under 1 s (<= {TARGETS['load_s']} s)",
         used["load"] <= TARGETS["load_s"]),
        ("one advice, every option", f"{used['advice_ms']:.2f} ms (p95 {used['advice_p95_ms']:.2f})",
         f"<= {TARGETS['advice_ms']:.0f} ms", used["advice_ms"] <= TARGETS["advice_ms"]),
        (f"review of a whole game ({used['decisions']} decisions)", f"{used['review_ms']:.0f} ms",
         f"<= {TARGETS['review_ms']:.0f} ms", used["review_ms"] <= TARGETS["review_ms"]),
    ]
    for name, measured, target, ok in rows:
        print(f"  {name:<40} {measured:<24} {target:<28} {_verdict(ok)}")
    print(f"  anchor, same run: one turn for 2048 states, dense (252 x 462) products {used['dense_ms']:.0f} ms, "
          f"one die at a time {used['fast_ms']:.0f} ms ({used['dense_ms'] / max(used['fast_ms'], 1e-9):.1f}x)")
    return [(name, ok) for name, _, _, ok in rows]


if __name__ == "__main__":
    results = bench_coach()
    sys.exit(0)
