#!/bin/bash
# Page faults per process depth over 5 warm grades (run from the repository root).
# depth 1 = template, 2 = student roots, 3 = lives + compile helpers, 4 = fresh runners / shared workers / fresh forks;
# with the root template (pass 14) a student's processes are one deeper: 2 = the root template (and the
# reference's lives), 3 = student roots, 4 = lives, 5 = their request processes.
# Usage: bash benchmarks/floor/faults.sh (from the repository root)
set -e
cat > /tmp/faults_$$.py <<'PY'
import sys, os; sys.path.insert(0, os.getcwd())
from autograder.engine.program import close_references
from autograder.engine.sandbox import template_scope
from autograder.grading.grade import grade, grade_stream
path = "autograder/assignments/yahtzee/reference.py"
with template_scope():
    grade(path, "yahtzee", stage="all")
    grade_stream((path for _ in range(5)), lambda r: None, "yahtzee", "all")
close_references()
PY
perf record -q -e page-faults -c 1 -o /tmp/faults_$$.data -- .venv/bin/python /tmp/faults_$$.py
perf script -i /tmp/faults_$$.data --show-task-events 2>/dev/null | python3 -c '
import sys,re,collections
parent={}; faults=collections.Counter()
for line in sys.stdin:
    m=re.search(r"PERF_RECORD_FORK\((\d+):(\d+)\):\((\d+):(\d+)\)",line)
    if m:
        pid,tid,ppid,ptid=map(int,m.groups())
        if pid!=ppid: parent[pid]=ppid
        continue
    m=re.match(r"\s*\S+\s+(\d+)\s.*page-faults",line)
    if m: faults[int(m.group(1))]+=1
def depth(p):
    d=0
    while p in parent: p=parent[p]; d+=1
    return d
by=collections.defaultdict(list)
for p in set(faults)|set(parent): by[depth(p)].append(p)
for d in sorted(by):
    ps=by[d]; tot=sum(faults[p] for p in ps)
    print("depth",d,"procs",len(ps),"faults",tot,"mean",tot//max(1,len(ps)),sorted((faults[p] for p in ps),reverse=True)[:10])
print("(6 grades: 1 warm-up + 5)")'
rm -f /tmp/faults_$$.py /tmp/faults_$$.data
