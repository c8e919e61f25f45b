#!/bin/bash
# A request process's CPU by part, in situ (rp_markers.py, rp_parts.py): run from a tree's root, as root.
# Copies the tree's tracked files to a temporary folder, puts the markers in, runs prof_run.py (21 warm
# grades of the reference) there under perf (the lseek tracepoint only), prints the parts a grade.
set -e
here=$(pwd); copy=$(mktemp -d /tmp/rp_parts.XXXXXX)
git ls-files -z | xargs -0 tar -c | tar -x -C "$copy"
python3 "$here/benchmarks/floor/rp_markers.py" "$copy"
cd "$copy"
perf record -q -e syscalls:sys_enter_lseek -o "$copy/p.data" -- "$here/.venv/bin/python" benchmarks/floor/prof_run.py >/dev/null
perf script -i "$copy/p.data" --show-task-events 2>/dev/null | python3 "$here/benchmarks/floor/rp_parts.py" 21
rm -rf "$copy"
