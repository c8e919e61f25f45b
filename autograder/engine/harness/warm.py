"""The request path run in the template on trusted, constant requests before its snapshot
(template_main): each process forked from it then inherits quickened, specialized bytecode and
filled caches instead of warming them itself, on pages it would copy on write.

Everything here is the harness's own constant code and data (no config, no source, no reference,
nothing of a student): a made-up module run as requests are (decoded, scripted stdin and dice,
a substitution from a made-up reference, the call, the result encoded and scanned as the zygote
scans it).  What it leaves is undone before the snapshot is taken, or is the same in every fork
(docs/threat-model.md, "The request path warmed in the template")."""

import _signal
import gc
import os
import random
import shutil
import signal
import sys

from .answers import _clean_status, _scan, _tail, _whole
from .audit import _AUDIT_ON
from .base import _dumps, _loads_line
from .clean import CleanState
from .lines import write_all
from .run import _NAMES, Run
from .zygote import Zygote

WARM_ROUNDS = 10      # CPython 3.11 quickens a code object after 8 calls or loop turns, then specializes

_WARM_MODULE = '''\
import random


class Box:
    def __init__(self, size, name="box"):
        self.size = size
        self.name = name

    def grow(self, by):
        self.size += by
        return self.size


def helper(values):
    return sorted(values)


def play(rounds, names=None):
    total = 0
    for _ in range(rounds):
        total += random.randint(1, 6)
    answer = input("Keep which dice? ")
    print("rolled", total, answer)
    return {"total": total, "kept": helper([3, 1, 2]), "answer": answer, "pair": (1, 2.5), "none": None}


def fails(x):
    return {"a": 1}[x]


print("loaded")
'''

_WARM_REFERENCE = '''\
def helper(values):
    return sorted(values, reverse=True)


def play(rounds, names=None):
    return rounds
'''

_WARM_REQUESTS = (
    b'{"seq":1,"kind":"call","func":"play","args":[2],"kwargs":{},"stdin":["1 2"],"seed":null,'
    b'"dice":[1,2,3],"fresh":true,"timeout":10.0,"wall":10.0}',
    b'{"seq":2,"kind":"call","func":"play","args":[1],"kwargs":{"names":null},"stdin":["x"],"seed":null,'
    b'"dice":[4],"fresh":false,"timeout":10.0,"wall":10.0,"substitute":{"names":["helper"],"keep":["play"]}}',
    b'{"seq":3,"kind":"call","func":"Box.grow","args":[2],"kwargs":{},"stdin":null,"seed":5,"dice":null,'
    b'"fresh":false,"timeout":10.0,"wall":10.0,"instance":{"init":[1],"kwargs":{"name":"b"},"state":{}}}',
    b'{"seq":4,"kind":"call","func":"fails","args":["b"],"kwargs":{},"stdin":null,"seed":null,"dice":null,'
    b'"fresh":false,"timeout":10.0,"wall":10.0}',
    b'{"seq":5,"kind":"call","func":"helper","args":[[2,1]],"kwargs":{},"stdin":null,"seed":null,"dice":null,'
    b'"fresh":true,"timeout":10.0,"wall":10.0,"substitute":{"names":["play"],"keep":["helper"]}}',
    b'{"seq":6,"kind":"script","func":null,"args":[],"kwargs":{},"stdin":["3"],"seed":null,"dice":null,'
    b'"fresh":true,"timeout":10.0,"wall":10.0}',
)


def warm_template(filename, limits):
    """The request path (warm_request_path) and a zygote's serving (warm_serving) run here on the
    constant requests, everything they left undone (the template, before its snapshot)."""
    cfg = {"filename": filename, "limits": limits}
    modules = dict(sys.modules)
    state = random.getstate()
    alarm = _signal.getsignal(signal.SIGALRM)
    audit = _AUDIT_ON[0]
    out = os.open(os.devnull, os.O_WRONLY | os.O_CLOEXEC)
    _signal.signal(signal.SIGALRM, _signal.SIG_IGN)    # (their soft timers must not end the template)
    _AUDIT_ON[0] = True         # (no audit hook in the template: each request process installs its own)
    gc.freeze()             # (the collections of their clean checks walk only what they made)
    try:
        code = compile(_WARM_MODULE, filename, "exec", dont_inherit=True)
        _NAMES["_REFERENCE"] = compile(_WARM_REFERENCE, "<reference>", "exec", dont_inherit=True)
        clean = CleanState(filename, patched=True)      # (a snapshot of its own: the template takes
        warm_request_path(cfg, code, out, clean)        # its own after this)
        warm_serving(cfg, code, out, clean)
    finally:
        _NAMES["_REFERENCE"] = None
        _AUDIT_ON[0] = audit
        signal.setitimer(signal.ITIMER_REAL, 0)
        _signal.signal(signal.SIGALRM, alarm)
        os.close(out)
        for name in [name for name in sys.modules if name not in modules]:
            del sys.modules[name]
        sys.modules.update(modules)
        random.setstate(state)
        gc.collect()
        gc.unfreeze()


def warm_serving(cfg, code, out, clean):
    """A zygote's serving of a batch of the constant requests, here, with a request process of its
    own forked from here (the constant module only; killed and reaped before this returns)."""
    workdir = f"/tmp/warm-{os.getpid()}-{os.urandom(8).hex()}"
    os.mkdir(workdir, 0o700)
    zyg = Zygote.__new__(Zygote)
    zyg.cfg, zyg.ctl, zyg.ctl_fd, zyg.res_fd, zyg.applied = cfg, None, None, out, {}
    zyg.workdir, zyg.run_prefix, zyg.private_tmp, zyg.use_proc = workdir, os.path.join(workdir, "run-"), False, True
    zyg.worker = zyg.runner = zyg.kids = zyg.tmp_watch = zyg.aside = None
    zyg.cpu, zyg.out, zyg.out_since, zyg.worker_gen, zyg.nrun = 0.0, bytearray(), 0.0, 0, 0
    zyg.code, zyg.compile_error = code, None
    zyg.clean = clean if clean.versions is not None else None
    try:
        fresh = [line for line in _WARM_REQUESTS if b'"fresh":true' in line]
        shared = [line for line in _WARM_REQUESTS if b'"fresh":false' in line]
        lines = [_renumbered(line, i) for i, line in enumerate(fresh * 4 + shared * 4, 1)]
        zyg.handle_batch({"op": "batch", "lines": len(lines)}, [(_loads_line(line), line) for line in lines])
    finally:
        zyg.stop_worker()
        zyg.stop_runner()
        zyg.kill_descendants(keep=())
        if zyg.kids is not None:
            os.close(zyg.kids)
        shutil.rmtree(workdir, ignore_errors=True)


def _renumbered(line, seq):
    return b'{"seq":%d,%s' % (seq, line.split(b",", 1)[1])


def warm_request_path(cfg, code, out, clean):
    """The constant requests run WARM_ROUNDS times here as a request process runs them: decoded,
    run, encoded, scanned as the zygote scans an answer; a fresh one as the fresh runner does
    (worker.runner_loop: CLEAN's guard, restore and check), a shared one as the shared worker."""
    stem = os.path.splitext(os.path.basename(cfg["filename"]))[0]
    base = guard = None
    if clean.versions is not None:
        base, guard = clean.base(), clean.untouched()
    for _ in range(WARM_ROUNDS):
        shared = {}
        for line in _WARM_REQUESTS:
            req = _loads_line(line)
            req["nonce"] = "0123456789abcdef"
            fresh = req.get("kind") == "script" or req.get("fresh", True)
            run = Run(req, cfg, out)
            run.guard = guard if fresh else None
            res = run.execute(code, None, None if fresh else shared)
            res["nonce"] = req["nonce"]
            if fresh and base is not None:
                clean.restore(stem, guard)
                run.checked(lambda this: clean.same(base, this))
            res["retire" if fresh else "recycle"] = False
            data = _dumps(res).encode("ascii") + b"\n"
            write_all(out, data)
            tail = _tail(req["nonce"], "retire" if fresh else "recycle")
            raw, _ = _scan(bytearray(data), None, None, req["seq"], _whole(req["seq"], tail))
            _clean_status(raw)
