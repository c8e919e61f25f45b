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
from .base import _dumps, _loads_line, _real_urandom
from .clean import CleanState
from .lines import write_all
from .run import _NAMES, Run
from .zygote import Zygote

WARM_ROUNDS = 10      # CPython 3.11 quickens a code object after 8 calls or loop turns, then specializes
CHECK_ROUNDS = 3      # the rounds whose fresh requests get the runner's restore and check

# The functions the warm module and its reference share (the reference's play is its own).
_WARM_FUNCTIONS = '''\
def total(values):
    return sum(values)


def count(values, face):
    return values.count(face)


def best(values):
    return max(count(values, face) * face for face in range(1, 7))


def label(values):
    return " ".join(str(v) for v in values)


def parse(text):
    return [int(part) for part in text.split()]


def roll(values, keep):
    return [v if i in keep else random.randint(1, 6) for i, v in enumerate(values)]


'''

_WARM_MODULE = '''\
import random


class Box:
    def __init__(self, size, name="box"):
        self.size = size
        self.name = name

    def grow(self, by):
        self.size += by
        return self.size


''' + _WARM_FUNCTIONS + '''\
def play(rounds):
    card = {}
    for turn in range(rounds):
        dice = [random.randint(1, 6) for _ in range(5)]
        print("Dice:", label(dice))
        dice = roll(dice, parse(input("Keep which dice? ")))
        card[str(turn)] = total(dice)
        print("Scored", card[str(turn)], "points")
    return sum(card.values())


def fails(x):
    return {"a": 1}[x]


print("loaded")
'''

_WARM_REFERENCE = '''\
import random


''' + _WARM_FUNCTIONS + '''\
def play(rounds):
    return rounds
'''

# The shapes a plan's requests take (their specializations then hold in the forks): the load probe
# (no such function), a scripted game (stdin, a seed or dice) with and without the other functions
# substituted, a script, pure calls on lists with substitution, a try's stand-ins, a class's method
# on an instance, a call that raises.
_WARM_REQUESTS = tuple(b'{"seq":1,"kind":"%s","func":%s,"args":%s,"kwargs":{},"stdin":%s,"seed":%s,"dice":%s,'
                       b'"fresh":%s,"timeout":5.0,"wall":5.0%s}' % fields for fields in (
    (b"call", b'"__warm_probe__"', b"[]", b"null", b"null", b"null", b"true", b""),
    (b"call", b'"play"', b"[2]", b'["0 1","2 3 4"]', b"5", b"null", b"true",
     b',"substitute":{"names":["best","count","label","parse","roll","total"],"keep":["play"]}'),
    (b"call", b'"play"', b"[1]", b'["0"]', b"null", b"[1,2,3,4,5,6,1,2,3]", b"true", b""),
    (b"script", b"null", b"[]", b'["3"]', b"null", b"null", b"true", b""),
    (b"call", b'"total"', b"[[1,2,3,4,5]]", b"null", b"null", b"null", b"false",
     b',"substitute":{"names":["best","count","label","parse","play","roll"],"keep":["total"]}'),
    (b"call", b'"best"', b"[[2,2,3,3,3]]", b"null", b"null", b"null", b"false",
     b',"substitute":{"names":["count","label","parse","play","roll","total"],"keep":["best"]}'),
    (b"call", b'"label"', b"[[6,5,4,3,2]]", b"null", b"null", b"null", b"false",
     b',"substitute":{"names":["best","count","parse","play","roll","total"],"keep":["label"]}'),
    (b"call", b'"count"', b"[[1,1,2,6,6],6]", b"null", b"null", b"null", b"false",
     b',"substitute":{"names":["best","label","parse","play","roll","total"],"stand_in":true}'),
    (b"call", b'"roll"', b"[[1,2,3,4,5],[0,2]]", b"null", b"null", b"[6,6,6]", b"false",
     b',"substitute":{"names":["best","count","label","parse","play","total"],"keep":["roll"]}'),
    (b"call", b'"Box.grow"', b"[2]", b"null", b"7", b"null", b"false",
     b',"instance":{"init":[1],"kwargs":{"name":"b"},"state":{}}'),
    (b"call", b'"fails"', b'["b"]', b"null", b"null", b"null", b"false", b""),
))


def warm_template(filename, limits):
    """The request path (warm_request_path) and a zygote's serving (warm_serving) run here on the
    constant requests, everything they left undone (the template, before its snapshot)."""
    cfg = {"filename": filename, "limits": limits}
    modules = dict(sys.modules)
    state = random._inst.getstate()      # (the generator's own: not the patched module function)
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
        random._inst.setstate(state)
        gc.collect()
        gc.unfreeze()


def warm_serving(cfg, code, out, clean):
    """A zygote's serving of a batch of the constant requests, here, with a request process of its
    own forked from here (the constant module only; killed and reaped before this returns)."""
    _sweep(_WARM_DIRS)
    workdir = f"{_WARM_DIRS}{os.getpid()}-{_real_urandom(8).hex()}"
    os.mkdir(workdir, 0o700)
    zyg = Zygote.__new__(Zygote)        # (not its __init__: that is a life's boot)
    zyg._serving(cfg, None, None, out, {}, workdir, private_tmp=False, use_proc=True)
    zyg.code, zyg.compile_error = code, None
    zyg.clean = clean if clean.versions is not None else None
    try:
        fresh = [line for line in _WARM_REQUESTS if b'"fresh":true' in line]
        shared = [line for line in _WARM_REQUESTS if b'"fresh":false' in line]
        lines = [_renumbered(line, i) for i, line in enumerate(fresh * 3 + shared * 2, 1)]
        zyg.handle_batch({"op": "batch", "lines": len(lines)}, lines)
    finally:
        zyg.stop_worker()
        zyg.stop_runner()
        zyg.kill_descendants(keep=())
        if zyg.kids is not None:
            os.close(zyg.kids)
        shutil.rmtree(workdir, ignore_errors=True)


_WARM_DIRS = "/tmp/warm-"      # + pid-random: a warm-up's folder (removed by it, or by _sweep)


def _sweep(prefix):
    """The folders PREFIX<pid>-<random> of warm-ups whose template is gone (killed while warming:
    its finally never ran) removed; a live template's are its own."""
    top, stem = os.path.split(prefix)
    for name in os.listdir(top):
        pid = name[len(stem):].split("-", 1)[0]
        if name.startswith(stem) and pid.isdigit() and not os.path.exists(f"/proc/{pid}"):
            shutil.rmtree(os.path.join(top, name), ignore_errors=True)


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
    for round_ in range(WARM_ROUNDS):
        shared = {}
        checks = round_ < CHECK_ROUNDS      # (4 fresh requests a round: enough calls in 3 rounds)
        for line in _WARM_REQUESTS:
            req = _loads_line(line)
            req["nonce"] = "0123456789abcdef"
            fresh = req.get("kind") == "script" or req.get("fresh", True)
            run = Run(req, cfg, out)
            run.guard = guard if fresh and checks else None
            res = run.execute(code, None, None if fresh else shared)
            res["nonce"] = req["nonce"]
            if fresh and checks and base is not None:
                clean.restore(stem, guard)
                run.checked(lambda this: clean.same(base, this))
            res["retire" if fresh else "recycle"] = False
            data = _dumps(res).encode("ascii") + b"\n"
            write_all(out, data)
            tail = _tail(req["nonce"], "retire" if fresh else "recycle")
            raw, _ = _scan(bytearray(data), None, None, req["seq"], _whole(req["seq"], tail))
            _clean_status(raw)
