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
import signal
import sys

from .answers import _clean_status, _scan, _tail, _whole
from .audit import _AUDIT_ON
from .base import _dumps, _loads_line
from .lines import write_all
from .run import _NAMES, Run

WARM_ROUNDS = 12      # CPython 3.11 quickens a code object after 8 calls or loop turns

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
    b'"dice":[1,2,3],"fresh":true,"timeout":60.0,"wall":60.0}',
    b'{"seq":2,"kind":"call","func":"play","args":[1],"kwargs":{"names":null},"stdin":["x"],"seed":null,'
    b'"dice":[4],"fresh":false,"timeout":60.0,"wall":60.0,"substitute":{"names":["helper"],"keep":["play"]}}',
    b'{"seq":3,"kind":"call","func":"Box.grow","args":[2],"kwargs":{},"stdin":null,"seed":null,"dice":null,'
    b'"fresh":false,"timeout":60.0,"wall":60.0,"instance":{"init":[1],"kwargs":{"name":"b"},"state":{}}}',
    b'{"seq":4,"kind":"call","func":"fails","args":["b"],"kwargs":{},"stdin":null,"seed":null,"dice":null,'
    b'"fresh":false,"timeout":60.0,"wall":60.0}',
    b'{"seq":5,"kind":"call","func":"helper","args":[[2,1]],"kwargs":{},"stdin":null,"seed":null,"dice":null,'
    b'"fresh":true,"timeout":60.0,"wall":60.0,"substitute":{"names":["play"],"keep":["helper"]}}',
    b'{"seq":6,"kind":"script","func":null,"args":[],"kwargs":{},"stdin":["3"],"seed":null,"dice":null,'
    b'"fresh":true,"timeout":60.0,"wall":60.0}',
)


def warm_request_path(filename, limits):
    """Run the constant requests WARM_ROUNDS times here (the template, before its snapshot), as a
    request process runs them, then undo what they left: the module they made in sys.modules,
    the reference bound for their substitution, the random state, SIGALRM's disposition (ignored
    meanwhile: their soft timer must not end the template), the audit hook not installed."""
    cfg = {"filename": filename, "limits": limits}
    modules = dict(sys.modules)
    state = random.getstate()
    alarm = _signal.getsignal(signal.SIGALRM)
    audit = _AUDIT_ON[0]
    out = os.open(os.devnull, os.O_WRONLY | os.O_CLOEXEC)
    _signal.signal(signal.SIGALRM, _signal.SIG_IGN)
    _AUDIT_ON[0] = True         # (no hook in the template: a request process installs its own)
    try:
        code = compile(_WARM_MODULE, filename, "exec", dont_inherit=True)
        _NAMES["_REFERENCE"] = compile(_WARM_REFERENCE, "<reference>", "exec", dont_inherit=True)
        for _ in range(WARM_ROUNDS):
            shared = {}
            for line in _WARM_REQUESTS:
                req = _loads_line(line)
                req["nonce"] = "0123456789abcdef"
                fresh = req.get("kind") == "script" or req.get("fresh", True)
                run = Run(req, cfg, out)
                res = run.execute(code, None, None if fresh else shared)
                res["nonce"] = req["nonce"]
                res["retire" if fresh else "recycle"] = False
                data = _dumps(res).encode("ascii") + b"\n"
                write_all(out, data)
                tail = _tail(req["nonce"], "retire" if fresh else "recycle")
                raw, _ = _scan(bytearray(data), None, None, req["seq"], _whole(req["seq"], tail))
                _clean_status(raw)
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
