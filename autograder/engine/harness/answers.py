"""The zygote's side of a request process (the fresh runner, the shared worker): its handle
(Worker: pipes, pidfd, its /proc files) and the reading of its answer lines, which are the
student's process talking (untrusted: a forged or foreign line is counted, never believed)."""

import os
import select

from .base import GRACE, MAX_RESULT, PROGRESS_PREFIX, RESULT_PREFIX, STARVED, _loads, _monotonic, _sched
from .lines import _CHUNK, _pidfd, read_into, take_line
from .proctree import _alive, _kill, _reap
from .worker import CLEAN_STATUSES


class Worker:
    """A request process (the fresh runner, the shared worker): its pipes, pidfd and, with our own
    procfs (PROC), its /proc files kept open (read again with one pread each, every request)."""

    def __init__(self, pid, req_w, res_r, proc=False):
        self.pid, self.req_w, self.res_r = pid, req_w, res_r
        self.pidfd = _pidfd(pid)
        self.buf = bytearray()
        self.poller = select.poll()     # its answers and its end (Zygote.wait_for)
        self.poller.register(res_r, select.POLLIN)
        if self.pidfd is not None:
            self.poller.register(self.pidfd, select.POLLIN)
        self.tasks = self.schedstat = self.kids = None
        self.after = None       # sched() as read when its last answer was taken (Zygote.waited)
        # from_runner: a worker that was the fresh runner (Zygote.runner_as_worker); pending: a
        # worker made the runner whose first fresh request has not been sent (worker_as_runner)
        self.from_runner = self.pending = False
        if proc:
            self.tasks, self.schedstat, self.kids = (
                _open_proc(f"/proc/{pid}/{name}") for name in ("task", "schedstat", f"task/{pid}/children"))

    def fds(self):
        return (self.req_w, self.res_r, self.pidfd, self.tasks, self.schedstat, self.kids)

    def sched(self):
        """(CPU seconds, run-queue wait seconds) of its main thread, or None (as base._sched)."""
        if self.schedstat is None:
            return _sched(self.pid)
        data = _pread(self.schedstat)
        try:
            on_cpu, wait = data.split()[:2]
            return int(on_cpu) / 1e9, int(wait) / 1e9
        except (AttributeError, ValueError):
            return None

    def base(self):
        """sched() for its next request: the reading taken with its last answer (ONE SCHEDSTAT READ:
        the zygote serves it only when it settled after that answer, so it has run nothing since but
        the harness loop's return to its read of the next request), else read now."""
        return self.after if self.after is not None else self.sched()

    def alone(self):
        """One thread and no child (read in its own /proc files), or None when they are not open.
        (Its task folder's link count is 2 + its threads, counted by procfs at each fstat: a
        tenth of the cost of reading its stat file; 2 once it is dead.)"""
        if self.tasks is None or self.kids is None:
            return None
        try:
            threads = os.fstat(self.tasks).st_nlink - 2
        except OSError:
            return False
        return threads == 1 and _pread(self.kids) == b""

    def close(self):
        for fd in self.fds():
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass


_CLEAN_STATUSES = tuple(b'"%s"' % status.encode("ascii") for status in CLEAN_STATUSES)


def _open_proc(path):
    try:
        return os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None


def _pread(fd):
    """A /proc file read again from its start (procfs makes its text anew), or None: gone."""
    try:
        return os.pread(fd, 4096, 0)
    except OSError:
        return None


def _sched_of(dl, pid):
    wk = dl["wk"]
    return wk.sched() if wk is not None else _sched(pid)


def _spoke_since(wk):
    """The request process WK died, or wrote something, since its last answer was read (with its
    pidfd: one poll of its answer pipe and its end, instead of a wait and a read)."""
    if wk.buf:
        return True
    if wk.pidfd is not None:
        return bool(wk.poller.poll(0))
    return not _alive(wk.pid) or _drain(wk.res_r, wk.buf) or bool(wk.buf)


def _clean_status(raw):
    """The request process's status (the third key of its result line) left nothing behind."""
    head = raw[:120]
    i = head.find(b'"status":')
    if i < 0:
        return False
    value = head[i + 9:].split(b",", 1)[0]
    return value in _CLEAN_STATUSES
def _drain(fd, buf):
    """Read what is available; True at end of file.  (A pipe's read returns all it holds up to
    the size asked: a shorter chunk means it is empty now, so no second read to be told so.)"""
    while True:
        try:
            n = read_into(fd, buf)
        except BlockingIOError:
            return False
        except OSError:
            return True
        if not n:
            return True
        if n < _CHUNK or len(buf) > MAX_RESULT:
            return False


_STRAY = [0]      # result-looking lines of another request or that do not parse: forged by student code


def _tail(nonce, key):
    """How the harness ends the answer of a request sent with NONCE when its process may serve
    the next one (KEY: "retire" for the fresh runner, "recycle" for the shared worker)."""
    return b'"nonce":"%s","%s":false}' % (nonce.encode("ascii"), key.encode("ascii"))


def _whole(seq, tail):
    """(head, TAIL) of the answer to request SEQ as the harness writes it, or None: no TAIL."""
    if tail is None or type(seq) is not int:
        return None
    return b'{"t":"result","seq":%d,' % seq, tail


def _scan(buf, raw, progress, seq, whole=None):
    """Take complete lines from BUF: the first valid result line of request SEQ, and progress
    lines before it.  A line with WHOLE's head and tail (the nonce sent with the request) is the
    harness's own answer and is taken without parsing it (a program that found the nonce in its
    memory could write one of its own, which then speaks for that request only, as any answer does).

    Student code can write into this pipe too: lines that do not parse are skipped (and counted)."""
    while raw is None:
        i = buf.find(b"\n")
        if i < 0:
            break
        line = take_line(buf, i)
        if whole is not None and line.startswith(whole[0]) and line.endswith(whole[1]):
            raw = line
        elif line.startswith(RESULT_PREFIX):
            try:
                msg = _loads(line)
            except (ValueError, RecursionError, MemoryError):    # (nested too deeply, too big)
                _STRAY[0] += 1
                continue
            if isinstance(msg, dict) and msg.get("seq") == seq:
                raw = line
            else:
                _STRAY[0] += 1
        elif line.startswith(PROGRESS_PREFIX):
            try:
                msg = _loads(line)
            except (ValueError, RecursionError, MemoryError):
                continue
            if isinstance(msg, dict):
                if "status" in msg or progress is None:
                    progress = msg
                else:
                    progress.update(msg)
    return raw, progress


FLUSH_AFTER = 0.002         # seconds a line may wait for the grader (Zygote.say)
FLUSH_BYTES = 1 << 16


class Waits:
    """The zygote's wait for a request process's answer (a part of Zygote: its deadlines, what the
    machine's load held it back, the lines read meanwhile)."""

    def deadline(self, req, wk=None):
        """When to kill the request process (WK, or a new fork: None): GRACE after its soft timer,
        later while it is starved under its CPU limit (the same test as Run.extension, from the
        zygote's side), never later than GRACE after its wall-clock backstop."""
        timeout = float(req.get("timeout") or self.cfg["limits"]["wall_s"])
        t0, end = _monotonic(), self.aside or float("inf")    # (a try's end: end_aside)
        return {"t0": t0, "timeout": timeout, "at": min(t0 + timeout + GRACE, end),
                "backstop": min(t0 + max(float(req.get("wall") or timeout), timeout) + GRACE, end),
                "base": (0.0, 0.0) if wk is None else wk.base(), "graced": True, "wk": wk}

    def later(self, dl, pid):
        """At DL's kill time: True (and DL moved on) when the request process may run on."""
        now = _monotonic()
        if now >= dl["backstop"] or dl["base"] is None:
            return False
        cur = _sched_of(dl, pid)
        if cur is None:
            return False
        used = cur[0] - dl["base"][0]
        busy = used + cur[1] - dl["base"][1]
        if used >= dl["timeout"] or busy < STARVED * (now - dl["t0"]):
            if dl["graced"]:
                return False
            dl["graced"] = True                # its own timer stops it now: GRACE to report, as always
            dl["at"] = min(now + GRACE, dl["backstop"])
            return True
        dl["graced"] = False
        dl["at"] = min(now + max(dl["timeout"] - used, 0.05), dl["backstop"])
        return True

    def waited(self, pid, dl):
        """Run-queue seconds PID's main thread waited since DL was made (the machine's load, not
        the program): the grader charges a submission's budget without it.  Measured here, where no
        student code runs."""
        cur = _sched_of(dl, pid)
        if dl["wk"] is not None:
            dl["wk"].after = cur        # its next request's base (Worker.base)
        if cur is None or dl["base"] is None:
            return None
        return round(max(cur[1] - dl["base"][1], 0.0), 4)

    def wait_for(self, pid, fd, pidfd, buf, deadline, stay, seq, tail=None, poller=None):
        """Collect PID's result line (and progress) until it exits, or (STAY) until it answers
        (TAIL: how the harness ends that answer, see _scan; POLLER: one of FD and PIDFD already).

        Returns (raw result bytes or None, trailer info)."""
        whole = _whole(seq, tail)
        if poller is None:
            poller = select.poll()
            poller.register(fd, select.POLLIN)
            if pidfd is not None:
                poller.register(pidfd, select.POLLIN)
        raw, progress, exited, killed = None, None, False, False
        _STRAY[0] = 0
        while not exited and not (stay and raw is not None):
            left = deadline["at"] - _monotonic()
            # (a progress line: its input ran out or its soft timer stopped it; believed only to stop it sooner)
            if (left <= 0 and (progress is not None or not self.later(deadline, pid))) or len(buf) > MAX_RESULT:
                killed = True
                break
            left = max(deadline["at"] - _monotonic(), 0.001)
            wait = left if pidfd is not None else min(left, 0.005)
            if self.out:        # lines held for the grader (say): sent once this request takes a while
                wait = min(wait, max(self.out_since + FLUSH_AFTER - _monotonic(), 0.0))
            events = poller.poll(1000 * wait)
            if self.out and not events:
                self.flush()
            for ready, _ in events:
                if ready == fd and _drain(fd, buf):
                    poller.unregister(fd)
                elif ready == pidfd:
                    exited = True
            if pidfd is None and not exited:
                exited = not _alive(pid)
            raw, progress = _scan(buf, raw, progress, seq, whole)
        info = {"killed": killed, "exited": exited or killed}
        waited = self.waited(pid, deadline)
        if waited is not None:
            info["wait"] = waited
        if buf.startswith(RESULT_PREFIX):
            _STRAY[0] += 1                # a second result line right behind the accepted one
        if killed:
            _kill(pid)
        if exited or killed:
            info.update(_reap(pid))
            _drain(fd, buf)
            raw, progress = _scan(buf, raw, progress, seq, whole)
        if raw is None:
            info["progress"] = progress
        if _STRAY[0]:
            info["forged"] = _STRAY[0]
        return raw, info
