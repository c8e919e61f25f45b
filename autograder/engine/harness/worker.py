"""Request processes: one fork per fresh request (child_run), the fresh runner's loop (several
fresh requests, each with a freshly executed module, while the process stays clean) and the
shared worker's loop."""

import gc
import os
import traceback

from .audit import install_audit
from .base import _dumps, _loads_line, _real_exit, enter_own_folder, own_sched
from .clean import Untouched, note_inherited_threads, own_threads
from .lines import Lines, write_all
from .patches import install_patches
from .run import Run


def child_run(zyg, req, wfd, shared, sched=None, patch_tags=None, pid=None, guard=None):
    """Run one request in this (forked) process and write its result line (SCHED: see own_sched;
    PATCH_TAGS: the process's _patch_tags; PID: its pid, as the shared worker's loop read it once;
    GUARD: a worker that was a fresh runner, its clean-state guard, which our writes keep).
    Returns whether the request did what a fresh runner's check cannot see (Run.dirty)."""
    pid = pid or os.getpid()
    run = None
    try:
        run = Run(req, zyg.cfg, wfd, sched, pid)
        run.patch_tags, run.guard = patch_tags, guard
        res = run.execute(zyg.code, zyg.compile_error, shared)
        if shared is not None:
            res["nonce"] = req.get("nonce")
            res["recycle"] = run.touched or _worker_dirty(res, zyg.cfg, run.cpu_end, zyg.use_proc)   # last key: the
            #                                                                          zygote checks the tail
        data = _dumps(res)
    except MemoryError:                 # the student's data left no room to encode the result
        res = data = None
        res = _failed(req, "memory", "recycle")
        data = _dumps(res)
    except BaseException:
        res = _failed(req, "internal", "recycle")
        data = _dumps(res)
    if os.getpid() != pid:      # a fork made by the student's code came back here: nothing to say
        _real_exit(0)
    write_all(wfd, data.encode("ascii"), b"\n")
    if shared is None or res["recycle"]:
        _real_exit(0)
    return run is None or run.dirty is not False


def _failed(req, status, last):
    """The result line of a request whose run failed here (STATUS memory, or internal with the
    traceback being handled): its process must not serve another (LAST, the tail the zygote reads)."""
    res = {"t": "result", "seq": req.get("seq"), "status": status}
    if status == "internal":
        res["internal"] = traceback.format_exc()
    res["nonce"] = req.get("nonce")
    res[last] = True
    return res


# A request that ended with one of these left nothing behind (the batch goes on after it; a fresh
# runner may serve the next request, if its clean-state check agrees).
CLEAN_STATUSES = frozenset({"ok", "exception", "no_function", "input_exhausted", "dice_exhausted", "exit",
                            "syntax_error", "import_error", "output_limit"})


# FROZEN: a request process moves everything it inherited from the zygote to the collector's
# permanent generation before its first request (gc.freeze), so no collection in it walks (and
# writes to, copying the page on write) the zygote's objects: the clean-state check's gc.collect
# after each fresh request walks only what the requests made.  Nothing of a student's is frozen
# (none exists yet), and a garbage cycle of the zygote's is never finalized in a request process.
# The freeze count is one of the settings the check compares (a student's gc.freeze/unfreeze).


def runner_loop(zyg, req_r, res_w):
    """A fresh runner: each request gets its own run folder and a freshly executed module, exactly
    as in a fork of its own; after it, the clean-state check (clean.py).  Its result line ends
    with "retire": true when the process is not clean (a timeout, memory, anything the check
    sees changed): the runner then exits and the zygote forks a new one for the next request."""
    pid = os.getpid()
    note_inherited_threads()
    clean = zyg.clean
    install_audit()
    patch_tags = _patch_tags(zyg)
    install_patches(zyg.cfg["filename"], patch_tags)
    sched = own_sched()
    gc.freeze()     # everything inherited from the zygote: see FROZEN
    base = clean.base()
    guard = clean.untouched()
    stem = os.path.splitext(os.path.basename(zyg.cfg["filename"]))[0] or "submission"
    lines = Lines(req_r)
    while True:
        line = lines.readline()
        if line is None:
            _real_exit(0)
        req = _loads_line(line)
        if "worker" in req:         # the zygote made this clean runner its shared worker
            run = res = data = None     # (nothing of the last fresh request kept alive)
            req = worker_loop(zyg, req_r, res_w, (lines, sched, patch_tags, guard), req)
            # ... and the runner again (Zygote.worker_as_runner): the module its calls shared is
            # dropped with worker_loop's frame; served only when the check says clean, as after
            # a fresh request; else the answer says so and it ends (the zygote forks a runner)
            if not _back_to_runner(zyg, clean, stem, base, guard, req, res_w, sched, pid):
                _real_exit(0)
        retire = True
        try:
            enter_own_folder(req["rundir"], fresh=True)
            run = Run(req, zyg.cfg, res_w, sched, pid)
            run.guard, run.patch_tags = guard, patch_tags
            res = run.execute(zyg.code, zyg.compile_error, None)
            if os.getpid() != pid:       # a fork made by the student's code came back here
                _real_exit(0)
            res["nonce"] = req.get("nonce")
            clean.restore(stem, guard)
            retire = (res["status"] not in CLEAN_STATUSES or res.get("timed_out") or res.get("cpu_limited")
                      or not run.checked(lambda this: clean.same(base, this)))
            res["retire"] = retire       # last key: the zygote checks the tail
            data = _dumps(res)
        except MemoryError:
            data = _dumps(_failed(req, "memory", "retire"))
        except BaseException:
            data = _dumps(_failed(req, "internal", "retire"))
        if os.getpid() != pid:
            _real_exit(0)
        write_all(res_w, data.encode("ascii"), b"\n")
        if retire:
            _real_exit(0)


def worker_loop(zyg, req_r, res_w, runner=None, first=None):
    """The shared worker: imports the module on its first request, then serves calls.  RUNNER and
    FIRST: a fresh runner that becomes the worker (Zygote.runner_as_worker): its request reader,
    schedstat fd, _patch_tags and clean-state guard, and the first request, which names the shared
    folder to move to (where a new worker starts).  Such a worker returns the fresh request that
    makes it the runner again (it has "runner": Zygote.worker_as_runner), unless one of its calls
    did what the check cannot see (the audit hook's dirty: it then ends there instead)."""
    if runner is None:
        note_inherited_threads()
        gc.freeze()     # (FROZEN; a runner made the worker froze them already)
    lines, sched, patch_tags, guard = runner if runner is not None else (Lines(req_r), own_sched(), _patch_tags(zyg), None)
    shared = {}
    pid = os.getpid()
    dirty = False
    if first is not None:
        enter_own_folder(first["worker"], fresh=False)
        dirty = child_run(zyg, first, res_w, shared, sched, patch_tags, pid, guard)
    while True:
        line = lines.readline()
        if line is None:
            _real_exit(0)
        req = _loads_line(line)
        if runner is not None and req.get("runner") is True:
            if dirty:
                _unclean(req, res_w)
                _real_exit(0)
            return req
        dirty = child_run(zyg, req, res_w, shared, sched, patch_tags, pid, guard) or dirty


def _back_to_runner(zyg, clean, stem, base, guard, req, res_w, sched, pid):
    """A worker that was a fresh runner, its module dropped (worker_loop's frame is gone): what a
    fresh fork would not have put back (clean.restore) and the clean-state check a fresh request
    passes (clean.same, from this runner's own start BASE, under REQ's timer), before REQ runs in
    it.  False (and REQ answered as not run, "unclean"): it must end here."""
    try:
        clean.restore(stem, guard)
        check = Run(req, zyg.cfg, res_w, sched, pid)
        check.guard = guard
        ok = check.checked(lambda this: clean.same(base, this))
    except BaseException:
        ok = False
    if os.getpid() != pid:       # a fork made by the student's code (a finalizer) came back here
        _real_exit(0)
    if not ok:
        _unclean(req, res_w)
    return ok


def _unclean(req, res_w):
    """The answer to REQ, which did not run: this worker may not be the runner (it ends)."""
    write_all(res_w, _dumps({"t": "result", "seq": req.get("seq"), "status": "internal",
                             "nonce": req.get("nonce"), "unclean": True}).encode("ascii"), b"\n")


def _patch_tags(zyg):
    """This request process's guard on the modules the patches are in (clean.Untouched, known
    where they are still as its zygote found and left them, Zygote.patches_as, else not until
    they are installed; None: no dict versions here, the patches are written before every
    request, as before)."""
    if zyg.clean is None:
        return None
    read = zyg.clean.patch_read     # (made once where the snapshot was taken: clean._small_readers)
    return Untouched(read, False).known_as(zyg.patches_as) if read is not None else None


def _worker_dirty(res, cfg, cpu, proc=False):
    """True when the worker must not serve another request (threads, children, limits hit).
    CPU: its CPU seconds when the request ended.  PROC: the zygote reads its threads and children
    in /proc before it serves another request (Zygote.settled), so they are not asked here again."""
    if res.get("status") in ("timeout", "memory", "internal") or res.get("cpu_limited"):
        return True
    if cpu > cfg["limits"]["cpu_s"] / 2:
        return True
    if own_threads():               # a Python thread (the zygote reads all of them in /proc)
        return True
    if proc:
        return False
    try:
        os.waitpid(-1, os.WNOHANG)     # returns at all only when it has children (alive or not)
    except ChildProcessError:
        return False
    return True
