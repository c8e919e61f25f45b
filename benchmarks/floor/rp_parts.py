"""A request process's CPU by part, in situ: the thread CPU between consecutive markers of
rp_markers.py, summed over the student request processes (process depth 4 before the root template, 5 with
it: the deepest markers) of a perf record of
prof_run.py (21 grades: divided by GRADES), with the first request of each process apart.

    bash benchmarks/floor/rp_parts.sh            (from the repository root: copy, markers, perf, this)
"""

import collections
import re
import sys

from prof_an import ForkTree  # (this folder: run as a script from it)

MARK = re.compile(r"^\s*\S+\s+(\d+)\s.*sys_enter_lseek.*fd: 0x(?:f{8}|f{16}), offset: 0x([0-9a-f]+)")


def main() -> None:
    grades = int(sys.argv[1]) if len(sys.argv) > 1 else 21
    tree = ForkTree()
    marks: dict[int, list[tuple[int, int]]] = collections.defaultdict(list)
    for line in sys.stdin:
        if tree.saw(line):
            continue
        m = MARK.search(line)
        if m:
            off = int(m.group(2), 16)
            marks[int(m.group(1))].append((off // 10**13, off % 10**13))

    marks = {p: v for p, v in marks.items() if tree.depth(p) >= 4}   # (only request processes mark)
    total: collections.Counter = collections.Counter()
    count: collections.Counter = collections.Counter()
    first: collections.Counter = collections.Counter()
    firsts = later = n_first = n_later = 0
    for ms in marks.values():
        for (a, ta), (b, tb) in zip(ms, ms[1:]):
            total[a, b] += tb - ta
            count[a, b] += 1
        starts = [i for i, (phase, _) in enumerate(ms) if phase == 1]
        for j, (i, k) in enumerate(zip(starts, starts[1:])):
            cost = ms[k][1] - ms[i][1]
            if j == 0:
                firsts, n_first = firsts + cost, n_first + 1
                for (a, ta), (b, tb) in zip(ms[i:k], ms[i + 1:k + 1]):
                    first[a, b] += tb - ta
            else:
                later, n_later = later + cost, n_later + 1
    print(f"{'phase':>9} {'us a grade':>11} {'n a grade':>10} {'us each':>8} {'first req':>10}")
    for (a, b), v in sorted(total.items(), key=lambda kv: -kv[1]):
        print(f"{a:>4}->{b:<4} {v / grades / 1e3:11.0f} {count[a, b] / grades:10.1f} {v / count[a, b] / 1e3:8.1f}"
              f" {first[a, b] / max(n_first, 1) / 1e3:10.0f}")
    print(f"between markers {sum(total.values()) / grades / 1e3:.0f} us a grade in {len(marks) / grades:.1f} request"
          f" processes; a first request {firsts / max(n_first, 1) / 1e3:.0f} us, a later one"
          f" {later / max(n_later, 1) / 1e3:.1f} us ({n_later / grades:.1f} a grade)")


if __name__ == "__main__":
    main()
