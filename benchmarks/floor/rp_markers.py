"""Temporary markers in a COPY of a tree's request path (argv[1]), for rp_parts.py: at each
boundary of a request process's work, lseek(-1, PHASE * 10**13 + its thread CPU ns, 0), a failing
syscall that perf records with its argument (syscalls:sys_enter_lseek), so the thread CPU between
two markers is read in situ (in the sandbox, seccomp and all) without writing anything there.
Phases: 1 line read, 2 line read / decode, 3 decoded, 4 Run() (after the run folder for a fresh
one), 50-53 inside Run(), 5 execute: set-up, 6 import (the fresh module's execution, or the
shared one's), 7 substitution, 8 arguments and seed, 9 the call (student code and its I/O), 10
finish, 11 result(), 12 substitution undone, 13 execute's end, 20 the answer's last keys (and a
fresh runner's restore: 40-42, 21), 30-39 the clean check (same), 22 the answer encoded, 23 the
answer written, 24; a runner's start 80-85, 70-76 (its base), 90 its loop.  A marker costs ~2 us
(two syscalls through the filter): subtract ~2 us from each phase's mean.  Anchors checked on
main f1941e8 (and on rptrip).  Usage: python3 rp_markers.py COPY"""
import sys

T = sys.argv[1] + "/autograder/engine/harness/"


def edit(path, pairs):
    s = open(T + path).read()
    for old, new in pairs:
        assert s.count(old) == 1, (path, old)
        s = s.replace(old, new)
    open(T + path, "w").write(s)


MK = ("\n\n_tt = __import__('time').thread_time_ns\n\n\ndef _mk(n):\n    try:\n        os.lseek(-1, n * 10**13 + _tt() % 10**13, 0)\n"
      "    except OSError:\n        pass\n")
edit("base.py", [("_real_exit = os._exit\n", "_real_exit = os._exit" + MK)])
edit("worker.py", [
 ("""    lines = Lines(req_r)
    while True:
        line = lines.readline()
        if line is None:
            _real_exit(0)
        req = _loads_line(line)
        if "worker" in req:""", """    lines = Lines(req_r)
    _mk(90)
    while True:
        _mk(1)
        line = lines.readline()
        _mk(2)
        if line is None:
            _real_exit(0)
        req = _loads_line(line)
        _mk(3)
        if "worker" in req:"""),
 ("""            os.mkdir(req["rundir"], 0o700)
            os.chdir(req["rundir"])
            run = Run(req, zyg.cfg, res_w, sched, pid)""", """            os.mkdir(req["rundir"], 0o700)
            os.chdir(req["rundir"])
            _mk(4)
            run = Run(req, zyg.cfg, res_w, sched, pid)"""),
 ("""            res = run.execute(zyg.code, zyg.compile_error, None)
            if os.getpid() != pid:       # a fork made by the student's code came back here
                _real_exit(0)
            res["nonce"] = req.get("nonce")
            clean.restore(stem, guard)
            retire = (""", """            res = run.execute(zyg.code, zyg.compile_error, None)
            _mk(20)
            if os.getpid() != pid:       # a fork made by the student's code came back here
                _real_exit(0)
            res["nonce"] = req.get("nonce")
            clean.restore(stem, guard)
            _mk(21)
            retire = ("""),
 ("""            res["retire"] = retire       # last key: the zygote checks the tail
            data = _dumps(res)""", """            res["retire"] = retire       # last key: the zygote checks the tail
            _mk(22)
            data = _dumps(res)
            _mk(23)"""),
 ("""        write_all(res_w, data.encode("ascii"), b"\\n")
        if retire:""", """        write_all(res_w, data.encode("ascii"), b"\\n")
        _mk(24)
        if retire:"""),
 ("""    while True:
        line = lines.readline()
        if line is None:
            _real_exit(0)
        req = _loads_line(line)
        child_run(""", """    while True:
        _mk(1)
        line = lines.readline()
        _mk(2)
        if line is None:
            _real_exit(0)
        req = _loads_line(line)
        _mk(3)
        child_run("""),
 ("""        run = Run(req, zyg.cfg, wfd, sched, pid)
        run.patch_tags = patch_tags
        res = run.execute(zyg.code, zyg.compile_error, shared)""", """        _mk(4)
        run = Run(req, zyg.cfg, wfd, sched, pid)
        run.patch_tags = patch_tags
        res = run.execute(zyg.code, zyg.compile_error, shared)
        _mk(20)"""),
 ("""        data = _dumps(res)
    except MemoryError:                 # the student's""", """        _mk(22)
        data = _dumps(res)
        _mk(23)
    except MemoryError:                 # the student's"""),
 ("""    write_all(wfd, data.encode("ascii"), b"\\n")
    if shared is None""", """    write_all(wfd, data.encode("ascii"), b"\\n")
    _mk(24)
    if shared is None"""),
])
edit("run.py", [
 ("""        self.ours(_NAMES, "_RUN", self)
        cpu0 = self.cpu0
        install_audit()""", """        _mk(5)
        self.ours(_NAMES, "_RUN", self)
        cpu0 = self.cpu0
        install_audit()"""),
 ("""            _BALLAST[0] = _reserve(BALLAST)
        try:""", """            _BALLAST[0] = _reserve(BALLAST)
        _mk(6)
        try:"""),
 ("""        if imp["failure"] is not None:
            return self.finish(imp["failure"])""", """        _mk(7)
        if imp["failure"] is not None:
            return self.finish(imp["failure"])"""),
 ("""        undo = substitute(mod, self.req.get("substitute"))
        try:""", """        undo = substitute(mod, self.req.get("substitute"))
        _mk(8)
        try:"""),
 ("""            self.call_args = args
            self.seed()
            return self.finish(self.guarded(lambda: target(*args, **kwargs)))""", """            self.call_args = args
            self.seed()
            _mk(9)
            ended = self.guarded(lambda: target(*args, **kwargs))
            _mk(10)
            return self.finish(ended)"""),
 ("""        finally:
            if undo():""", """        finally:
            _mk(12)
            if undo():"""),
 ("""        value = normalise(ended.get("value"), typed=bool(self.req.get("typed"))) if status == "ok" else None
        return self.result(""", """        value = normalise(ended.get("value"), typed=bool(self.req.get("typed"))) if status == "ok" else None
        _mk(11)
        return self.result("""),
 ("""        self.cpu_end = time.process_time()
        res["cpu"] = round(self.cpu_end - cpu0, 4)
        return res""", """        self.cpu_end = time.process_time()
        res["cpu"] = round(self.cpu_end - cpu0, 4)
        _mk(13)
        return res"""),
])
edit("clean.py", [
 ("""        if _thread._count() or (not untouched and not _same_dict(modules, self.modules)):
            return False
        gc.collect()               # a finalizer of the request's garbage runs now, not in the next one
        if self.versions() != base[3] or gc.garbage or run.dirty is not False:
            return False
        if _settings() != base[0] or not _same_handlers(base[5]) or base[4]() != base[1]:
            return False
        if _peak() > base[2] + GROWTH or not self.ids.same(base[6]) or (self.rest and not _same_rest(self.rest, self._copies)):
            return False""", """        _mk(30)
        if _thread._count() or (not untouched and not _same_dict(modules, self.modules)):
            return False
        _mk(31)
        gc.collect()               # a finalizer of the request's garbage runs now, not in the next one
        _mk(32)
        if self.versions() != base[3] or gc.garbage or run.dirty is not False:
            return False
        _mk(33)
        if _settings() != base[0]:
            return False
        _mk(34)
        if not _same_handlers(base[5]):
            return False
        _mk(35)
        if base[4]() != base[1]:
            return False
        _mk(36)
        if _peak() > base[2] + GROWTH:
            return False
        _mk(37)
        if not self.ids.same(base[6]):
            return False
        _mk(38)
        if (self.rest and not _same_rest(self.rest, self._copies)):
            return False
        _mk(39)"""),
 ("""        modules = self.kept[0]
        if guard is not None:
            guard.mine()
        for name in (stem, "__main__"):""", """        _mk(40)
        modules = self.kept[0]
        if guard is not None:
            guard.mine()
        for name in (stem, "__main__"):"""),
 ("""        tags = self.cache_tags
        if tags is None:""", """        _mk(41)
        tags = self.cache_tags
        if tags is None:"""),
 ("""        read = self.random_read     # (the generator's own bytes as in the snapshot: nothing to put back)""", """        _mk(42)
        read = self.random_read     # (the generator's own bytes as in the snapshot: nothing to put back)"""),
])
edit("run.py", [
 ("""        self.t0, self.cpu0, self.sched0 = time.monotonic(), time.process_time(), _sched(fd=sched)""",
  """        _mk(50)
        self.t0, self.cpu0, self.sched0 = time.monotonic(), time.process_time(), _sched(fd=sched)
        _mk(51)"""),
 ("""        self.look_at = self.t0 + LOOK_AFTER
        self.script = Scripted(req.get("stdin"), req.get("dice"))   # scripted input lines and dice""", """        self.look_at = self.t0 + LOOK_AFTER
        _mk(52)
        self.script = Scripted(req.get("stdin"), req.get("dice"))   # scripted input lines and dice
        _mk(53)"""),
])
edit("worker.py", [
 ("""    pid = os.getpid()
    clean = zyg.clean
    install_audit()
    patch_tags = _patch_tags(zyg)
    install_patches(zyg.cfg["filename"], patch_tags)
    sched = own_sched()
    gc.freeze()     # everything inherited from the zygote: see FROZEN
    base = clean.base()
    guard = clean.untouched()""", """    _mk(80)
    pid = os.getpid()
    clean = zyg.clean
    install_audit()
    _mk(81)
    patch_tags = _patch_tags(zyg)
    _mk(82)
    install_patches(zyg.cfg["filename"], patch_tags)
    _mk(83)
    sched = own_sched()
    gc.freeze()     # everything inherited from the zygote: see FROZEN
    _mk(84)
    base = clean.base()
    _mk(85)
    guard = clean.untouched()"""),
])
edit("clean.py", [
 ("""        self.check_copies()
        fds = _fd_reader()
        return _settings(), fds(), _peak(), self.versions(), fds, _handlers(), self.ids_base""",
 """        _mk(70)
        self.check_copies()
        _mk(71)
        fds = _fd_reader()
        _mk(72)
        s = _settings()
        _mk(73)
        f = fds()
        _mk(74)
        v = self.versions()
        _mk(75)
        h = _handlers()
        _mk(76)
        return s, f, _peak(), v, fds, h, self.ids_base"""),
])
