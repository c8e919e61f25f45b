"""Python's part of an isolated sandbox life: the same steps as bench/life.c (read its comment),
done by a Python root through os and ctypes, as the kit's harness does them (harness/isolation.py),
so that life.c vs life.py is what Python adds to the kernel's part.

HEAP: the root first loads what a kit root/zygote holds before its lives fork (`none`: a bare
interpreter with os/ctypes/resource; `kit`: the harness's stdlib imports plus the reference's
module executed 5 times, ~ the heap a life inherits) -- a fork's page copies grow with the heap
the child then touches (refcounts: every object a Python child touches is a page copied).
WORK: what the life and its request process do in Python after the fork (`none`: only the
syscalls; `touch`: a gc.collect() in the request process, i.e. walking the inherited heap once,
the worst case the kit avoids with gc.freeze(); `run` (HEAP kit only): the life unmarshals the
student's and the reference's code, as a life must, and its request process executes the student's
module, calls a dozen of its functions and encodes a JSON answer: the least Python work a life's
processes do).

Usage (root): .venv/bin/python bench/life.py N HEAP WORK SKIP   e.g. 200 kit none none
Prints per life: CPU of root + life + request process, wall, kworkers (as life.c)."""
import ctypes
import ctypes.util
import gc
import os
import resource
import sys
import time

N = int(sys.argv[1]) if len(sys.argv) > 1 else 200
HEAP = sys.argv[2] if len(sys.argv) > 2 else "none"
WORK = sys.argv[3] if len(sys.argv) > 3 else "none"
SKIP = set((sys.argv[4] if len(sys.argv) > 4 else "none").split(","))
ALLOW = ["/usr/lib", "/usr/lib64", "/etc/ld.so.cache", os.path.realpath(sys.base_prefix)]
FILTER = open("/tmp/floor_filter.bpf", "rb").read() if os.path.exists("/tmp/floor_filter.bpf") else b""

NEWNS, NEWUTS, NEWIPC, NEWPID, NEWNET = 0x00020000, 0x04000000, 0x08000000, 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 1, 2, 4, 8, 32, 4096, 16384, 1 << 18
libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)


def call(name, *args):
    if getattr(libc, name)(*args) != 0:
        e = ctypes.get_errno()
        raise OSError(e, f"{name}: {os.strerror(e)}")


def mount(src, dst, fs, flags, data=None):
    def enc(s):
        return (s.encode() if s is not None else None)
    call("mount", enc(src), enc(dst), enc(fs), ctypes.c_ulong(flags), enc(data))


if HEAP == "kit":       # roughly what a life inherits: the harness's imports and the code it runs
    import json  # noqa: E401,F401
    import marshal
    import types
    sys.path.insert(0, os.getcwd())
    src = open("autograder/assignments/yahtzee/reference.py").read()
    code = compile(src, "yahtzee.py", "exec")
    blob = marshal.dumps(code)
    mods = []
    for _ in range(5):
        m = types.ModuleType("yahtzee")
        exec(marshal.loads(blob), m.__dict__)
        mods.append(m)
    from autograder.engine import harness  # the harness program itself, compiled (~what every life holds)
    hcode = compile(harness.source(), "harness", "exec")

procfd = os.open("/proc", os.O_RDONLY | os.O_DIRECTORY)


def kworkers():
    tck = os.sysconf("SC_CLK_TCK")
    total = 0
    for name in os.listdir(procfd):
        if not name.isdigit():
            continue
        try:
            fd = os.open(f"{name}/stat", os.O_RDONLY, dir_fd=procfd)
        except OSError:
            continue
        data = os.read(fd, 1024)
        os.close(fd)
        if b"(kworker" not in data:
            continue
        rest = data[data.rindex(b")") + 2:].split()
        total += int(rest[11]) + int(rest[12])
    return total / tck


def root_setup():
    call("unshare", NEWNS | NEWUTS)
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    stage = "/tmp/floor-pystage"
    os.makedirs(stage, exist_ok=True)
    mount("tmpfs", stage, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,nr_inodes=4000,mode=0755")
    for d in ("tmp", "var", "var/tmp", "dev", "dev/shm", "proc", ".old-root"):
        os.mkdir(f"{stage}/{d}")
    os.close(os.open(f"{stage}/dev/null", os.O_WRONLY | os.O_CREAT))
    mount("/dev/null", f"{stage}/dev/null", None, MS_BIND)
    for path in ALLOW:
        if not os.path.exists(path):
            continue
        t = stage + path
        os.makedirs(os.path.dirname(t), exist_ok=True)
        if os.path.isdir(path):
            os.makedirs(t, exist_ok=True)
        else:
            os.close(os.open(t, os.O_WRONLY | os.O_CREAT))
        mount(path, t, None, MS_BIND | MS_REC)
        mount(None, t, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)
    os.chdir(stage)
    if libc.syscall(155, b".", b".old-root") != 0:      # pivot_root, x86_64
        raise OSError(ctypes.get_errno(), "pivot_root")
    os.chdir("/")
    call("umount2", b"/.old-root", ctypes.c_int(2))


class SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


prog_buf = ctypes.create_string_buffer(FILTER, len(FILTER))
fprog = SockFprog(len(FILTER) // 8, ctypes.addressof(prog_buf))


def life(uid):
    if "all" in SKIP:           # the fork and the exit alone (and the root's cgroup move, pid namespace)
        os._exit(0)
    flags = (0 if "mnt" in SKIP else NEWNS) | (0 if "net" in SKIP else NEWNET) | (0 if "ipc" in SKIP else NEWIPC)
    if flags:
        call("unshare", flags)
    for path, opts in (("/tmp", "size=64m,mode=1777"), ("/var/tmp", "size=8m,mode=1777"), ("/dev/shm", "size=8m,mode=1777")):
        mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, opts)
    if "pid" not in SKIP:
        mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
        for key, value in (("shmmax", 1 << 20), ("shmall", 256), ("shmmni", 4), ("msgmni", 0)):
            fd = os.open(f"/proc/sys/kernel/{key}", os.O_WRONLY)
            os.write(fd, str(value).encode())
            os.close(fd)
    work = f"/tmp/sb-{uid}"
    os.mkdir(work, 0o700)
    os.chown(work, uid, uid)
    mb = 1 << 20
    for res, soft, hard in ((resource.RLIMIT_CPU, 10, 11), (resource.RLIMIT_AS, 512 * mb, 512 * mb),
                            (resource.RLIMIT_FSIZE, 8 * mb, 8 * mb), (resource.RLIMIT_NOFILE, 64, 64),
                            (resource.RLIMIT_CORE, 0, 0), (resource.RLIMIT_NPROC, 64, 64)):
        resource.setrlimit(res, (soft, hard))
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    call("prctl", 38, 1, 0, 0, 0)                                  # PR_SET_NO_NEW_PRIVS
    if FILTER and "seccomp" not in SKIP:
        call("prctl", ctypes.c_int(22), ctypes.c_ulong(2), ctypes.byref(fprog), ctypes.c_ulong(0), ctypes.c_ulong(0))
    os.chdir(work)
    if WORK == "run":
        student, reference = marshal.loads(blob), marshal.loads(blob)      # noqa: F841
    if "req" not in SKIP:
        pid = os.fork()
        if pid == 0:
            if WORK == "touch":
                gc.collect()
            elif WORK == "run":
                m = types.ModuleType("yahtzee")
                exec(student, m.__dict__)
                out = [m.score("Chance", [1, 2, 3, 4, 5]), m.score_upper([1, 1, 2, 3, 1], 1),
                       m.new_scorecard(), m.format_dice([1, 2, 3, 4, 5]), m.upper_bonus(m.new_scorecard())]
                json.dumps({"status": "ok", "value": out})
            os._exit(0)
        os.waitpid(pid, 0)
    os._exit(0)


def cpu():
    a, b = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime


def main():
    groups = []
    if "cgroup" not in SKIP:
        for ctl, key, val in (("memory", "memory.limit_in_bytes", "805306368"), ("pids", "pids.max", "80"),
                              ("cpu", "cpu.shares", "1024")):
            d = f"/sys/fs/cgroup/{ctl}/floor-py-{os.getpid()}"
            os.mkdir(d)
            with open(f"{d}/{key}", "w") as f:
                f.write(val)
            groups.append(os.open(f"{d}/cgroup.procs", os.O_WRONLY))
    own = os.open("/proc/self/ns/pid", os.O_RDONLY)
    root_setup()
    gc.freeze()          # as the kit's root/template: the inherited heap is not walked by collections
    for rnd, m in ((0, 10), (1, N)):
        k0, c0, w0 = kworkers(), cpu(), time.perf_counter()
        for i in range(m):
            if "pid" not in SKIP:
                call("unshare", NEWPID)
            pid = os.fork()
            if pid == 0:
                try:
                    life(40000 + i % 8)
                finally:
                    os._exit(111)
            if "pid" not in SKIP:
                call("setns", own, NEWPID)
            for fd in groups:
                os.write(fd, b"%d" % pid)
            _, st = os.waitpid(pid, 0)
            if st:
                sys.exit(f"life failed: {st:#x}")
        c1, w1 = cpu(), time.perf_counter()
        time.sleep(1.5)
        k1 = kworkers()
        if rnd:
            print(f"python life (heap {HEAP}, work {WORK}, skip {','.join(sorted(SKIP))}): {(c1 - c0) / m * 1e3:.3f} ms CPU "
                  f"(root + life + request process), {(w1 - w0) / m * 1e3:.3f} ms wall, kworkers {(k1 - k0) / m * 1e3:.3f} ms a life (n={m})")


main()
