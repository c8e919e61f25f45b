"""A cold `python -m autograder grade FILE --assignment NAME --format gradescope` process, by phase.

    python benchmarks/floor/cold_phases.py [--runs N] [--python PY] [--repo DIR] [FILE]

Each run launches a fresh interpreter on this file's `--child` mode, which runs `autograder`'s
`__main__` exactly as `python -m autograder` does (the repository's folder first on sys.path),
with a few wrappers put on functions as their modules load (an import hook on six names: ~1 us an
import) and a timing plugin handed to pytest.main.  Each phase is the wall time from the launch
(the parent's clock just before the spawn) and the main process's CPU (all its threads) at that
point; the whole process tree's wall and CPU come from the parent, as `make bench` reads them
(`authoring.bench.measure.run_measured`: the children reaped under a subreaper).  Measurement only:
nothing in the kit imports this file.  Prints each phase's median over the runs, then the runs.
"""

from __future__ import annotations

import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def _child() -> None:
    import importlib.abc

    launched = float(os.environ.pop("COLD_PHASES_LAUNCH"))
    out_path = os.environ.pop("COLD_PHASES_OUT")
    events: list[tuple[str, float, float]] = [("launch", launched, 0.0)]

    def mark(name: str) -> None:
        events.append((name, time.time(), time.process_time()))

    mark("interpreter-up")

    def wrap(module, attr: str, before: str, after: str | None) -> None:
        fn = getattr(module, attr)

        def wrapper(*args, **kwargs):
            mark(before)
            try:
                return fn(*args, **kwargs)
            finally:
                if after:
                    mark(after)
        wrapper.__wrapped__ = fn
        setattr(module, attr, wrapper)

    class Timing:                       # a pytest plugin: the session's phases
        seen = False

        def pytest_configure(self, config):
            mark("pytest-configured")

        def pytest_sessionstart(self, session):
            mark("pytest-sessionstart")

        def pytest_collection_finish(self, session):
            mark("pytest-collected")

        def pytest_runtest_protocol(self, item, nextitem):
            if not Timing.seen:
                Timing.seen = True
                mark("first-check")
            if nextitem is None:
                mark("last-check")

        def pytest_sessionfinish(self, session):
            mark("pytest-sessionfinish")

        def pytest_unconfigure(self, config):
            mark("pytest-unconfigured")

    def patch(name: str, module) -> None:
        if name == "autograder.grading.coldstart":
            wrap(module, "template_first", "coldstart", "template-started")
        elif name == "autograder.cli":
            wrap(module, "_template_early", "cli-imported", "cli-template")
            wrap(module, "build_parser", "verb-imported", "parser-built")
            fn_end = module.end

            def end(code, quick):
                mark("run-returned")
                real_exit = os._exit

                def _exit(status):
                    mark("exit")
                    with open(out_path, "w") as out:
                        json.dump(events, out)
                    real_exit(status)
                os._exit = _exit
                try:
                    fn_end(code, quick)
                finally:        # (sys.exit: the slow path)
                    mark("exit")
                    with open(out_path, "w") as out:
                        json.dump(events, out)
            module.end = end
        elif name == "autograder.grading.grade_cmd":
            wrap(module, "load_for_grading", "run-start", "spec-loaded")
            wrap(module, "grade", "grade-start", "grade-returned")
        elif name == "autograder.grading.grade":
            wrap(module, "reference_program", "stream-start", None)
            wrap(module, "reference_outcomes", "refcache-start", "refcache-done")
            wrap(module, "_session", "session-start", "session-done")
        elif name in ("autograder.engine.program", "autograder.engine.sandbox"):
            cls = module.Program if name.endswith("program") else module.Sandbox
            marked = set()

            def once(method: str, before: str, after: str, every: bool = False) -> None:
                fn = getattr(cls, method)
                counts = [0]

                def wrapper(self, *args, **kwargs):
                    first = method not in marked
                    marked.add(method)
                    counts[0] += 1
                    n = f"#{counts[0]}" if every else ""
                    if first or every:
                        mark(before + n)
                    try:
                        return fn(self, *args, **kwargs)
                    finally:
                        if first or every:
                            mark(after + n)
                setattr(cls, method, wrapper)
            if name.endswith("program"):
                once("load_probe", "probe-start", "probe-done")
                once("prefetch", "plan-start", "plan-done")
            else:
                once("start", "sandbox-start", "sandbox-started", every=True)
                once("close", "sandbox-close", "sandbox-closed", every=True)
        elif name == "pytest":
            main = module.main

            def pytest_main(args=None, plugins=None):
                mark("pytest-main")
                return main(args, [*(plugins or []), Timing()])
            module.main = pytest_main

    class Hook(importlib.abc.MetaPathFinder):
        names = {"autograder.cli", "autograder.grading.coldstart", "autograder.grading.grade_cmd", "autograder.grading.grade", "pytest",
                 "autograder.engine.plugin", "autograder.engine.program", "autograder.engine.sandbox"}

        def find_spec(self, fullname, path, target=None):
            if fullname not in self.names:
                return None
            self.names.discard(fullname)
            if fullname == "autograder.engine.plugin":
                mark("plugin-import-start")
            for finder in sys.meta_path:
                if finder is self:
                    continue
                spec = finder.find_spec(fullname, path, target) if hasattr(finder, "find_spec") else None
                if spec is not None:
                    break
            else:
                return None
            loader = spec.loader
            real_exec = loader.exec_module

            def exec_module(module):
                real_exec(module)
                if fullname == "autograder.engine.plugin":
                    mark("plugin-imported")
                patch(fullname, module)
            loader.exec_module = exec_module
            return spec

    sys.meta_path.insert(0, Hook())
    repo = os.environ.pop("COLD_PHASES_REPO")
    sys.path[0] = repo                  # as `python -m` from the repository's folder
    os.chdir(repo)
    sys.argv = ["autograder", *sys.argv[2:]]
    import runpy

    runpy.run_module("autograder", run_name="__main__", alter_sys=True)


ORDER = ["interpreter-up", "coldstart", "cli-imported", "cli-template", "template-started", "verb-imported", "parser-built", "run-start",
         "spec-loaded", "grade-start", "stream-start", "refcache-start", "session-refcache", "refcache-done", "plugin-import-start",
         "plugin-imported", "session-start", "probe-start", "sandbox-start", "sandbox-started", "probe-done", "plan-start", "plan-done", "pytest-main", "pytest-configured", "pytest-sessionstart",
         "pytest-collected", "session-first-planned", "session-first-checked", "first-check", "last-check", "pytest-sessionfinish", "pytest-unconfigured",
         "session-done", "grade-returned", "run-returned", "exit", "reaped"]


def _one(python: str, repo: str, file: str, assignment: str) -> dict:
    import tempfile

    sys.path.insert(0, repo)
    from autograder.authoring.bench.measure import _become_subreaper, run_measured

    _become_subreaper()
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as tmp:
        out = tmp.name
    trace = out + ".trace"
    env = dict(os.environ, COLD_PHASES_OUT=out, COLD_PHASES_REPO=repo, AUTOGRADER_BATCH_TRACE=trace)
    env["COLD_PHASES_LAUNCH"] = repr(time.time())
    result, wall, cpu = run_measured([python, os.path.abspath(__file__), "--child", "grade", file,
                                      "--assignment", assignment, "--format", "gradescope"], repo, env=env)
    if result.returncode != 0:
        raise SystemExit(f"exit {result.returncode}: {result.stderr[-2000:]}")
    with open(out) as f:
        events = json.load(f)
    os.unlink(out)
    launched = events[0][1]
    phases = {name: (at - launched, cpu_) for name, at, cpu_ in events[1:]}
    if os.path.exists(trace):       # the kit's own trace points (grading.tracing): the plan run ahead's end
        with open(trace) as f:
            for line in f:
                event = json.loads(line)
                phases.setdefault(event["event"], (event["at"] - launched, event["cpu"]))
        os.unlink(trace)
    phases["reaped"] = (wall, None)
    return {"phases": phases, "wall": wall, "cpu": cpu, "score": json.loads(result.stdout)["score"]}


def main() -> None:
    if sys.argv[1:2] == ["--child"]:
        _child()
        return
    import argparse
    import statistics

    parser = argparse.ArgumentParser()
    parser.add_argument("file", nargs="?", default=None)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--python", default=None)
    parser.add_argument("--repo", default=os.path.dirname(os.path.dirname(HERE)))
    parser.add_argument("--assignment", default="yahtzee")
    parser.add_argument("--json", action="store_true", help="print each run's phases as one JSON line")
    parser.add_argument("--base", default=None, help="A/B: a base worktree, run alternately with --repo "
                        "(--runs pairs, the order flipped every other pair); prints each pair and the medians")
    args = parser.parse_args()
    if args.base:
        _pairs(args)
        return
    repo = os.path.abspath(args.repo)
    python = args.python or os.path.join(repo, ".venv", "bin", "python")
    file = args.file or os.path.join(repo, "solution", "yahtzee.py")
    runs = [_one(python, repo, file, args.assignment) for _ in range(args.runs)]
    if args.json:
        for run in runs:
            print(json.dumps(run))
    print(f"{repo}: {len(runs)} runs, load {os.getloadavg()[0]:.1f}; whole tree wall "
          f"{statistics.median(r['wall'] for r in runs):.3f} s, CPU {statistics.median(r['cpu'] for r in runs):.3f} s "
          f"(medians); walls {' '.join(format(r['wall'], '.3f') for r in runs)}")
    print(f"{'phase':<22}{'wall from launch':>17}{'main CPU':>10}")
    rows = []
    names = ORDER + sorted({n for r in runs for n in r["phases"] if "#" in n})
    for name in names:
        got = [r["phases"][name] for r in runs if name in r["phases"]]
        if got:
            cpus = [g[1] for g in got if g[1] is not None]
            rows.append((statistics.median(g[0] for g in got), name, statistics.median(cpus) if cpus else None))
    for wall, name, cpu in sorted(rows):        # (the threads' phases interleave with the main thread's)
        print(f"{name:<22}{wall:>17.3f}{'' if cpu is None else format(cpu, '.3f'):>10}")


KEYS = ("template-started", "sandbox-started#1", "plan-done", "pytest-collected", "session-first-checked", "exit")


def _pairs(args) -> None:
    """A/B: the base (A) and the branch (B), alternating; each pair's whole wall and tree CPU, the
    main process's CPU at its exit, and the walls of KEYS; then the medians and pair differences."""
    import statistics

    trees = {"A": os.path.abspath(args.base), "B": os.path.abspath(args.repo)}
    got: dict[str, list[dict]] = {"A": [], "B": []}
    for i in range(args.runs):
        for side in ("AB" if i % 2 == 0 else "BA"):
            repo = trees[side]
            python = args.python or os.path.join(repo, ".venv", "bin", "python")
            file = args.file or os.path.join(repo, "solution", "yahtzee.py")
            got[side].append(_one(python, repo, file, args.assignment))
        a, b = got["A"][-1], got["B"][-1]
        print(f"pair {i + 1} load {os.getloadavg()[0]:.1f}: wall {a['wall']:.3f} -> {b['wall']:.3f}  tree CPU "
              f"{a['cpu']:.3f} -> {b['cpu']:.3f}  main CPU {a['phases']['exit'][1]:.3f} -> {b['phases']['exit'][1]:.3f}  "
              + "  ".join(f"{k} {a['phases'].get(k, (0,))[0]:.3f}->{b['phases'].get(k, (0,))[0]:.3f}" for k in KEYS[:3]),
              flush=True)

    def stat(name, get):
        a = [get(r) for r in got["A"]]
        b = [get(r) for r in got["B"]]
        d = [y - x for x, y in zip(a, b)]
        lower = sum(x < 0 for x in d)
        print(f"{name:<24} A {statistics.median(a):.3f}  B {statistics.median(b):.3f}  pair differences median "
              f"{statistics.median(d):+.3f} (B lower in {lower} of {len(d)})")
    print(f"medians over {args.runs} pairs (A {trees['A']}, B {trees['B']}):")
    stat("whole wall", lambda r: r["wall"])
    stat("tree CPU", lambda r: r["cpu"])
    stat("main CPU at exit", lambda r: r["phases"]["exit"][1])
    for key in KEYS:
        stat(key, lambda r, key=key: r["phases"].get(key, (float("nan"),))[0])


if __name__ == "__main__":
    main()
