"""What a fork + exit costs by itself (no isolation), Python vs C-sized: a Python process forks a
child that exits at once (os._exit), N times
CPU of parent + children per fork.  HEAP: MB of
extra Python objects the parent holds first (page tables to copy, pages the parent then COWs).
Usage: .venv/bin/python bench/fork.py N [HEAP_MB] [touch]   (touch: the child runs gc.collect: walks its heap)"""
import gc
import os
import resource
import sys
import time

N = int(sys.argv[1]) if len(sys.argv) > 1 else 500
MB = int(sys.argv[2]) if len(sys.argv) > 2 else 0
TOUCH = len(sys.argv) > 3 and sys.argv[3] == "touch"
heap = [str(i) * 3 for i in range(MB * 1024 * 1024 // 64)]      # ~64 B an object
gc.freeze()


def cpu():
    a, b = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime, a.ru_minflt + b.ru_minflt


for rnd in (0, 1):
    (c0, f0), w0 = cpu(), time.perf_counter()
    for _ in range(N if rnd else 50):
        pid = os.fork()
        if pid == 0:
            if TOUCH:
                gc.unfreeze()
                gc.collect()
            os._exit(0)
        os.waitpid(pid, 0)
    (c1, f1), w1 = cpu(), time.perf_counter()
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
print(f"python fork+exit (rss {rss} MB{', child walks heap' if TOUCH else ''}): {(c1 - c0) / N * 1e3:.3f} ms CPU, "
      f"{(w1 - w0) / N * 1e3:.3f} ms wall, {(f1 - f0) / N:.0f} minor faults a fork (n={N})")
