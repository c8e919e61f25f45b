"""The zygote: compiles once, forks a child per fresh request, keeps one shared worker, and reads
their result lines (untrusted: a forged or foreign line is counted, never believed)."""

import _signal
import gc
import os
import shutil
import signal
import traceback
from time import process_time as _process_time  # (bound before any student code runs)

from .answers import (
    FLUSH_AFTER,
    FLUSH_BYTES,
    Waits,
    Worker,
    _clean_status,
    _drain,
    _open_proc,
    _pread,
    _spoke_since,
    _tail,
)
from .audit import install_audit
from .base import (
    GRACE,
    _dumps,
    _loads_line,
    _monotonic,
    _real_exit,
    _real_sleep,
    _real_urandom,
    enter_own_folder,
)
from .clean import CleanState
from .endless import _LOOPED
from .errors import compile_source
from .lines import _pidfd, write_all, write_line, write_parts
from .patches import _on_alarm, _on_xcpu, prepare_random
from .proctree import TMP_TOPS, TmpWatch, _children, _kill, _tree, empty_tmp, pristine
from .run import _BALLAST, _WRAPPERS, _reserve
from .worker import child_run, runner_loop, worker_loop


def _request(line):
    """The grader's request line LINE parsed, or None where it does not parse."""
    try:
        return _loads_line(line)
    except ValueError:
        return None


class Zygote(Waits):
    def __init__(self, cfg, ctl, ctl_fd, res_fd, applied, snapshot=None):
        # Without a procfs of our own pid namespace, /proc pids do not match ours: use kill(-1).
        self._serving(cfg, ctl, ctl_fd, res_fd, applied, os.getcwd(), bool(cfg.get("root") and cfg.get("namespaces")),
                      use_proc=not cfg.get("pidns") or applied.get("proc", False))
        self.code, self.compile_error = cfg.pop("compiled", None) or compile_source(cfg["source"], cfg["filename"])
        reference = cfg.pop("reference_loaded", None)
        if reference is None and cfg.get("reference"):    # compiled once here, so every fork has it
            reference = compile(cfg.pop("reference"), "<reference>", "exec", dont_inherit=True)
        if not _WRAPPERS:         # (done by the template for every process it forks)
            prepare_random()
        _signal.signal(signal.SIGALRM, _on_alarm)        # (_signal: signal.signal's enum wrapping
        _signal.signal(signal.SIGXCPU, _on_xcpu)         # costs page copies in every zygote)
        _signal.signal(signal.SIGXFSZ, _signal.SIG_IGN)   # over RLIMIT_FSIZE: OSError, not death
        install_audit()           # (every request process installs it: once here for all of them)
        _BALLAST[0] = _BALLAST[0] or _reserve()   # (and the ballast, kept across requests: a template's fork has it)
        # Fresh requests share a runner while it stays clean; that needs our own procfs (threads
        # and children of the runner are read there) and the snapshot of a clean process.
        # SNAPSHOT: the template's, when it (or a student root) forked us: adopted, so what to
        # watch is walked once per grading session, not in every sandbox (clean.CleanState.adopt).
        how = cfg.get("dict_versions", "auto")
        self.clean = None
        if self.use_proc:
            self.clean = CleanState(cfg["filename"], how) if snapshot is None else snapshot.adopt(cfg["filename"], how)
        if self.clean is not None and self.clean.versions is None:
            self.clean = None
        applied["fresh_runner"] = self.clean.detector if self.clean is not None else False
        # (the template's patches, found untouched: every request process's guard on them starts known)
        self.patches_as = self.clean.installed_as(cfg["filename"]) if self.clean is not None else None
        self.bind_reference(reference)
        gc.collect()
        gc.freeze()   # fewer copy-on-write faults in the forks

    def _serving(self, cfg, ctl, ctl_fd, res_fd, applied, workdir, private_tmp, use_proc):
        """A zygote's serving state before any request (warm.warm_serving's too: no life around it)."""
        self.cfg, self.ctl, self.ctl_fd, self.res_fd, self.applied = cfg, ctl, ctl_fd, res_fd, applied
        self.workdir = workdir
        self.run_prefix = os.path.join(workdir, "run-")    # (a fresh request's folder: + its number)
        self.private_tmp, self.use_proc = private_tmp, use_proc
        # kids: our own /proc children file, kept open (children()); tmp_watch: inotify on the private
        # tmp folders (clean_files), False: none; aside: in an aside batch, when its requests are killed
        self.worker = self.runner = self.kids = self.tmp_watch = self.aside = None
        self.cpu = 0.0            # our CPU seconds after the last request (handle)
        self.out, self.out_size, self.out_since = [], 0, 0.0    # lines held for the grader (say): their parts
        self.worker_gen = self.nrun = 0   # worker_gen: +1 each time the shared worker is stopped (the grader replays history)
        self.forked = 0                   # request processes started (runners, workers: a figure for the floor tools)
        self.patches_as = None            # (CleanState.installed_as: set by a life's boot)

    def bind_reference(self, code):
        """_REFERENCE bound after the adopt, and in the snapshot's copy of the harness's names: bound
        before, it moved that namespace's version and adopt walked and copied it all again."""
        global _REFERENCE
        if code is not None and self.clean is not None:
            self.clean.rebind("_REFERENCE", code)     # (writes it, reading our names' tag first)
        elif code is not None:
            _REFERENCE = code

    def serve(self):
        write_line(self.res_fd, {"t": "ready", "applied": self.applied})
        if self.private_tmp and self.tmp_watch is None:     # (before any request process is forked:
            self.tmp_watch = TmpWatch.of(TMP_TOPS)           # its pages written here are not copied again)
        while True:
            req, line = self.read_request()
            if line is None:
                break
            if req is None:
                continue
            if req.get("op") == "quit":
                break
            if req.get("op") == "batch":
                self.handle_batch(req, self.read_batch(req))
                continue
            self.handle(req, line)
            self.flush()
        if os.getpid() == 1:    # our pid namespace's init: kill(-1) is all its other processes, reaped
            _kill(-1)           # here (the kernel would autoreap them as we exit: CPU time lost)
            self.reap_all(block=True)
        else:
            self.stop_worker()
            self.stop_runner()
            self.kill_descendants(keep=())
        _real_exit(0)

    def handle(self, req, line=None):
        """Run one request (LINE: the grader's JSON of it) and report it; True when it left
        everything clean (see handle_batch)."""
        try:
            if req.get("kind") == "script" or req.get("fresh", True):
                raw, info = self.run_fresh(req, line)
            else:
                raw, info = self.run_shared(req, line)
        except BaseException:
            raw, info = None, {"internal": traceback.format_exc()}
        self.cpu = _process_time()
        said = _dumps({"t": "done", "seq": req.get("seq"), "zygote_cpu": round(self.cpu, 3), **info,
                       "worker_gen": self.worker_gen, "forked": self.forked}).encode("ascii")    # (info has none of those keys)
        if raw:         # one line: the trailer, then the answer as its last key (it parsed as an object,
            #             or it ends with the nonce sent with the request: see _scan)
            self.say(said[:-1], b',"result":', raw.rstrip(b" \t\r"), b"}\n")
        else:
            self.say(said, b"\n")
        clean = (raw is not None and not info.get("killed") and not info.get("internal")
                 and not raw.endswith(b'"recycle":true}') and _clean_status(raw))
        if not clean and raw and not _LOOPED[0] and b'"endless":true' in raw:
            _LOOPED[0] = True          # (a proved loop: the request processes forked from now on look early)
        return clean

    def read_batch(self, msg):
        """The request lines that follow a batch message (its "lines" of them), each read when
        handle_batch comes to it: one request's objects at a time, not the whole plan's (made
        before the runner's fork and freed after it, every page of them was copied on write)."""
        count = msg.get("lines")
        for _ in range(count if type(count) is int else 0):
            line = self.ctl.readline()
            if line is None:
                return
            yield line

    def read_request(self):
        """The grader's next line and its request: (None, None) at the end of input, (None, line)
        when the line does not parse."""
        line = self.ctl.readline()
        return (None, None) if line is None else (_request(line), line)

    def handle_batch(self, msg, lines):
        """A student's request plan in one message (LINES: its request lines): run each request
        exactly as handle() would (a fork per fresh request, the shared worker for the others),
        with no grader round trip in between; stop after the first one that did not end cleanly (a
        timeout, memory, a replaced shared worker, an internal error) and let the grader run the
        rest one by one (their lines read, never parsed).  An aside batch (a try) runs only where
        nothing but fresh requests ran, and ends with end_aside."""
        aside = msg.get("aside") is True
        refused = aside and not (self.worker is None and self.private_tmp and pristine(self.workdir))
        if msg.get("reset_worker") and not refused:
            self.stop_worker()
            shutil.rmtree(os.path.join(self.workdir, "shared"), ignore_errors=True)
        ran, budget, started = 0, msg.get("budget"), _monotonic()
        if aside:       # a try is bounded here, not by its requests' limits (their lines are as sent)
            self.aside = started + (budget if isinstance(budget, (int, float)) else 60.0)
        lines = iter(lines)
        runner_at = msg.get("runner_at")        # (Sandbox._fresh_first: the fresh requests after shared calls)
        for line in () if refused else lines:
            req = _request(line)
            if not isinstance(req, dict):
                break
            if isinstance(budget, (int, float)) and _monotonic() - started > budget:
                break
            if type(runner_at) is int and ran == runner_at and (req.get("kind") == "script" or req.get("fresh", True)):
                self.worker_as_runner()
            ran += 1
            if not self.handle(req, line) or self.cpu > self.cfg["limits"]["cpu_s"] / 2:
                break
        for _ in lines:     # (the batch's lines not run: read to its end)
            pass
        end = {"t": "batch_end", "ran": ran}
        if aside:
            end["aside"], self.aside = "refused" if refused else self.end_aside(), None
        self.say(_dumps(end).encode("ascii"), b"\n")
        self.flush()

    def end_aside(self):
        """An aside batch's end (it began with no worker, pristine files; its worker the clean
        fresh runner there was, else a fork): the worker stopped, every file removed, this life as
        before (a runner it took is forked again at the next fresh request, as after a retired
        one).  "clean" when its calls left no file behind (a new life of the variant would have
        held none either)."""
        clean = self.worker is not None and pristine(self.workdir)
        if not self.worker_as_runner():
            self.stop_worker()
        self.kill_descendants(keep=self.request_pids())
        empty_tmp(self.workdir, whole=True)
        return "clean" if clean else "left"

    # -- our lines to the grader -------------------------------------------------------------
    def say(self, *parts):
        """Send the line PARTS make to the grader: in a batch, with the lines of the requests that
        ran just before it (one write and one wake-up of the grader for several requests).  Nothing
        waits there long: flushed when FLUSH_AFTER passed since the first line held, as soon as a
        request process takes longer than that to answer (wait_for), over FLUSH_BYTES, at the
        batch's end.  (Its parts are held as they are and written by one writev: no copy.)"""
        if not self.out:
            self.out_since = _monotonic()
        self.out += parts
        for part in parts:
            self.out_size += len(part)
        if self.out_size > FLUSH_BYTES or _monotonic() - self.out_since > FLUSH_AFTER:
            self.flush()

    def flush(self):
        if self.out:
            write_parts(self.res_fd, self.out)
            self.out.clear()
            self.out_size = 0

    # -- fresh requests: a fresh runner while it stays clean, else one fork each ------------
    def run_fresh(self, req, line=None):
        self.nrun += 1
        rundir = f"{self.run_prefix}{self.nrun}"
        if self.clean is not None:
            return self.run_in_runner(req, rundir, line)
        deadline = self.deadline(req)
        r, w = os.pipe()
        self.forked += 1
        pid = os.fork()
        if pid == 0:
            try:
                os.close(r)
                self.close_for_child()
                enter_own_folder(rundir, fresh=True)
                child_run(self, req, w, None)
            finally:
                _real_exit(117)
        os.close(w)
        os.set_blocking(r, False)
        pidfd = _pidfd(pid)
        try:
            raw, info = self.wait_for(pid, r, pidfd, bytearray(), deadline, False, req.get("seq"))
        finally:
            for fd in (r, pidfd):
                if fd is not None:
                    os.close(fd)
        self.kill_descendants(keep=self.worker_pids())
        self.clean_files(rundir)
        return raw, info

    def run_in_runner(self, req, rundir, line=None):
        """A fresh request in the fresh runner (worker.runner_loop): a new one when there is none,
        or the last one left anything behind (written lines, threads, children), or its CPU time
        so far would let RLIMIT_CPU stop this request sooner than in a fork of its own."""
        rn = self.runner
        if rn is not None and _spoke_since(rn):
            self.stop_runner()      # (settled when its last request ended: see below)
            rn = None
        dl = None
        if rn is not None:
            dl = self.deadline(req, rn)
            if not self.cpu_room(req, dl["base"]):
                self.stop_runner()
                rn = None
        if rn is None:
            rn = self.start_runner()
            dl = self.deadline(req, rn)
        more = {"rundir": rundir}
        if rn.pending:      # a worker made the runner (worker_as_runner): its first fresh request
            rn.pending = False
            more["runner"] = True
        raw, info, tail, extra = self.send_request(rn, req, dl, line, more)
        if "runner" in more and raw is not None and raw.endswith(tail.replace(b'"retire":false', b'"unclean":true')):
            # not clean once its module was dropped: it did not run REQ, and ends; a fork runs it
            self.stop_runner(reaped=bool(info.get("exited") or info.get("killed")))
            rn = self.start_runner()
            dl = self.deadline(req, rn)
            raw, info, tail, extra = self.send_request(rn, req, dl, line, {"rundir": rundir})
        if info.get("exited") or info.get("killed"):         # (reaped by wait_for)
            if isinstance(info.get("cpu"), (int, float)) and dl["base"] is not None:   # its earlier requests' not
                info["cpu"] = round(max(info["cpu"] - dl["base"][0], 0.0), 4)
            self.stop_runner(reaped=True)
        elif extra or raw is None or not raw.endswith(tail) or not self.settled(rn):
            self.stop_runner()
        self.kill_descendants(keep=self.request_pids())
        self.clean_files(rundir)
        return raw, info

    def send_request(self, wk, msg, dl, line=None, more=None):
        """Send request MSG (and the keys MORE), with a new nonce, to the request process WK and
        wait for its answer (deadline DL): (raw answer, trailer info, how the harness ends that
        answer when WK may serve on (see _tail), whether it wrote more than one answer).  LINE: the
        grader's JSON of MSG, sent on with the keys added at its end (a JSON object of the grader's
        own: no need to encode the request again)."""
        nonce = _real_urandom(8).hex()
        line = line.rstrip() if line is not None else b""
        if len(line) > 2 and line.endswith(b"}"):       # (LINE up to its last brace, as it is)
            keys = b"".join([b',"%s":%s' % (k.encode("ascii"), _dumps(v).encode("ascii"))
                             for k, v in more.items()]) if more else b""
            data, end = memoryview(line)[:-1], b'%s,"nonce":"%s"}\n' % (keys, nonce.encode("ascii"))   # (hex: as _dumps)
        else:
            data, end = _dumps(dict(msg, **dict(more or (), nonce=nonce))).encode("ascii"), b"\n"
        if len(data) + len(end) > FLUSH_BYTES:
            self.flush()        # (the write may wait for the process to read: nothing held meanwhile)
        try:
            write_all(wk.req_w, data, end)
        except OSError:
            pass    # it died; wait_for reports how
        tail = _tail(nonce, "retire" if wk is self.runner else "recycle")
        raw, info = self.wait_for(wk.pid, wk.res_r, wk.pidfd, wk.buf, dl, True, msg.get("seq"), tail, wk.poller)
        extra = bool(wk.buf)        # more than one answer: it wrote out of turn
        wk.buf.clear()
        return raw, info, tail, extra

    def settled(self, wk):
        """After its answer, a request process (the fresh runner, the shared worker) may serve the
        next request: one thread, no children, nothing written after the answer.  Its lines are
        the student's process talking: the first line with a request's seq is taken as the
        answer (a forged one speaks for that request only), but the process serves another
        request only when its answer ended as the harness ends it, with the nonce sent with the
        request (so the harness loop, not student code still running, answered); lines written
        ahead (for requests it has not been sent) make it replaced too, so which request a line
        answers never depends on timing (the grade is repeatable)."""
        if self.use_proc:
            alone = wk.alone()
            if alone is None:
                try:
                    alone = len(os.listdir(f"/proc/{wk.pid}/task")) == 1 and not _children(wk.pid, single=True)
                except OSError:
                    alone = False
            if not alone:
                return False
        if wk.pidfd is not None:    # (one poll: an answer pipe with anything to read, or its end)
            return not wk.poller.poll(0)
        ahead = bytearray()
        return not _drain(wk.res_r, ahead) and not ahead

    def start_runner(self):
        self.runner = self.start_request_process(runner_loop)
        return self.runner

    def start_request_process(self, loop, folder=None):
        """A request process that serves requests read from a pipe (the fresh runner, the shared
        worker): LOOP(zygote, request pipe, result pipe) in a fork, in FOLDER when given."""
        req_r, req_w = os.pipe()
        res_r, res_w = os.pipe()
        self.forked += 1
        pid = os.fork()
        if pid == 0:
            try:
                os.close(req_w)
                os.close(res_r)
                self.close_for_child()
                if folder is not None:
                    enter_own_folder(folder, fresh=False)
                loop(self, req_r, res_w)
            finally:
                _real_exit(117)
        os.close(req_r)
        os.close(res_w)
        os.set_blocking(res_r, False)
        return Worker(pid, req_w, res_r, proc=self.use_proc)

    def stop_runner(self, reaped=False):
        rn, self.runner = self.runner, None
        if rn is None:
            return
        if not reaped:
            _kill(rn.pid)
            try:
                os.waitpid(rn.pid, 0)
            except OSError:
                pass
        rn.close()

    def request_pids(self):
        """The pids of the shared worker and the fresh runner there are (a tuple: kill_descendants's KEEP)."""
        wk, rn = self.worker, self.runner
        if wk is None:
            return () if rn is None else (rn.pid,)
        return (wk.pid,) if rn is None else (wk.pid, rn.pid)

    # -- fresh=False requests: the shared worker -------------------------------------------
    def run_shared(self, req, line=None):
        wk = self.worker
        if wk is not None and _spoke_since(wk):
            self.stop_worker()      # (settled when its last request ended: see below)
        more = None
        if self.worker is None:
            more = self.runner_as_worker(req)   # (a try's too: the runner then ends with it, end_aside)
            if more is None:
                self.start_worker()
        wk = self.worker
        ran_in = self.worker_gen
        dl = self.deadline(req, wk)
        raw, info, tail, extra = self.send_request(wk, req, dl, line, more)
        if (extra or info.get("exited") or info.get("killed") or raw is None
                or not raw.endswith(tail) or not self.settled(wk)):
            self.stop_worker()
        self.kill_descendants(keep=self.request_pids())
        info["ran_in"] = ran_in
        return raw, info

    def start_worker(self):
        self.worker = self.start_request_process(worker_loop, os.path.join(self.workdir, "shared"))

    def runner_as_worker(self, req):
        """The fresh runner made the shared worker, instead of a fork of its own (one request
        process per life where the plan sends its fresh requests first): a runner that is still
        there is clean (it passed the clean-state check after its last request, or it retired),
        i.e. what a fresh fork of the zygote would be, which is what a new shared worker is.
        Only when it wrote nothing since its last answer and its CPU time so far leaves RLIMIT_CPU
        as much room for request REQ as a fork of its own would (the test run_in_runner applies
        before it reuses a runner).  Returns the keys that tell it so (sent with REQ: it moves to
        the shared folder and serves as worker_loop from then on), or None: fork a worker."""
        rn = self.runner
        if rn is None or rn.pending or _spoke_since(rn):    # (pending: a worker still, its module held)
            return None
        if not self.cpu_room(req, rn.base()):
            return None
        self.runner, self.worker = None, rn
        rn.from_runner = True
        return {"worker": os.path.join(self.workdir, "shared")}

    def worker_as_runner(self):
        """The shared worker made the fresh runner again, instead of a fork of its own, where the
        grader's batch says its next fresh requests come after its shared calls (public first:
        Sandbox._fresh_first's runner_at) and after a try (end_aside).  Only a worker that was a
        fresh runner (it has that runner's own start and guard: worker.runner_loop), wrote nothing
        since its last answer, and was not replaced (no thread, child, timeout, limit, memory, a
        stand-in touched: its call said "recycle" and it ended).  Marked pending: its next fresh
        request tells it so (run_in_runner), and it drops its module and passes the clean-state
        check a fresh request passes before that request runs, else answers "unclean" and ends
        (a fork runs the request).  Its CPU time: run_in_runner's test, as for any runner.  Its
        calls' history ends here (worker_gen: the next shared call imports the module again).
        True when it was made the runner."""
        wk = self.worker
        if wk is None or not wk.from_runner or self.runner is not None or _spoke_since(wk):
            return False
        self.worker, self.runner = None, wk
        wk.pending = True
        self.worker_gen += 1
        return True

    def cpu_room(self, req, base):
        """Whether a request process whose CPU time so far is BASE (None: unknown) leaves RLIMIT_CPU
        as much room for request REQ as a fork of its own would."""
        timeout = float(req.get("timeout") or self.cfg["limits"]["wall_s"])
        return base is not None and base[0] + timeout + 2 * GRACE + 1 <= self.cfg["limits"]["cpu_s"]

    def stop_worker(self):
        wk, self.worker = self.worker, None
        if wk is None:
            return
        self.worker_gen += 1
        try:
            os.kill(wk.pid, signal.SIGKILL)
            os.waitpid(wk.pid, 0)
        except OSError:
            pass
        wk.close()

    def worker_pids(self):
        return {self.worker.pid} if self.worker is not None else set()

    def close_for_child(self):
        """A request process must not hold the grader's pipes or the worker's."""
        fds = [self.ctl_fd, self.res_fd, self.kids, self.tmp_watch.fd if self.tmp_watch else None]
        for wk in (self.worker, self.runner):
            if wk is not None:
                fds += wk.fds()
        for fd in fds:
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass

    # -- cleaning up after a request -------------------------------------------------------
    def kill_descendants(self, keep):
        """Kill every process below the zygote except KEEP (orphans are re-parented to us)."""
        if not self.use_proc:
            if keep:
                self.stop_worker()
            _kill(-1)
            self.reap_all(block=True)
            return
        for attempt in range(500):
            kids = [p for p in self.children() if p not in keep]
            if not kids:
                return
            self.reap_all()
            kids = [p for p in self.children() if p not in keep]
            if not kids:
                return
            for p in _tree(kids):
                _kill(p)
            _real_sleep(0.0005 * attempt)

    def children(self):
        """The zygote's children (it has one thread: its own children file is all of them)."""
        if self.kids is None:
            self.kids = _open_proc(f"/proc/{os.getpid()}/task/{os.getpid()}/children")
            if self.kids is None:
                return _children(os.getpid(), single=True)
        data = _pread(self.kids)
        try:
            return [int(x) for x in data.split()]
        except (AttributeError, ValueError):
            return _children(os.getpid(), single=True)

    def reap_all(self, block=False):
        while True:
            try:
                pid, _ = os.waitpid(-1, 0 if block else os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            if self.worker is not None and pid == self.worker.pid:
                self.worker.close()
                self.worker = None
                self.worker_gen += 1
            if self.runner is not None and pid == self.runner.pid:
                self.runner.close()
                self.runner = None

    def clean_files(self, rundir):
        try:
            os.rmdir(rundir)        # (most requests leave their folder empty)
        except OSError:
            shutil.rmtree(rundir, ignore_errors=True)
        if not self.private_tmp:
            return
        if self.tmp_watch is None:
            self.tmp_watch = TmpWatch.of(TMP_TOPS)      # (False: inotify is not there)
        watch = self.tmp_watch or None
        if watch is not None and not watch.changed():
            return      # nothing was created in them, moved or removed since they were emptied
        for _ in range(3):
            if not empty_tmp(self.workdir) or watch is None:
                return
            watch.changed()     # our own removals (what comes after this is the next look's)
