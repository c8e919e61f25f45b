"""The zygote's side of a request process (the fresh runner, the shared worker): its handle
(Worker: pipes, pidfd, its /proc files) and the reading of its answer lines, which are the
student's process talking (untrusted: a forged or foreign line is counted, never believed)."""

import os
import select

from .base import MAX_RESULT, PROGRESS_PREFIX, RESULT_PREFIX, _loads, _sched
from .lines import _pidfd
from .proctree import _alive
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
            chunk = os.read(fd, _CHUNK)
        except BlockingIOError:
            return False
        except OSError:
            return True
        if not chunk:
            return True
        buf += chunk
        if len(chunk) < _CHUNK or len(buf) > MAX_RESULT:
            return False


_CHUNK = 1 << 16


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
        line = bytes(buf[:i])
        del buf[:i + 1]
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
