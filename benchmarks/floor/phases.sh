#!/bin/bash
# Page faults of each process kind by phase of its boot (docs/floor.md, "Boot pages"), as root:
#   bash benchmarks/floor/phases.sh [TREE]        (default: this tree)
# Copies TREE (no .venv, .git) to a temporary folder, puts temporary lseek(-1, N, 0) markers at
# each phase boundary of a student root, a life and a fresh runner there (markers.py), records
# 6 grades of the reference (1 + 5 warm) with `perf record -e page-faults -c 1` and the markers'
# syscalls, and prints, per process kind, the faults a process after each marker (phases_by.py;
# "forkN": from its fork, in a parent that was past marker N).  The markers add ~5-10 faults
# where they raise (an OSError each).  MODE=data (env) with a phase list as phases_by.py's second
# argument groups those phases' faults by the data's mapping (perf record -d).
set -e
HERE=$(cd "$(dirname "$0")" && pwd)
TREE=$(cd "${1:-$HERE/../..}" && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
(cd "$TREE" && tar cf - --exclude=./.venv --exclude=./.git --exclude='__pycache__' .) | (cd "$WORK" && tar xf -)
ln -s "$TREE/.venv" "$WORK/.venv"
python3 "$HERE/markers.py" "$WORK"
cat > "$WORK/grades.py" <<'PY'
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
cd "$WORK"
perf record -q ${MODE:+-d} -e page-faults -c 1 -e syscalls:sys_enter_lseek -o "$WORK/p.data" -- .venv/bin/python grades.py
perf script -i "$WORK/p.data" ${MODE:+-F comm,pid,time,event,addr,ip,sym,dso,trace} --show-task-events 2>/dev/null \
    | python3 "$HERE/phases_by.py" 6 ${PHASES:-}
