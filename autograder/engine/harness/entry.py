"""Entry points: main (python -c BOOT <fd>), sandbox_main (one sandbox: config, isolate, serve) and
template_main (the grader's pre-booted template that forks one sandbox per request)."""

import binascii
import gc
import marshal
import os
import random
import signal
import sys
import traceback

from .base import _dumps, _loads, _real_exit
from .isolation import become_sandbox_user, enter_namespaces, limit_self, outer_wait
from .lines import Lines, _pidfd, write_line
from .proctree import _kill
from .zygote import Zygote


def main():
    if sys.argv[1] == "template":
        template_main(int(sys.argv[2]))
    res_fd = int(sys.argv[1])
    ctl_fd = os.dup(0)                      # requests; fd 0 itself becomes /dev/null
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    sandbox_main(ctl_fd, res_fd)


def sandbox_main(ctl_fd, res_fd):
    """One sandbox: read its config, isolate (as root: namespaces, minimal root, uid, seccomp),
    then serve requests as the zygote.  Never returns."""
    ctl = Lines(ctl_fd)
    try:
        cfg = _loads(ctl.readline())
        applied = {"root": bool(cfg.get("root"))}
        if cfg.get("root"):
            if cfg.get("namespaces"):
                applied.update(enter_namespaces(cfg))
            if cfg.get("pidns"):
                pid = os.fork()
                if pid:
                    outer_wait(pid, (ctl_fd, res_fd))
            applied.update(become_sandbox_user(cfg))
        else:
            applied.update(limit_self(cfg))
        load_reference(cfg)
        zygote = Zygote(cfg, ctl, ctl_fd, res_fd, applied)
    except BaseException:
        write_line(res_fd, {"t": "fatal", "error": traceback.format_exc()})
        _real_exit(1)
    zygote.serve()


def load_reference(cfg):
    """The reference's code the grader compiled (trusted; marshalled by this very interpreter)."""
    global _REFERENCE
    data = cfg.pop("reference_code", None)
    if data:
        _REFERENCE = marshal.loads(binascii.a2b_base64(data))


def template_main(sock_fd):
    """The grader's pre-booted template (root, grader-side, never sees student code or a config):
    the interpreter is started and this harness is loaded once; for each sandbox the grader
    sends its three pipe ends (SCM_RIGHTS) and the environment, the template forks, and the
    child becomes exactly what `python -c BOOT <fd>` would be at that point: its own session,
    the scrubbed environment, fresh random state, only those pipes open; it then reads its
    config and isolates itself (sandbox_main), as a spawned sandbox does.  The template answers
    with a pidfd of the child (the grader's handle on it: wait, kill, cgroup) and exits at end
    of input.  It reaps its children as they exit (so their CPU time is counted as the grader's)."""
    import _socket
    import ctypes  # noqa: F401  (the isolation setup loads it; every child has it already)
    sock = _socket.socket(fileno=sock_fd)
    os.dup2(os.open(os.devnull, os.O_RDWR), 0)
    signal.signal(signal.SIGCHLD, _reap_children)
    space = _socket.CMSG_SPACE(3 * 4)
    gc.collect()
    gc.freeze()
    while True:
        try:
            data, anc, _, _ = sock.recvmsg(1 << 16, space)
        except InterruptedError:
            continue
        except OSError:
            break
        fds = []
        for level, kind, payload in anc:
            if level == _socket.SOL_SOCKET and kind == _socket.SCM_RIGHTS:
                n = len(payload) - len(payload) % 4
                fds += [int.from_bytes(payload[i:i + 4], sys.byteorder) for i in range(0, n, 4)]
        if not data:
            break
        try:
            msg = _loads(data)
            ctl_fd, res_fd, raw_fd = fds
        except (ValueError, TypeError):
            for fd in fds:
                os.close(fd)
            continue
        pid = os.fork()
        if pid == 0:
            try:
                sock.close()
                _template_child(msg, ctl_fd, res_fd, raw_fd)
            finally:
                _real_exit(HARNESS_SPAWN_FAILED)
        for fd in fds:
            os.close(fd)
        pidfd = _pidfd(pid)
        try:
            if pidfd is None:
                sock.send(_dumps({"pid": pid}).encode())
            else:
                sock.sendmsg([_dumps({"pid": pid}).encode()],
                             [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, pidfd.to_bytes(4, sys.byteorder))])
        except OSError:
            _kill(pid)
            break
        finally:
            if pidfd is not None:
                os.close(pidfd)
    _real_exit(0)


HARNESS_SPAWN_FAILED = 118


def _reap_children(signum=None, frame=None):
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _template_child(msg, ctl_fd, res_fd, raw_fd):
    """In the fork of the template: set up what a freshly spawned sandbox process has, then run."""
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    os.setsid()
    os.dup2(raw_fd, 1)
    os.dup2(raw_fd, 2)
    keep = sorted({0, 1, 2, ctl_fd, res_fd})
    for lo, hi in zip(keep, keep[1:] + [1 << 20]):
        if hi > lo + 1:
            os.closerange(lo + 1, hi)
    os.environ.clear()
    os.environ.update({str(k): str(v) for k, v in msg["env"].items()})
    os.chdir(msg["cwd"])
    random.seed()                    # as a new interpreter would: not the template's state
    sandbox_main(ctl_fd, res_fd)


if __name__ == "__main__":
    main()
