"""The floor of a request's round trip in Python: the same three processes, lines and zygote
checks as bench/trip.c (read its comment), written as plainly as Python allows (os.read/os.write,
one select.poll, os.pidfd_open, pread of procfs files kept open)
the zygote parses the
grader's line with json (it needs seq and the timeout).  Request process: find the nonce, answer.
Usage: .venv/bin/python bench/trip.py N B    (B: request lines per grader write)"""
import json
import os
import select
import signal
import sys
import time

N = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
B = int(sys.argv[2]) if len(sys.argv) > 2 else 1
WARM = 1000
REQ = (b'{"seq":%d,"kind":"call","func":"score","args":["Chance",[1,2,3,4,5]],"kwargs":{},"stdin":null,'
       b'"seed":null,"dice":null,"fresh":false,"timeout":5.0,"substitute":{"names":["score_upper",'
       b'"score_of_a_kind"],"keep":[]},"typed":false}\n')
PAD = b"." * 120


def cpu():
    t = os.times()
    return t.user + t.system


class Lines:
    def __init__(self, fd):
        self.fd, self.buf = fd, bytearray()

    def line(self):
        while True:
            i = self.buf.find(b"\n")
            if i >= 0:
                out = bytes(self.buf[:i + 1])
                del self.buf[:i + 1]
                return out
            data = os.read(self.fd, 65536)
            if not data:
                return None
            self.buf += data


def worker(rfd, wfd):
    lines, c0 = Lines(rfd), 0.0
    i = 0
    while True:
        if i == WARM:
            c0 = cpu()
        line = lines.line()
        if line is None or line.startswith(b"END"):
            os.write(wfd, b"%f\n" % (cpu() - c0))
            os._exit(0)
        j = line.find(b'"nonce":"')
        nonce = line[j + 9:j + 25]
        seq = int(line[7:line.index(b",")])
        os.write(wfd, b'{"seq":%d,"status":"ok","value":10,"error":null,"stdout":"","events":[],'
                      b'"args_after":[["Chance",[1,2,3,4,5]]],"cpu":0.0001,"wall":0.0001,"peak_kb":0,'
                      b'"dice_used":0,"pad":"%s","end":"%s"}\n' % (seq, PAD, nonce))
        i += 1


def spawn(serve):
    """Fork a child running SERVE(its read fd, its write fd); returns (pid, our write fd, our read fd)."""
    down_r, down_w = os.pipe()
    up_r, up_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(down_w)
        os.close(up_r)
        serve(down_r, up_w)
    os.close(down_r)
    os.close(up_w)
    return pid, down_w, up_r


def zygote(gin, gout):
    w, req_w, res_r = spawn(worker)
    pidfd = os.pidfd_open(w)
    tasks = os.open(f"/proc/{w}/task", os.O_RDONLY | os.O_DIRECTORY)
    kids = os.open(f"/proc/{w}/task/{w}/children", os.O_RDONLY)
    sched = os.open(f"/proc/{w}/schedstat", os.O_RDONLY)
    me = os.getpid()
    own = os.open(f"/proc/{me}/task/{me}/children", os.O_RDONLY)
    poller = select.poll()
    poller.register(res_r, select.POLLIN)
    poller.register(pidfd, select.POLLIN)
    g, r = Lines(gin), Lines(res_r)
    held, c0, i = [], 0.0, 0
    while True:
        if i == WARM:
            c0 = cpu()
        line = g.line()
        if line is None or line.startswith(b"END"):
            os.write(req_w, b"END\n")
            wc = float(r.line())
            os.kill(w, signal.SIGKILL)
            os.waitpid(w, 0)
            os.write(gout, b"%f %f\n" % (cpu() - c0, wc))
            os._exit(0)
        msg = json.loads(line)
        deadline = time.monotonic() + float(msg.get("timeout") or 5.0)
        nonce = os.urandom(8).hex().encode()
        os.write(req_w, b'%s,"nonce":"%s"}\n' % (line.rstrip()[:-1], nonce))
        while True:
            ans = r.line() if r.buf.find(b"\n") >= 0 else None
            if ans is not None:
                break
            if not poller.poll(1000 * max(deadline - time.monotonic(), 0.001)):
                os._exit(2)
            ans = r.line()
            break
        if not ans.endswith(b'"%s"}\n' % nonce):
            os._exit(3)
        base = os.pread(sched, 128, 0).split()                       # its CPU and run-queue wait
        if os.fstat(tasks).st_nlink - 2 != 1 or os.pread(kids, 128, 0) != b"":   # one thread, no child
            os._exit(5)
        if poller.poll(0):                                            # nothing after its answer
            os._exit(7)
        if [int(x) for x in os.pread(own, 128, 0).split()] != [w]:    # kill_descendants: the worker only
            os._exit(8)
        del base
        held.append(ans)
        if len(held) == B:
            os.write(gout, b"".join(held))
            held.clear()
        i += 1


def main():
    z, down_w, up_r = spawn(zygote)
    lines = Lines(up_r)
    c0 = w0 = 0.0
    for i in range(0, N + WARM, B):
        if i == WARM:
            c0, w0 = cpu(), time.perf_counter()
        os.write(down_w, b"".join(REQ % (i + j) for j in range(B)))
        for _ in range(B):
            lines.line()
    gc, wall = cpu() - c0, time.perf_counter() - w0
    os.write(down_w, b"END\n")
    zc, wc = map(float, lines.line().split())
    os.waitpid(z, 0)
    print(f"Python round trip (batch {B}): {(gc + zc + wc) / N * 1e6:.2f} us CPU a request (grader {gc / N * 1e6:.2f}, "
          f"zygote {zc / N * 1e6:.2f}, request process {wc / N * 1e6:.2f}), {wall / N * 1e6:.2f} us wall (n={N})")


main()
