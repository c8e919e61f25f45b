"""Anonymous memory and huge pages of the sandbox tree by process depth, over N warm grades.

    .venv/bin/python benchmarks/floor/anon_depth.py [N]     (run from the repository root, as root)

A thread reads /proc/<pid>/smaps_rollup of every descendant of this process every ~2 ms while the
grades run and keeps each process's largest AnonHugePages (and its Anonymous and Rss at that
reading).  Depth 0 = this process (the grader), 1 = template, 2 = student roots, 3 = lives and compile helpers, 4 = request
processes (short ones may be missed).  Pass 14 (`hugeheap`, docs/floor.md) read it to see where
MADV_COLLAPSE made huge pages and whether they survived.
"""

import collections
import os
import sys
import threading
import time

sys.path.insert(0, os.getcwd())

from autograder.engine.program import close_references  # noqa: E402
from autograder.engine.sandbox import template_scope  # noqa: E402
from autograder.grading.grade import grade, grade_stream  # noqa: E402

PATH = "autograder/assignments/yahtzee/reference.py"
ME = os.getpid()


def parent(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def depth(pid: int | None) -> int | None:
    d = 0
    while pid and pid != ME and d < 10:
        pid, d = parent(pid), d + 1
    return d if pid == ME else None


def sample(seen: dict, stop: threading.Event) -> None:
    while not stop.is_set():
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                with open(f"/proc/{name}/smaps_rollup") as f:
                    text = f.read()
            except OSError:
                continue
            d = depth(int(name))
            if d is None:
                continue
            kb = {cols[0]: int(cols[1]) for cols in (line.split() for line in text.splitlines()[1:])}
            old = seen.get(int(name))
            if old is None or kb["AnonHugePages:"] > old[1]:
                seen[int(name)] = (d, kb["AnonHugePages:"], kb["Anonymous:"], kb["Rss:"])
        time.sleep(0.002)


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    seen: dict = {}
    stop = threading.Event()
    with template_scope():
        grade(PATH, "yahtzee", stage="all")
        reader = threading.Thread(target=sample, args=(seen, stop))
        reader.start()
        grade_stream((PATH for _ in range(n)), lambda row: None, "yahtzee", "all")
        stop.set()
        reader.join()
    close_references()
    by_depth = collections.defaultdict(list)
    for d, huge, anon, rss in seen.values():
        by_depth[d].append((huge, anon, rss))
    for d in sorted(by_depth):
        rows = by_depth[d]
        print(f"depth {d}: {len(rows)} processes, AnonHugePages max {max(r[0] for r in rows)} kB "
              f"mean {sum(r[0] for r in rows) / len(rows):.0f}, Anonymous mean {sum(r[1] for r in rows) / len(rows):.0f} kB, "
              f"Rss mean {sum(r[2] for r in rows) / len(rows):.0f} kB")


if __name__ == "__main__":
    main()
