#!/bin/bash
# Every figure of FLOOR.md, in one go (as root, from the worktree, ~4 min; run with nice on a shared
# machine and note `uptime` next to each figure: the machine's other tenants move them 10-20 %).
#   bash benchmarks/floor/run_all.sh            -> prints each figure; perf part needs linux-perf
set -e
cd "$(dirname "$0")/../.."
PY=.venv/bin/python
B=benchmarks/floor
ALLOW=$($PY -c "import sys; sys.path.insert(0,'.'); from autograder.engine.harness import isolation; print(' '.join(p for p,_ in isolation.allowlist()))" 2>/dev/null || echo "/usr/lib /usr/lib64 /etc/ld.so.cache $($PY -c 'import sys; print(sys.base_prefix)')")
$PY -c "import sys; sys.path.insert(0,'.'); from autograder.engine import seccomp; open('/tmp/floor_filter.bpf','wb').write(seccomp.filter_bpf() or b'')"
gcc -O2 -Wall -o /tmp/floor_life benchmarks/floor/life.c
gcc -O2 -Wall -o /tmp/floor_trip benchmarks/floor/trip.c
cg() { rmdir /sys/fs/cgroup/*/floor-* 2>/dev/null || true; }
echo "== load"; uptime
echo "== the kit now: a warm four-stage grade (split.py, 20 grades), pinned to one core and not"
for i in 1 2; do nice -n 5 $PY $B/split.py autograder/assignments/yahtzee/reference.py 20 | head -1
                 nice -n 5 taskset -c 1 $PY $B/split.py autograder/assignments/yahtzee/reference.py 20 | head -1; done
echo "== the plan and the student's own code"
nice -n 5 $PY benchmarks/floor/capture_plan.py /tmp/floor_plan.json
nice -n 5 $PY benchmarks/floor/student_code.py /tmp/floor_plan.json 30
echo "== the harness around a call, least Python (with the student's code), with and without the reference's body"
nice -n 5 $PY benchmarks/floor/harness_floor.py /tmp/floor_plan.json 20
nice -n 5 $PY benchmarks/floor/harness_floor.py /tmp/floor_plan.json 20 nosub
echo "== the kit in situ: a request's path by process, and a student's five lives"
nice -n 5 $PY benchmarks/floor/kit_trip.py 400 3
for n in 5 1; do nice -n 5 $PY benchmarks/floor/kit_life.py 20 $n; done
echo "== the clean-state check (the kit's, in this process) and its syscalls"
nice -n 5 $PY benchmarks/floor/clean_check.py 3000
gcc -O2 -Wall -o /tmp/floor_cleanc benchmarks/floor/cleanc.c
nice -n 5 /tmp/floor_cleanc 20000
echo "== the grader: its floor with every outcome given, and the kit's own grader with every outcome given"
nice -n 5 $PY benchmarks/floor/grader_floor.py /tmp/floor_plan.json 50
nice -n 5 $PY benchmarks/floor/grader_given.py 20
echo "== a page copied on write, and the kit's faults per process depth (5 warm grades)"
gcc -O2 -Wall -o /tmp/floor_cow benchmarks/floor/cow.c
nice -n 5 /tmp/floor_cow 300 1000
command -v perf >/dev/null && nice -n 5 bash $B/faults.sh 2>/dev/null | tail -6
echo "== a life: C (kernel's part), then Python"
for sk in none net cgroup seccomp req net,ipc,mnt,pid,cgroup,seccomp,tmpfs,proc,sysctl,uid,rlimit,req; do
  nice -n 5 /tmp/floor_life 200 $sk /tmp/floor_filter.bpf $ALLOW | grep -v "^root setup" || true; cg; done
nice -n 5 /tmp/floor_life 200 none /tmp/floor_filter.bpf $ALLOW | grep "^root setup"; cg
for args in "none none none" "kit none none" "kit run none" "none none all" "kit none all" "kit touch none" "none none net"; do
  nice -n 5 $PY -S -I benchmarks/floor/life.py 200 $args; cg; done
echo "== a fork + exit alone, by the forking process's size"
for mb in 0 20 100; do nice -n 5 $PY -S -I benchmarks/floor/fork.py 500 $mb; done
echo "== a request's round trip: C and Python, one request per grader write and 40, on two cores and pinned to one"
for b in 1 40; do nice -n 5 /tmp/floor_trip 20000 $b; nice -n 5 taskset -c 1 /tmp/floor_trip 20000 $b
                  nice -n 5 $PY benchmarks/floor/trip.py 20000 $b; nice -n 5 taskset -c 1 $PY benchmarks/floor/trip.py 20000 $b; done
echo "== the machine below the kit: a syscall, a timer, a hand-over on one CPU and across two, caches after it (vm.c)"
gcc -O2 -Wall -o /tmp/floor_vm benchmarks/floor/vm.c
nice -n 5 /tmp/floor_vm
echo "== which CPU each process of a grade runs on (cpus.py, 11 grades, unpinned)"
command -v perf >/dev/null && nice -n 5 $PY $B/cpus.py -- $PY $B/split.py autograder/assignments/yahtzee/reference.py 10 | grep -v "^{"
echo "== the kit's grade by process depth (perf, 21 grades)"
if command -v perf >/dev/null; then
  nice -n 5 perf record -q -F 4000 -e cpu-clock -o /tmp/floor_perf.data -- $PY $B/prof_run.py >/dev/null 2>&1
  perf script -i /tmp/floor_perf.data --show-task-events -F comm,pid,tid,event,ip,sym,dso 2>/dev/null | python3 $B/prof_an.py | grep "^depth"
fi
uptime
