"""Page faults of a warm grade by process kind, by what the fault does and where it lands (pass 21,
`lifepages`).  Run as root from the repository root:

    .venv/bin/python benchmarks/floor/faultkinds.py [GRADES] [cpu]

Records GRADES + 1 grades of the reference (the first, cold, left out) with the tracepoint
`exceptions:page_fault_user` (its error code says what the kernel does: a write to a present page
= a copy on write; a write to an absent page = a zero-filled page, or a private file page copied;
a read or fetch of an absent page = a file page mapped or the zero page) and classes each fault
by the template's own mapping its address lies in (read from /proc while the grades run: the
inherited heap, libpython's data, ...) or "new" (a mapping made after the template's snapshot:
pymalloc arenas, the stack of a pid 1, ...).  Process kinds by depth below the template: root
template / student roots / lives / request processes.  With "cpu": a second run sampling the
CPU (`perf record -g`, kernel call chains) and the share of each kind's samples under each
fault path (copy on write, anonymous first touch, file map, fork's page tables, exit's teardown),
as ms a grade.
"""

import bisect
import collections
import os
import re
import subprocess
import sys
import tempfile

GRADES = int(sys.argv[1]) if len(sys.argv) > 1 else 5
CPU = "cpu" in sys.argv[2:]
PY = os.environ.get("FAULTS_PY", ".venv/bin/python")   # (another interpreter: its venv's python)

GRADER = r"""
import os, sys
sys.path.insert(0, os.getcwd())
from autograder.engine.program import close_references
from autograder.engine.sandbox import template_scope
from autograder.grading.grade import grade, grade_stream
path = "autograder/assignments/yahtzee/reference.py"
me = os.getpid()
def maps():
    for pid in os.listdir("/proc"):
        try:
            if pid.isdigit() and open(f"/proc/{pid}/stat").read().split(") ")[1].split()[1] == str(me):
                if b"template" in open(f"/proc/{pid}/cmdline", "rb").read():
                    return pid, open(f"/proc/{pid}/maps").read()
        except OSError:
            pass
    return None, ""
with template_scope():
    grade(path, "yahtzee", stage="all")
    pid, text = maps()
    open(sys.argv[1], "w").write(f"{pid}\n{text}")
    grade_stream((path for _ in range(int(sys.argv[2]))), lambda r: None, "yahtzee", "all")
close_references()
"""

KINDS = {1: "template", 2: "root template", 3: "student root", 4: "life", 5: "request process"}


def kind_of(depth: int) -> str:
    return KINDS.get(depth, f"depth {depth}")


def read_maps(path: str):
    with open(path) as f:
        pid = f.readline().strip()
        spans = []
        for line in f:
            cols = line.split()
            lo, hi = (int(x, 16) for x in cols[0].split("-"))
            name = cols[5] if len(cols) > 5 else "[anon]"
            name = name.rsplit("/", 1)[-1]
            if name.startswith("libpython"):
                name = "libpython " + ("text" if "x" in cols[1] else "data" if "w" in cols[1] else "ro")
            elif name.startswith("lib") or name.startswith("ld-"):
                name = "other libs " + ("text" if "x" in cols[1] else "data")
            elif name.endswith(".so") or ".cpython-" in name:
                name = "extension modules"
            spans.append((lo, hi, name))
    spans.sort()
    return pid, spans


def where(spans, starts, addr: int) -> str:
    i = bisect.bisect_right(starts, addr) - 1
    if i >= 0 and spans[i][0] <= addr < spans[i][1]:
        return spans[i][2]
    return "new mapping"


def what(code: int) -> str:
    if code & 0x10:
        return "fetch (text)"
    if code & 1 and code & 2:
        return "copy on write"
    if code & 2:
        return "first write"
    return "first read"


def tree(lines):
    parent = {}
    fork = re.compile(r"PERF_RECORD_FORK\((\d+):(\d+)\):\((\d+):(\d+)\)")
    for line in lines:
        m = fork.search(line)
        if m:
            pid, _, ppid, _ = map(int, m.groups())
            if pid != ppid:
                parent[pid] = ppid
            continue
        yield line, parent


def depth(parent, pid: int) -> int:
    d = 0
    while pid in parent:
        pid = parent[pid]
        d += 1
    return d


def faults(tmp: str) -> None:
    data, mapsf = os.path.join(tmp, "f.data"), os.path.join(tmp, "maps")
    script = os.path.join(tmp, "g.py")
    open(script, "w").write(GRADER)
    subprocess.run(["perf", "record", "-q", "-e", "exceptions:page_fault_user", "-o", data, "--",
                    PY, script, mapsf, str(GRADES)], check=True, stdout=subprocess.PIPE)
    tpid, spans = read_maps(mapsf)
    if os.environ.get("FAULTS_KEEP"):          # PREFIX: the record and the template's maps kept
        import shutil
        shutil.copy(mapsf, os.environ["FAULTS_KEEP"] + ".maps")
        shutil.copy(data, os.environ["FAULTS_KEEP"] + ".data")
    starts = [s[0] for s in spans]
    out = subprocess.run(["perf", "script", "-i", data, "--show-task-events", "-F", "pid,time,trace"],
                         capture_output=True, text=True).stdout.splitlines()
    ev = re.compile(r"\s*(\d+)\s+([\d.]+):\s+address=(0x[0-9a-f]+|\S+).*error_code=0x([0-9a-f]+)")
    count = collections.defaultdict(collections.Counter)
    procs = collections.defaultdict(set)
    written = collections.defaultdict(set)      # pid -> pages it wrote (a write fault on each)
    again = collections.Counter()               # kind -> writes to a page this very process wrote before
    for line, parent in tree(out):
        m = ev.match(line)
        if not m:
            continue
        pid = int(m.group(1))
        try:
            addr = int(m.group(3), 16)
        except ValueError:
            addr = -1
        d = depth(parent, pid)
        k = kind_of(d)
        procs[k].add(pid)
        code = int(m.group(4), 16)
        count[k][(what(code), where(spans, starts, addr) if d >= 2 else "-")] += 1
        if code & 2:            # a page written twice faults twice only if a fork of its own shared it again
            if addr >> 12 in written[pid]:
                again[k] += 1
            written[pid].add(addr >> 12)
    # the first grade's processes (cold) out: each kind's per-grade figure from its GRADES warm ones
    print(f"template pid {tpid}; {GRADES} warm grades (the first grade's processes included: "
          f"figures below are per grade over {GRADES + 1})")
    n = GRADES + 1
    for k in ("student root", "life", "request process", "root template"):
        if k not in count:
            continue
        total = sum(count[k].values())
        print(f"\n{k}: {len(procs[k])} processes, {total / n:.0f} faults a grade, "
              f"{total / len(procs[k]):.0f} a process; {again[k] / n:.0f} a grade on pages it had written "
              f"before a fork of its own")
        by_what = collections.Counter()
        for (w, _), c in count[k].items():
            by_what[w] += c
        print("   " + ", ".join(f"{w} {c / n:.0f}" for w, c in by_what.most_common()))
        for (w, m), c in sorted(count[k].items(), key=lambda x: -x[1])[:14]:
            print(f"   {c / n:7.0f}  {w:14s} {m}")


PATHS = [  # (label, kernel function whose samples (callee included) count)
    ("copy on write", ("do_wp_page",)),
    ("first touch (anon)", ("do_anonymous_page",)),
    ("file map", ("do_fault", "filemap_map_pages")),
    ("fork: page tables", ("copy_page_range", "dup_mmap")),
    ("exit: teardown", ("exit_mmap", "__mmput", "mmput", "unmap_vmas", "zap_pte_range", "free_pgtables")),
]


ENTRIES = ("__x64_sys_", "asm_exc_", "asm_sysvec", "ret_from_fork", "syscall_exit_to_user_mode", "irqentry_exit")


def cpu(tmp: str) -> None:
    data, mapsf = os.path.join(tmp, "c.data"), os.path.join(tmp, "maps2")
    script = os.path.join(tmp, "g.py")
    subprocess.run(["perf", "record", "-q", "-F", "4999", "-g", "-e", "cpu-clock", "-o", data, "--",
                    PY, script, mapsf, str(GRADES)], check=True, stdout=subprocess.PIPE)
    out = subprocess.run(["perf", "script", "-i", data, "--show-task-events", "-F", "pid,period,ip,sym"],
                         capture_output=True, text=True).stdout.splitlines()
    head = re.compile(r"^\s*(\d+)\s+(\d+)\s*$")
    total = collections.Counter()
    by = collections.defaultdict(collections.Counter)
    other = collections.defaultdict(collections.Counter)
    parent, pid, period, stack = {}, None, 0, []

    def flush():
        if pid is None:
            return
        k = kind_of(depth(parent, pid))
        total[k] += period
        if not stack or not stack[0][0].startswith("ffffffff"):
            by[k]["user"] += period           # (the sample's own instruction in user space)
            return
        syms = {sym for _, sym in stack}
        for label, names in PATHS:
            if any(n in syms for n in names):
                by[k][label] += period
                return
        by[k]["other kernel"] += period
        entry = [sym for _, sym in stack if sym.startswith(ENTRIES)]
        other[k][entry[-1] if entry else stack[-1][1]] += period
    for line, parent in tree(out):  # noqa: B007  (tree's parent map, read by flush)
        m = head.match(line)
        if m:
            flush()
            pid, period, stack = int(m.group(1)), int(m.group(2)), []
            continue
        cols = line.split()
        if len(cols) >= 2 and pid is not None:
            stack.append((cols[0], cols[1].split("+")[0]))
    flush()
    n = GRADES + 1
    print(f"\nCPU samples (ms a grade over {n} grades; perf's own overhead included)")
    for k in ("student root", "life", "request process", "template", "root template", "depth 0"):
        if total[k]:
            parts = ", ".join(f"{lab} {by[k][lab] / 1e6 / n:.2f}" for lab, _ in PATHS + [("other kernel", 0), ("user", 0)])
            print(f"  {k}: {total[k] / 1e6 / n:.1f} ms: {parts}")
            print("     other kernel, by entry: " + ", ".join(f"{e} {v / 1e6 / n:.2f}" for e, v in other[k].most_common(8)))


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        faults(tmp)
        if CPU:
            cpu(tmp)


if __name__ == "__main__":
    main()
