"""perf samples per process depth (0 the grader, 1 the template, 2 student roots, 3 lives, 4 request
processes; with the root template, pass 14: 2 the root template and the reference's lives, 3
student roots, 4 their lives, 5 request processes) and each depth's top symbols:

    perf record -q -F 4000 -e cpu-clock -o /tmp/p.data -- .venv/bin/python benchmarks/floor/prof_run.py
    perf script -i /tmp/p.data --show-task-events -F comm,pid,tid,event,ip,sym,dso | python3 benchmarks/floor/prof_an.py
"""

import collections
import re
import sys

FORK = re.compile(r"PERF_RECORD_FORK\((\d+):(\d+)\):\((\d+):(\d+)\)")
SAMPLE = re.compile(r"\s*(\S+)\s+(\d+)/\d+\s+cpu-clock:\s+([0-9a-f]+)\s+(.*?)\s+\((.*)\)\s*$")


class ForkTree:
    """Which process forked which, from `perf script --show-task-events` lines (rp_parts.py too)."""

    def __init__(self) -> None:
        self.parent: dict[int, int] = {}

    def saw(self, line: str) -> bool:
        """Whether LINE is a fork event (a process's, not a thread's: recorded)."""
        if "PERF_RECORD_FORK" not in line:
            return False
        pid, _, ppid, _ = map(int, FORK.search(line).groups())
        if pid != ppid:
            self.parent[pid] = ppid
        return True

    def depth(self, pid: int) -> int:
        """PID's depth below the recorded command (0: the command itself)."""
        d = 0
        while pid in self.parent:
            pid, d = self.parent[pid], d + 1
        return d


def main() -> None:
    tree = ForkTree()
    samples: collections.Counter = collections.Counter()
    dso = collections.defaultdict(collections.Counter)
    sym = collections.defaultdict(collections.Counter)
    for line in sys.stdin:
        if tree.saw(line):
            continue
        m = SAMPLE.match(line)
        if m:
            pid = int(m.group(2))
            samples[pid] += 1
            lib = "kernel" if "kernel" in m.group(5) else m.group(5).split("/")[-1]
            dso[pid][lib] += 1
            sym[pid][(lib, m.group(4).split("+")[0])] += 1

    by = collections.defaultdict(list)
    for pid in samples:
        by[tree.depth(pid)].append(pid)
    total = sum(samples.values())
    for d in sorted(by):
        pids = by[d]
        n = sum(samples[p] for p in pids)
        libs: collections.Counter = collections.Counter()
        syms: collections.Counter = collections.Counter()
        for p in pids:
            libs.update(dso[p])
            syms.update(sym[p])
        print(f"depth {d}: procs {len(pids)} samples {n} ({100 * n / total:.1f}%)", dict(libs.most_common(4)))
        for (lib, s), c in syms.most_common(14):
            print(f"     {c:6d} {lib[:12]:12s} {s[:60]}")


if __name__ == "__main__":
    main()
