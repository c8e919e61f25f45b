"""Where the grader process's CPU of a warm four-stage grade goes, part by part, without cProfile
(thread CPU around each part; measurement only, nothing imports it).

    .venv/bin/python benchmarks/floor/grader_parts.py [N] [FILE] [replay|firstseen|untraced] [detail]

Run from a tree's root with that tree's Python.  A stream of N grades of FILE in one session, as
split.py makes it (FILE a folder: its entries in order, N times over, as a worker grades a class).  MODE: replay (split.py's: from the second grade on, a check whose answers are
the ones it passed with is given its verdict, verdicts.py), firstseen (every grade traced and run,
as a submission no earlier one answered alike: the verdicts are dropped before each grade), untraced
(every check run, none traced: plugin.VERDICTS off, as a single grade() since pass 21).
Prints the grading thread's parts and the sandbox-starts thread; with DETAIL, the request path's
parts too (their wrappers add ~1-2 us a call to the plan's figure: read those as upper bounds).
"""

from __future__ import annotations

import collections
import os
import sys
import threading
import time

sys.path.insert(0, os.getcwd())

from autograder.engine import ahead, launch, plugin, verdicts  # noqa: E402
from autograder.engine import sandbox as sandbox_module  # noqa: E402
from autograder.engine.program import Program, close_references  # noqa: E402
from autograder.engine.sandbox import Sandbox, template_scope  # noqa: E402
from autograder.grading.grade import grade, grade_stream  # noqa: E402

PARTS = collections.Counter()
CALLS = collections.Counter()
MAIN = threading.main_thread()
_depth = [0]


def timed(owner, name: str, label: str, nested: bool = False) -> None:
    """OWNER.NAME's CPU in the main thread under LABEL (NESTED: also inside another timed part)."""
    function = getattr(owner, name)

    def wrapper(*args, **kwargs):
        if threading.current_thread() is not MAIN or (_depth[0] and not nested):
            return function(*args, **kwargs)
        _depth[0] += 1
        started = time.thread_time()
        try:
            return function(*args, **kwargs)
        finally:
            PARTS[label] += time.thread_time() - started
            CALLS[label] += 1
            _depth[0] -= 1

    setattr(owner, name, wrapper)


STARTS = [0.0]


def _start_all(sandboxes: list) -> threading.Thread:
    """ahead._start_all with its thread's CPU counted."""
    def start() -> None:
        began = time.thread_time()
        for sandbox in sandboxes:
            try:
                sandbox.start()
            except Exception:    # noqa: BLE001
                pass
        STARTS[0] += time.thread_time() - began
    thread = threading.Thread(target=start, daemon=True, name="sandbox-starts")
    thread.start()
    return thread


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    path = sys.argv[2] if len(sys.argv) > 2 else "solution/yahtzee.py"
    mode = sys.argv[3] if len(sys.argv) > 3 else "replay"
    G = plugin.GradingPlugin
    if mode == "untraced":
        plugin.VERDICTS = False
    elif mode == "firstseen":
        begin = G.begin

        def fresh_verdicts(self, *args, **kwargs):
            self.verdicts = verdicts.Store()
            return begin(self, *args, **kwargs)
        G.begin = fresh_verdicts
    ahead._start_all = _start_all
    timed(G, "_probe_load", "the load probe (the own life's start, one request)")
    timed(Program, "prefetch", "the plan run ahead (requests sent, answers read)")
    timed(G, "_check_each", "the checks")
    timed(G, "retry_in_stage", "in-stage retries")
    timed(G, "no_points_for_nothing", "no points for nothing")
    timed(plugin, "excuse_repeats", "charge once (excuse_repeats)")
    timed(plugin, "excuse_same_difference", "charge once (excuse_same_difference)")
    timed(Program, "close", "the lives stopped")
    if len(sys.argv) > 4 and sys.argv[4] == "detail":
        detail()
    loop = [0.0]
    runtestloop = G.pytest_runtestloop

    def counted_loop(self, session):
        began = time.thread_time()
        try:
            return runtestloop(self, session)
        finally:
            loop[0] += time.thread_time() - began
    G.pytest_runtestloop = counted_loop
    paths = [os.path.join(path, entry) for entry in sorted(os.listdir(path))] if os.path.isdir(path) else [path]
    with template_scope():
        grade(paths[0], "yahtzee", stage="all")
        PARTS.clear()
        CALLS.clear()
        STARTS[0] = loop[0] = 0.0
        t0, p0 = time.thread_time(), time.process_time()
        grade_stream((p for _ in range(n) for p in paths), lambda row: None, "yahtzee", "all")
        t1, p1 = time.thread_time(), time.process_time()
    close_references()
    report(n * len(paths), mode, t1 - t0, p1 - p0, loop[0])


def detail() -> None:
    """The request path's parts, inside the plan's (nested)."""
    timed(Sandbox, "_collect", "  an answer read (_collect)", nested=True)
    sandbox_module.answer_by_bytes = (lambda f: lambda *a, **k: f(*a, **k))(sandbox_module.answer_by_bytes)
    timed(sandbox_module, "answer_by_bytes", "    answer_by_bytes", nested=True)
    timed(launch._Proc, "next_line", "    next_line", nested=True)
    timed(Sandbox, "_run_batch", "  a batch (_run_batch)", nested=True)
    timed(Program, "_try_aside", "  the try aside", nested=True)
    timed(Sandbox, "start", "  Sandbox.start (main thread)", nested=True)


def report(n: int, mode: str, thread: float, process: float, loop: float) -> None:
    print(f"{mode}, N={n}: process {process / n * 1000:.2f} ms a grade, grading thread {thread / n * 1000:.2f}, "
          f"sandbox-starts thread {STARTS[0] / n * 1000:.2f}")
    print(f"  the session outside its loop (pytest's start and collection, the refcache): "
          f"{(thread - loop) / n * 1000:.2f} ms a grade ({(thread - loop) * 1000:.0f} ms a session)")
    top = 0.0
    for label, cpu in PARTS.most_common():
        if not label.startswith(" "):
            top += cpu
            print(f"  {label:52s} {cpu / n * 1000:6.2f} ms")
    print(f"  {'the rest of the loop (begin, submission, report)':52s} {(loop - top) / n * 1000:6.2f} ms")
    for label, cpu in PARTS.most_common():
        if label.startswith(" "):
            print(f"  {label:52s} {cpu / n * 1000:6.2f} ms, {CALLS[label] / n:5.1f} a grade, "
                  f"{cpu / max(CALLS[label], 1) * 1e6:6.1f} us each")


if __name__ == "__main__":
    main()
