"""The kit's clean-state check of a fresh request (harness/clean.py CleanState.restore + same), timed
in this plain process (no sandbox: it reads only this process), with its parts, and the floor of
each part where the syscall alone is the floor.  Run: .venv/bin/python bench/clean_check.py [N]"""
import gc
import os
import sys
import time

sys.path.insert(0, os.getcwd())
import types  # noqa: E402

from autograder.engine import harness  # noqa: E402

# The harness is one program (its parts share one namespace): loaded here as the sandbox does.
clean = types.ModuleType("harness")
sys.modules["harness"] = clean
exec(compile(harness.source(), "harness", "exec"), clean.__dict__)

N = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
cs = clean.CleanState("yahtzee.py")
gc.freeze()                                          # as a request process: its inherited heap frozen
base = cs.base()
guard = cs.untouched()


class Run:                                           # what same() reads of a request's Run
    dirty = False


Run.guard = guard


def per(fn, n=N):
    fn()
    t0 = time.process_time()
    for _ in range(n):
        fn()
    return (time.process_time() - t0) / n * 1e6


def whole():
    cs.restore("yahtzee", Run.guard)
    OK[0] += bool(cs.same(Run.base, Run))


OK = [0]


def main():
    guard = Run.guard
    cs.restore("yahtzee", guard)                         # once: lazily made caches (a class's, this script's
    cs.same(base, Run)                                   # names) written before the base the timing uses
    Run.base = cs.base()
    guard = cs.untouched()
    Run.guard = guard
    parts = {
        "restore + same (the whole check)": whole,
        "  _settings()": clean._settings,
        "  _fds() (listdir /proc/self/fd)": clean._fds,
        "  gc.collect() (nothing new)": gc.collect,
        "  versions() (every watched dict's tag)": cs.versions,
        "  ids.same (lists, sets by identity)": lambda: cs.ids.same(Run.base[6]),
        "  _same_handlers() (by identity)": lambda: clean._same_handlers(Run.base[5]),
        "  _peak() (getrusage)": clean._peak,
        "  guard.holds()": guard.holds,
    }
    print(f"watched dicts: {len(cs.dicts)}; lists and sets: {len(cs.ids.containers)}; guard: {guard is not None and guard.tags is not None}")
    for name, fn in parts.items():
        print(f"{name:45s} {min(per(fn) for _ in range(3)):8.1f} us")
    # floors: the syscalls alone
    import resource  # noqa: E401,E402
    import signal
    print(f"{'floor: getdents of /proc/self/fd (os.listdir)':45s} {per(lambda: os.listdir('/proc/self/fd')):8.1f} us")
    print(f"{'floor: 8 getrlimit + 2 getitimer + sigmask':45s} "
          f"{per(lambda: ([resource.getrlimit(r) for r in clean._RLIMITS], [signal.getitimer(t) for t in clean._ITIMERS], signal.pthread_sigmask(signal.SIG_BLOCK, ()))):8.1f} us")


main()
print(f"checks that found the process clean: {OK[0]}")
