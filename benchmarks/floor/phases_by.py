"""Page faults per process kind and phase, from `perf script --show-task-events` of page-faults and
the lseek markers (phases.sh) on stdin: argv[1] the grades recorded, argv[2] (optional) phases
whose faults are also listed by the faulting code (or, MODE=data, by the data's mapping)."""

import collections
import os
import re
import sys

MODE = os.environ.get("MODE", "code")
GRADES = int(sys.argv[1]) if len(sys.argv) > 1 else 6
DETAIL = {int(x) if x.isdigit() else x for x in sys.argv[2].split(",")} if len(sys.argv) > 2 else set()
FORK = re.compile(r"PERF_RECORD_FORK\((\d+):(\d+)\):\((\d+):(\d+)\)")
EVENT = re.compile(r"\s*\S+\s+(\d+)\s.*?(page-faults|sys_enter_lseek)(.*)")
MARK = re.compile(r"fd: (0x)?([0-9a-f]+), offset: (0x)?([0-9a-f]+)")
DATA = re.compile(r"([0-9a-f]+) (.*?) \(([^)]*)\)")


def kind(marks: list) -> str:
    if 30 in marks and 25 in marks:
        return "runner"
    if 30 in marks:
        return "warm-up runner"
    if 20 in marks or 21 in marks:
        return "request process"
    if 40 in marks:
        return "root"
    if 1 in marks and 7 in marks:
        return "life"
    return f"other ({len(marks)} marks)"


def main() -> None:
    gen: dict = {}
    phase: dict = {}
    counts: dict = collections.defaultdict(collections.Counter)
    seen: dict = collections.defaultdict(list)
    detail: dict = collections.defaultdict(collections.Counter)
    forks = 0
    for line in sys.stdin:
        m = FORK.search(line)
        if m:
            pid, _, ppid, _ = map(int, m.groups())
            if pid != ppid:                  # (a process, not a thread; a pid reused is a new key)
                forks += 1
                gen[pid] = forks
                phase[(pid, forks)] = f"fork{phase.get((ppid, gen.get(ppid, 0)), '?')}"
            continue
        m = EVENT.match(line)
        if not m:
            continue
        key = (int(m.group(1)), gen.get(int(m.group(1)), 0))
        if m.group(2) == "sys_enter_lseek":
            a = MARK.search(m.group(3))
            if a and int(a.group(2), 16) in (0xFFFFFFFF, 0xFFFFFFFFFFFFFFFF):
                phase[key] = int(a.group(4), 16)
                seen[key].append(phase[key])
            continue
        at = phase.get(key, "start")
        counts[key][at] += 1
        if at in DETAIL:
            tail = line.split("page-faults:")[-1].strip()
            d = DATA.match(tail)
            if MODE == "data" and d:
                dso = d.group(3).split("/")[-1]
                detail[(key, at)][dso + " " + (d.group(2)[:40] if "lib" in dso else "")] += 1
            else:
                detail[(key, at)][tail[:80]] += 1
    by_kind = collections.defaultdict(list)
    for key in set(counts) | set(seen):
        by_kind[kind(seen.get(key, []))].append(key)
    for name, keys in sorted(by_kind.items()):
        total: collections.Counter = collections.Counter()
        for key in keys:
            total.update(counts[key])
        n, faults = len(keys), sum(total.values())
        print(f"{name}: {n} processes, {faults / n:.0f} faults each, {faults / GRADES:.0f} a grade")
        print("   " + "  ".join(f"{ph}:{total[ph] / n:.0f}" for ph in sorted(total, key=lambda x: (str(type(x)), x))))
    merged: dict = collections.defaultdict(collections.Counter)
    for (key, at), where in detail.items():
        merged[(kind(seen.get(key, [])), at)].update(where)
    for (name, at), where in sorted(merged.items(), key=str):
        n = len(by_kind[name])
        print(f"{name}, phase {at}: {sum(where.values()) / n:.0f} faults each")
        for what, count in where.most_common(25):
            print(f"    {count / n:5.1f} {what}")


if __name__ == "__main__":
    main()
