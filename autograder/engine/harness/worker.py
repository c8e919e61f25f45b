"""Request processes: one fork per fresh request (child_run) and the shared worker's loop."""

import os
import time
import traceback

from .base import _dumps, _loads, _real_exit
from .lines import Lines, write_all, write_line
from .run import Run


def child_run(zyg, req, wfd, shared):
    """Run one request in this (forked) process and write its result line."""
    pid = os.getpid()
    try:
        res = Run(req, zyg.cfg, wfd).execute(zyg.code, zyg.compile_error, shared)
        if shared is not None:
            res["recycle"] = _worker_dirty(res, zyg.cfg)     # last key: the zygote checks the tail
        data = _dumps(res)
    except MemoryError:                 # the student's data left no room to encode the result
        res = data = None
        res = {"t": "result", "seq": req.get("seq"), "status": "memory", "recycle": True}
        data = _dumps(res)
    except BaseException:
        res = {"t": "result", "seq": req.get("seq"), "status": "internal",
               "internal": traceback.format_exc(), "recycle": True}
        data = _dumps(res)
    if os.getpid() != pid:      # a fork made by the student's code came back here: nothing to say
        _real_exit(0)
    write_all(wfd, data.encode("ascii") + b"\n")
    if shared is None or res["recycle"]:
        _real_exit(0)


def worker_loop(zyg, req_r, res_w):
    """The shared worker: imports the module on its first request, then serves calls."""
    lines = Lines(req_r)
    shared = {}
    while True:
        line = lines.readline()
        if line is None:
            _real_exit(0)
        req = _loads(line)
        if "ping" in req:           # the zygote checks it is idle (see Zygote.worker_idle)
            write_line(res_w, {"t": "pong", "nonce": req["ping"]})
            continue
        child_run(zyg, req, res_w, shared)


def _worker_dirty(res, cfg):
    """True when the worker must not serve another request (threads, children, limits hit)."""
    if res.get("status") in ("timeout", "memory", "internal") or res.get("cpu_limited"):
        return True
    if time.process_time() > cfg["limits"]["cpu_s"] / 2:
        return True
    try:
        if len(os.listdir("/proc/self/task")) > 1:
            return True
    except OSError:
        pass
    try:
        os.waitpid(-1, os.WNOHANG)     # returns at all only when it has children (alive or not)
    except ChildProcessError:
        return False
    return True
