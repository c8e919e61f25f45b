"""The zygote's CPU per request, by part of its request path, in situ: a COPY of a tree (argv[1])
with temporary thread-CPU counters (time.thread_time_ns at each part's boundary, summed by the
zygote and sent back in each batch_end message), then batches of trivial requests (as kit_trip.py:
shared, then fresh) and a real plan's life (capture_plan.py's JSON, optional) run there.

    .venv/bin/python benchmarks/floor/zyg_parts.py TREE [PLAN.json LIFE] [M]

Each boundary is a clock_gettime syscall (~0.3-0.5 us here, charged to the part before it), so
the parts add up to ~3-5 us more than kit_trip.py's zygote figure.  The anchors are those of main
f1941e8 (they assert: a moved anchor fails loudly)."""

import os
import shutil
import subprocess
import sys
import tempfile

PARTS = ("line read", "line parsed", "before the send", "line sent (nonce, writev)", "answer awaited (poll)",
         "answer read (wait_for but its poll)", "settled", "kill_descendants", "clean_files",
         "trailer made and held (say)")
N = 16          # counters a kind (shared, fresh); the last one counts requests

PATCHES = {
    "lines.py": [("import mmap\nimport os\n",
                  f"import mmap\nimport os\nimport time as _ptime\n_P = [0] * (2 * {N})\n_K = [0]\n_PC = _ptime.thread_time_ns\n")],
    "answers.py": [("            events = poller.poll(1000 * wait)\n",
                    "            _pa = _PC()\n            events = poller.poll(1000 * wait)\n            _P[_K[0] + 4] += _PC() - _pa\n")],
    "zygote.py": [
        ("        for line in () if refused else lines:\n            req = _request(line)\n",
         "        _t0 = _PC()\n        for line in () if refused else lines:\n            _t1 = _PC()\n            req = _request(line)\n"
         f"            _K[0] = 0 if isinstance(req, dict) and not (req.get('kind') == 'script' or req.get('fresh', True)) else {N}\n"
         "            _P[_K[0] + 0] += _t1 - _t0\n            _P[_K[0] + 1] += _PC() - _t1\n"),
        ("            if not self.handle(req, line) or self.cpu > ",
         f"            _ok = self.handle(req, line)\n            _P[_K[0] + {N - 1}] += 1\n            _t0 = _PC()\n"
         "            if not _ok or self.cpu > "),
        ("        end = {\"t\": \"batch_end\", \"ran\": ran}\n", "        end = {\"t\": \"batch_end\", \"ran\": ran, \"parts\": list(_P)}\n"),
        ("            raw, info = None, {\"internal\": traceback.format_exc()}\n        self.cpu = time.process_time()\n",
         "            raw, info = None, {\"internal\": traceback.format_exc()}\n        _t9 = _PC()\n        self.cpu = time.process_time()\n"),
        ("        return (raw is not None and not info.get(\"killed\")",
         "        _P[_K[0] + 9] += _PC() - _t9\n        return (raw is not None and not info.get(\"killed\")"),
        ("    def run_fresh(self, req, line=None):\n        self.nrun += 1\n",
         f"    def run_fresh(self, req, line=None):\n        _P[{N + 2}] -= _PC()\n        self.nrun += 1\n"),
        ("    def run_shared(self, req, line=None):\n        wk = self.worker\n",
         "    def run_shared(self, req, line=None):\n        _P[2] -= _PC()\n        wk = self.worker\n"),
        ("        nonce = os.urandom(8).hex()\n", "        _P[_K[0] + 2] += _PC()\n        _t3 = _PC()\n        nonce = os.urandom(8).hex()\n"),
        ("        raw, info = self.wait_for(wk.pid, wk.res_r, wk.pidfd, wk.buf, dl, True, msg.get(\"seq\"), tail, wk.poller)\n",
         "        _t4 = _PC()\n        _P[_K[0] + 3] += _t4 - _t3\n"
         "        raw, info = self.wait_for(wk.pid, wk.res_r, wk.pidfd, wk.buf, dl, True, msg.get(\"seq\"), tail, wk.poller)\n"
         "        _P[_K[0] + 5] += _PC() - _t4\n        _P[_K[0] + 6] -= _PC()\n"),
        ("            self.stop_runner()\n        self.kill_descendants(keep=self.request_pids())\n        self.clean_files(rundir)\n",
         "            self.stop_runner()\n        _t6 = _PC()\n        _P[_K[0] + 6] += _t6\n        self.kill_descendants(keep=self.request_pids())\n"
         "        _t7 = _PC()\n        _P[_K[0] + 7] += _t7 - _t6\n        self.clean_files(rundir)\n        _P[_K[0] + 8] += _PC() - _t7\n"),
        ("            self.stop_worker()\n        self.kill_descendants(keep=self.request_pids())\n        info[\"ran_in\"] = ran_in\n",
         "            self.stop_worker()\n        _t6 = _PC()\n        _P[_K[0] + 6] += _t6\n        self.kill_descendants(keep=self.request_pids())\n"
         "        _P[_K[0] + 7] += _PC() - _t6\n        info[\"ran_in\"] = ran_in\n"),
    ],
}

DRIVER = r'''
import json, os, sys
sys.path.insert(0, os.getcwd())
from autograder.engine import sandbox as S
from autograder.engine.sandbox import Request, Sandbox, template_scope
got = []
_parse = S._parse
def parse(line):
    msg = _parse(line)
    if isinstance(msg, dict) and "parts" in msg:
        got.append(msg["parts"])
    return msg
S._parse = parse
M, plan, life = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
src = open("autograder/assignments/yahtzee/reference.py").read()
runs = []
for fresh in (False, True):
    runs.append(("trivial " + ("fresh" if fresh else "shared"), None,
                 [Request("call", "score", ["Chance", [1, 2, 3, 4, 5]], {}, None, None, None, fresh, None)] * M))
if plan != "-":
    reqs = [Request(**{k: v for k, v in r.items() if k not in ("life", "how")}) for r in json.load(open(plan)) if r["life"] == life]
    runs.append((f"plan life {life}", src, reqs))
out = {}
with template_scope():
    for name, ref, reqs in runs:
        s = Sandbox(src, "yahtzee.py", reference=ref)
        s.run_batch(reqs[:8])
        base = got[-1] if got else None
        for _ in range(max(1, 400 // len(reqs))):
            s.run_batch(reqs)
        s.close()
        out[name] = [y - x for x, y in zip(base, got[-1])] if base is not None and got[-1] is not base else None
print(json.dumps(out))
'''


def main() -> None:
    tree = os.path.abspath(sys.argv[1])
    plan, life = (sys.argv[2], sys.argv[3]) if len(sys.argv) > 3 else ("-", "0")
    m = sys.argv[4] if len(sys.argv) > 4 else (sys.argv[2] if len(sys.argv) == 3 else "400")
    work = tempfile.mkdtemp(prefix="zyg_parts-")
    try:
        shutil.copytree(tree, work, dirs_exist_ok=True, symlinks=True,
                        ignore=shutil.ignore_patterns(".venv", ".git", "__pycache__"))
        os.symlink(os.path.join(tree, ".venv"), os.path.join(work, ".venv"))
        for name, pairs in PATCHES.items():
            path = os.path.join(work, "autograder/engine/harness", name)
            text = open(path).read()
            for old, new in pairs:
                assert text.count(old) == 1, (name, old)
                text = text.replace(old, new)
            open(path, "w").write(text)
        with open(os.path.join(work, "driver.py"), "w") as f:
            f.write(DRIVER)
        res = subprocess.run([os.path.join(work, ".venv/bin/python"), "driver.py", m, os.path.abspath(plan) if plan != "-" else "-", life],
                             cwd=work, capture_output=True, text=True, check=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    import json
    for name, d in json.loads(res.stdout.strip().splitlines()[-1]).items():
        if d is None:
            print(name, ": no batch_end read")
            continue
        for kind, off in (("shared", 0), ("fresh", N)):
            n = d[off + N - 1]
            if n:
                parts = [d[off + i] / n / 1e3 for i in range(len(PARTS))]
                parts[5] -= parts[4]        # (the wait's counter holds its polls too)
                print(f"{name}, {kind} ({n} requests): {sum(parts):.1f} us = "
                      + ", ".join(f"{p} {v:.1f}" for p, v in zip(PARTS, parts)))


if __name__ == "__main__":
    main()
