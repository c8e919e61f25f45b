"""Which CPU each process of a grade runs on, and what its wake-ups cost: perf's scheduler events
over a command, by process depth below the command's first process.

    sudo .venv/bin/python benchmarks/floor/cpus.py -- .venv/bin/python benchmarks/floor/split.py REF 10
    sudo .venv/bin/python benchmarks/floor/cpus.py -- taskset -c 0 .venv/bin/python ...

Depth 0 is the command (a grader), 1 its sandbox template (and the grader's threads), 2 the
template's root template, 3 a student root, 4 a life (its zygote), 5 a request process.  In a
`grade-all` run, 0 is the parent, 1 its fork server and the templates it booted for the workers,
2 the workers and those templates' root templates, 3 student roots, 4 lives, 5 request processes.  For each depth: processes, wake-ups it received from a process on another CPU
("cross": the waker's CPU is not the CPU the wakee is put on, an inter-processor interrupt),
the same CPU, its migrations, and the CPUs it was switched in on.  Run as root (perf -a).
Measures only; nothing of the kit imports it.
"""

import collections
import os
import re
import subprocess
import sys
import tempfile

EVENTS = ["sched:sched_switch", "sched:sched_waking", "sched:sched_wakeup_new", "sched:sched_migrate_task",
          "sched:sched_process_fork"]
_HEAD = re.compile(r"^\s*(?P<comm>.+?)\s+(?P<pid>\d+)\s+\[(?P<cpu>\d+)\]\s+[\d.]+:\s+(?P<ev>[\w:]+):\s+(?P<rest>.*)$")


def main() -> None:
    argv = sys.argv[1:]
    if argv and argv[0] == "--":
        argv = argv[1:]
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "perf.data")
        pidfile = os.path.join(tmp, "pid")
        rc = subprocess.call(["perf", "record", "-q", "-a", "-o", data] + sum((["-e", e] for e in EVENTS), [])
                             + ["--", "sh", "-c", 'echo $$ > "$0"; exec "$@"', pidfile] + argv)
        first = int(open(pidfile).read())
        text = subprocess.run(["perf", "script", "-i", data, "-F", "comm,pid,cpu,time,event,trace"],
                              capture_output=True, text=True).stdout
    parent: dict[int, int] = {}
    lines = text.splitlines()
    for line in lines:                          # the tree: every fork, the command's own process first
        m = _HEAD.match(line)
        if not m:
            continue
        if m["ev"] == "sched:sched_process_fork":
            f = re.search(r"pid=(\d+) child_comm=(.*) child_pid=(\d+)", m["rest"])
            if f:
                parent[int(f[3])] = int(f[1])

    def depth(pid: int) -> int | None:
        d = 0
        while pid != first:
            pid = parent.get(pid, -1)
            if pid == -1:
                return None
            d += 1
        return d

    def tid_depth(pid: int) -> int | None:
        return depth(pid)

    procs: dict[int, set] = collections.defaultdict(set)
    cross, same, mig = collections.Counter(), collections.Counter(), collections.Counter()
    on: dict[int, collections.Counter] = collections.defaultdict(collections.Counter)
    waker_cross = collections.Counter()
    migrants = collections.Counter()
    outside = collections.Counter()        # cross-CPU wake-ups of ours by a process not ours, by its name
    for line in lines:
        m = _HEAD.match(line)
        if not m:
            continue
        ev, rest, cpu = m["ev"], m["rest"], int(m["cpu"])
        if ev in ("sched:sched_waking", "sched:sched_wakeup_new"):
            f = re.search(r"pid=(\d+) .*target_cpu=(\d+)", rest)
            if not f:
                continue
            d = tid_depth(int(f[1]))
            if d is None:
                continue
            procs[d].add(int(f[1]))
            if int(f[2]) != cpu:
                cross[d] += 1
                if m["pid"] != "0" and tid_depth(int(m["pid"])) is None:
                    outside[re.sub(r"[\d/:.-]+$", "", m["comm"].strip())] += 1
                waker_cross[(tid_depth(int(m["pid"])) if m["pid"] != "0" else "idle", d)] += 1
            else:
                same[d] += 1
        elif ev == "sched:sched_migrate_task":
            f = re.search(r"pid=(\d+) .*orig_cpu=(\d+) dest_cpu=(\d+)", rest)
            if f and (d := tid_depth(int(f[1]))) is not None:
                mig[d] += 1
                migrants[(d, int(f[1]), m["comm"].strip())] += 1
        elif ev == "sched:sched_switch":
            f = re.search(r"next_comm=.* next_pid=(\d+)", rest)
            if f and (d := tid_depth(int(f[1]))) is not None:
                procs[d].add(int(f[1]))
                on[d][cpu] += 1
    print(f"perf rc {rc}; command's pid {first}; processes seen {sum(len(p) for p in procs.values())}")
    print("depth  procs  wakeups cross/same  migrations  switched in on (cpu: count)")
    for d in sorted(procs):
        print(f"{d:5d}  {len(procs[d]):5d}  {cross[d]:7d}/{same[d]:<7d}  {mig[d]:10d}  {dict(sorted(on[d].items()))}")
    print("cross-CPU wake-ups of ours by others (their names):", dict(outside.most_common(6)))
    print("most migrated (depth, pid, the comm that moved it):", dict(migrants.most_common(8)))
    for (d, pid, _), k in migrants.most_common(3):
        chain = [pid]
        while chain[-1] in parent and chain[-1] != first:
            chain.append(parent[chain[-1]])
        print(f"  {pid} (depth {d}, {k} moves): its ancestry {chain}")
    print("cross-CPU wake-ups by (waker depth, wakee depth):",
          dict(sorted(waker_cross.items(), key=lambda kv: -kv[1])[:12]))


if __name__ == "__main__":
    main()
