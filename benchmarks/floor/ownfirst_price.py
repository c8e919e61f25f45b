"""Price issue 13's "own first" idea: a variant's planned requests tried in the student's own
life with its OWN functions, kept only when every outcome is identical to the reference's.

    .venv/bin/python benchmarks/floor/ownfirst_price.py samples/class [N]

Run from the repository root (docs/floor.md, "Pass 23 (`ownfirst`)").  Grades every submission
of the folder (yahtzee, all stages) once, warm, with Plan.prefetch wrapped: before the real
prefetch, each variant part of the plan (a substitution life's requests) runs, substitution
removed, in a scratch sandbox of the student's source (no reference in it), and is compared
request by request with the reference's outcome of the same request (its cache, the reference
being asked without substitution; a request no check asks the reference is run once in a scratch
sandbox of the reference).  Prints, per submission and per variant, whether it would be spared
(every outcome identical: the brief's rule) and under a looser rule (an upper bound only: status,
value, arguments and state after, the error's type), and the lives its grade started.  Then, per
variant part, the tree CPU of a life running the part's requests against a life running the load
probe alone (N of each, medians): what a failed try would add to the own life.  Last, N warm
grades of the reference with the stand-in tries on and off (TRY_ASIDE), alternating twice.
"""

import dataclasses
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, os.getcwd())

from autograder.authoring.bench.measure import tree_cpu  # noqa: E402
from autograder.engine import ahead, tries  # noqa: E402
from autograder.engine.keys import request_key  # noqa: E402
from autograder.engine.program import Program, close_references  # noqa: E402
from autograder.engine.protocol import Outcome  # noqa: E402
from autograder.engine.sandbox import Sandbox, template_scope  # noqa: E402
from autograder.grading.grade import grade, grade_stream  # noqa: E402

# What a check can read of an outcome (timing, workers and the trial's flags are not compared).
_IGNORED = {"elapsed", "cpu", "wait", "worker", "stopped_in", "wall_stopped", "endless"}
FIELDS = [f.name for f in dataclasses.fields(Outcome) if f.name not in _IGNORED]

rows: list[dict] = []
extra: dict = {}        # the reference's outcomes of the requests no check asks it (by request key)
current: dict = {}
starts = [0]
scratches = [0]     # the scratch sandboxes this tool starts (not the grade's lives)
_prefetch, _start = ahead.Plan.prefetch, Sandbox._start


def same(a, b) -> bool:
    return all(getattr(a, f) == getattr(b, f) for f in FIELDS)


def but_lines(a, b) -> bool:
    """same(), but for the error's line and trace (where the program raised: its own lines)."""
    def plain(error):
        return {k: v for k, v in error.items() if k not in ("line", "trace")} if isinstance(error, dict) else error
    return all(getattr(a, f) == getattr(b, f) for f in FIELDS if f != "error") and plain(a.error) == plain(b.error)


def loosely(a, b) -> bool:
    """An upper bound of a looser rule (NOT the brief's): status, value, the arguments and state
    after, and the error's type only (its message, line and trace, the output and events ignored)."""
    return (a.status, a.value, a.args_after, a.state_after, (a.error or {}).get("type")) == \
        (b.status, b.value, b.args_after, b.state_after, (b.error or {}).get("type"))


def prefetch(self, requests):
    if self._reference is not None and self._owner is None and requests and self.timing is not None:
        ref = self.timing
        current["plan"] = ahead._parts_of(requests)
        for part in ahead._parts_of(requests):
            if part.keep is None:
                continue
            own = [dataclasses.replace(r, substitute=None) for r in part.requests]
            expected = [ref._cache.get(request_key(r)) if ref._cache is not None else None for r in own]
            unknown = [r for r, e in zip(own, expected) if e is None and request_key(r) not in extra]
            if unknown:     # requests no check asks the reference: its outcome, run once (refcache could)
                scratches[0] += 1
                scratch = Program(ref._source, self.filename, limits=self.limits,
                                  hidden_paths=list(self._sandbox.hidden_paths))
                try:
                    for r, o in zip(unknown, scratch._sandbox.run_batch(unknown, budget=None)):
                        extra[request_key(r)] = o
                finally:
                    scratch.close()
            asked = sum(e is not None for e in expected)
            expected = [e if e is not None else extra.get(request_key(r)) for r, e in zip(own, expected)]
            scratches[0] += 1
            scratch = Program(self._source, self.filename, limits=self.limits,
                              hidden_paths=list(self._sandbox.hidden_paths))
            try:
                outcomes = scratch._sandbox.run_batch(own, budget=None)
            finally:
                scratch.close()
            n_lines = sum(1 for o, e in zip(outcomes, expected) if e is not None and but_lines(o, e))
            n_loose = sum(1 for o, e in zip(outcomes, expected) if e is not None and loosely(o, e))
            n_same = sum(1 for o, e in zip(outcomes, expected) if e is not None and same(o, e))
            first_diff = next((i for i, (o, e) in enumerate(zip(outcomes, expected))
                               if e is None or not same(o, e)), None)
            diff_field = None
            if first_diff is not None and expected[first_diff] is not None:
                o, e = outcomes[first_diff], expected[first_diff]
                diff_field = next(f for f in FIELDS if getattr(o, f) != getattr(e, f))
            current.setdefault("parts", []).append({
                "keep": part.keep, "n": len(own), "ran": len(outcomes), "same": n_same,
                "asked": asked, "first_diff": first_diff, "field": diff_field,
                "func": own[first_diff].func if first_diff is not None else None,
                "fresh": sum(part.fresh), "cpu_ms": 1000 * sum(o.cpu for o in outcomes),
                "spared": n_same == len(own), "loose": n_loose == len(own), "lines": n_lines == len(own)})
    return _prefetch(self, requests)


def start(self):
    starts[0] += 1
    return _start(self)


def life_against_requests(ref: str, n: int) -> None:
    """Per variant part of the plan: the tree CPU of a life of the reference's source running the
    part's requests (without substitution), against a life running the load probe alone; N times
    each, alternating.  The first is a spared variant's life and requests, the difference what its
    requests would add to the student's own life (a try's cost when it fails)."""
    from autograder.engine.program import LOAD_PROBE
    from autograder.engine.sandbox import Request

    parts = [part for part in (current.get("plan") or []) if part.keep is not None]
    source = Path(ref).read_text(encoding="utf-8")
    probe = Request("call", LOAD_PROBE, [], {}, None, None, None, True, None, None, None, False)

    def life(requests) -> float:
        t0 = tree_cpu()
        program = Program(source, "yahtzee.py")
        try:
            program._sandbox.run_batch(requests, budget=None)
        finally:
            program.close()
        return tree_cpu() - t0

    for part in parts:
        own = [dataclasses.replace(r, substitute=None) for r in part.requests]
        alone, whole = [], []
        for _ in range(n):
            alone.append(life([probe]))
            whole.append(life([probe, *own]))
        alone.sort()
        whole.sort()
        a, w = alone[len(alone) // 2] * 1000, whole[len(whole) // 2] * 1000
        print(f"  life keeping {'+'.join(part.keep)[:40]} ({len(own)} requests, {sum(part.fresh)} fresh): "
              f"probe alone {a:.1f} ms, with the requests {w:.1f} ms, the requests {w - a:.1f} ms (medians of {n})")


def main() -> None:
    folder, n = Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 10
    paths = sorted(p for p in folder.iterdir() if not p.name.startswith("."))
    ref = "autograder/assignments/yahtzee/reference.py"
    with template_scope():
        grade(ref, "yahtzee", stage="all")          # the reference's cache, warm
        ahead.Plan.prefetch, Sandbox._start = prefetch, start
        try:
            for path in paths:
                current.pop("parts", None)
                s0, c0 = starts[0], scratches[0]
                report = grade(path, "yahtzee", stage="all")
                lives = starts[0] - s0 - (scratches[0] - c0)     # (the scratch ones aside)
                rows.append({"name": path.name, "score": report.score, "lives": lives,
                             "parts": current.get("parts", [])})
        finally:
            ahead.Plan.prefetch, Sandbox._start = _prefetch, _start
        spared_all = loose_all = lives_all = 0
        for row in rows:
            parts = row.get("parts", [])
            spared = sum(p["spared"] for p in parts)
            spared_all += spared
            loose_all += sum(p["loose"] for p in parts)
            lives_all += row["lives"]
            print(f"{row['name']:14} score {row['score']:7.3f} lives {row['lives']}  spared {spared}/{len(parts)}  "
                  + "  ".join(f"[{'+'.join(p['keep'])[:28]}: {p['same']}/{p['n']} same, "
                              f"{p['asked']} asked, {p['cpu_ms']:.1f} ms"
                              + (f", first diff #{p['first_diff']} {p['func']} {p['field']}" if not p['spared'] else "") + "]"
                              for p in parts))
        print(f"variant lives spared: {spared_all} over {len(rows)} submissions "
              f"({spared_all / max(len(rows), 1):.2f} a submission; lives started {lives_all / max(len(rows), 1):.2f}); "
              f"with the looser rule (an upper bound, not the brief's) {loose_all}")
        by_part: dict[tuple, list[int]] = {}
        for row in rows:
            for p in row.get("parts", []):
                counts = by_part.setdefault(p["keep"], [0, 0, 0, 0, 0])
                counts[0] += 1
                counts[1] += p["spared"]
                counts[2] += p["loose"]
                counts[3] += p["n"]
                counts[4] += p["lines"]
        for keep, (seen, spared, loose, total, lines) in by_part.items():
            print(f"  variant keeping {'+'.join(keep)[:60]}: {total // max(seen, 1)} requests, spared {spared}/{seen}, "
                  f"but the error's line {lines}/{seen}, looser rule {loose}/{seen}")
        life_against_requests(ref, n)
        # A life against a try of the same requests: the reference's grade with tries on and off
        for aside in (True, False, True, False):
            tries.TRY_ASIDE = aside
            starts[0] = 0
            Sandbox._start = start
            t0, w0 = tree_cpu(), time.perf_counter()
            grade_stream((ref for _ in range(n)), lambda row: None, "yahtzee", "all")
            t1, w1 = tree_cpu(), time.perf_counter()
            Sandbox._start = _start
            print(f"reference, TRY_ASIDE={aside}: tree CPU {(t1 - t0) / n * 1000:.1f} ms a grade, "
                  f"wall {(w1 - w0) / n * 1000:.0f} ms, lives {starts[0] / n:.1f}")
        tries.TRY_ASIDE = True
    close_references()


if __name__ == "__main__":
    main()
