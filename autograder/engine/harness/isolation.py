"""Isolation setup, as root, before any student code: namespaces, a minimal root (pivot_root),
the sandbox uid, rlimits, IPC limits, seccomp (libc through ctypes); limit_self without root."""

import os
import signal
import sys

from .base import _real_exit

CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x04000000, 0x08000000
CLONE_NEWPID, CLONE_NEWNET = 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
PR_SET_PDEATHSIG, PR_SET_CHILD_SUBREAPER, PR_SET_NO_NEW_PRIVS = 1, 36, 38
PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2
SYS_MOUNT_SETATTR, AT_RECURSIVE, AT_FDCWD, MOUNT_ATTR_RDONLY = 442, 0x8000, -100, 1


class _Libc:
    """libc through ctypes, with the functions and structures the isolation uses made once."""

    shared = None        # the process's one _Libc (_libc)

    def __init__(self):
        import ctypes as ct
        self.ctypes = ct
        self.libc = ct.CDLL(None, use_errno=True)
        for name in ("unshare", "setns", "mount", "umount2", "prctl", "syscall"):
            getattr(self.libc, name)          # (looked up once: the CDLL keeps it)

        class MountAttr(ct.Structure):
            _fields_ = [("attr_set", ct.c_uint64), ("attr_clr", ct.c_uint64),
                        ("propagation", ct.c_uint64), ("userns_fd", ct.c_uint64)]

        class SockFilter(ct.Structure):
            _fields_ = [("code", ct.c_ushort), ("jt", ct.c_ubyte), ("jf", ct.c_ubyte), ("k", ct.c_uint)]

        class SockFprog(ct.Structure):      # (filter: the address of a buffer of SockFilters)
            _fields_ = [("len", ct.c_ushort), ("filter", ct.c_void_p)]
        self.MountAttr, self.SockFilter, self.SockFprog = MountAttr, SockFilter, SockFprog

    def call(self, what, name, *args):
        if getattr(self.libc, name)(*args) != 0:
            err = self.ctypes.get_errno()
            raise OSError(err, f"{what}: {os.strerror(err)}")

    def try_call(self, name, *args):
        return getattr(self.libc, name)(*args) == 0

    def mount(self, source, target, fstype, flags, data=None):
        def enc(text):
            return None if text is None else text.encode()
        self.call(f"mount {target}", "mount", enc(source), enc(target), enc(fstype),
                  self.ctypes.c_ulong(flags), enc(data))

    def set_readonly(self, path, readonly=True, recursive=True):
        """mount_setattr(2): flip read-only on PATH's mount (and below); False when unsupported."""
        ct = self.ctypes
        attr = self.MountAttr(MOUNT_ATTR_RDONLY if readonly else 0, 0 if readonly else MOUNT_ATTR_RDONLY, 0, 0)
        flags = AT_RECURSIVE if recursive else 0
        return self.libc.syscall(ct.c_long(SYS_MOUNT_SETATTR), ct.c_int(AT_FDCWD), path.encode(),
                                 ct.c_uint(flags), ct.byref(attr), ct.c_size_t(ct.sizeof(attr))) == 0


def _libc():
    """This process's _Libc: the template makes it before it forks anything, so every sandbox
    has it (no dlopen, function lookup or ctypes class made per sandbox: page copies)."""
    if _Libc.shared is None:
        _Libc.shared = _Libc()
    return _Libc.shared


def _within(path, top):
    return path == top or path.startswith(top.rstrip("/") + "/")


def enter_life_namespaces(cfg, built, pid1=False):
    """A sandbox life forked by its student's root (root_setup built the minimal root once, in
    the root's own mount and uts namespaces): its own mount (a copy of that minimal table), ipc
    and pid namespaces, and its own private tmpfs /tmp, /var/tmp and /dev/shm mounted over the
    root's empty read-only folders.  Its net namespace is the root's empty one when the root made
    one and this life's filter refuses every socket (seccomp.NETWORK: so no loopback or abstract
    unix socket can join two lives of the student), else its own.  BUILT: what root_setup
    applied.  PID1: the root forked it straight into a new pid namespace (ChildPidNamespace), so
    it has one already."""
    lib = _libc()
    shared = built.get("net_namespace") is True and bool(cfg.get("seccomp")) and cfg.get("sockets_refused") is True
    flags = (CLONE_NEWNS | CLONE_NEWIPC | (0 if shared else CLONE_NEWNET)
             | (CLONE_NEWPID if cfg["pidns"] and not pid1 else 0))
    lib.call("unshare", "unshare", flags)
    applied = {"namespaces": ["mount", "net", "ipc", "uts"] + (["pid"] if cfg["pidns"] or pid1 else []),
               "network": "none"}       # IPC limits: become_sandbox_user, once its /proc is mounted
    applied.update(built)
    del applied["net_namespace"]
    if shared:
        applied["shares"] = ["net"]     # (entry.sandbox_main: what it shares with its student root)
    applied["private_tmp"] = mount_private(lib, cfg["tmp_mb"])
    return applied


class ChildPidNamespace:
    """How a student root forks each life straight into a pid namespace of its own, as its pid 1
    (the zygote itself), instead of a life forking once more after unshare(CLONE_NEWPID), which
    moves only the caller's future children: one process less per life.  unshare(CLONE_NEWPID)
    before the fork, and setns back to the root's own pid namespace after it (a second unshare
    is refused while the first one's namespace is the one for its children)."""

    def __init__(self):
        self.lib = _libc()
        self.own = os.open("/proc/self/ns/pid", os.O_RDONLY)     # (before root_setup hides /proc)
        # (the two calls made once per life, bound here: no lookups between a root's forks)
        self.unshare, self.setns = self.lib.libc.unshare, self.lib.libc.setns

    def enter(self):
        """True when the next fork starts a new pid namespace."""
        return self.unshare(CLONE_NEWPID) == 0

    def leave(self):
        """The root's later forks in its own pid namespace again (raises OSError if not)."""
        if self.setns(self.own, CLONE_NEWPID) != 0:
            err = self.lib.ctypes.get_errno()
            raise OSError(err, f"setns: {os.strerror(err)}")


def root_setup(setup, own=True):
    """The student root (entry.root_main; root, never runs student code): its own mount and uts
    namespaces and the minimal root, built once for all of one student's sandbox lives, without
    the private folders (each life mounts its own) and without /proc (each life has its own pid
    namespace and mounts its own).  And, when its lives' filter refuses every socket (SETUP's
    "sockets_refused"), its own empty net namespace (only lo, down), which they share instead of
    making one each.  Returns what it applied, for each life's `applied`.  OWN false: a root
    template (entry.root_template_main), which builds the same once for every student root it
    forks, and no net namespace (each of its student roots makes its own: root_own)."""
    lib = _libc()
    net = _own_net(setup)
    lib.call("unshare", "unshare", CLONE_NEWNS | CLONE_NEWUTS | (CLONE_NEWNET if net and own else 0))
    lib.mount(None, "/", None, MS_REC | MS_PRIVATE)
    hidden = [os.path.realpath(p) for p in setup.get("hidden", [])]
    built = build_root(lib, {"pidns": True, "tmp_mb": None}, hidden)
    built["net_namespace"] = net and own
    return built


def _own_net(setup):
    return bool(setup.get("seccomp")) and setup.get("sockets_refused") is True


def root_own(setup, built):
    """A student root forked by a root template (which built the minimal root once: root_setup):
    its own mount namespace (a copy of that minimal table), uts and, when its lives' filter
    refuses every socket, net namespace.  Returns what it applied, for each life's `applied`."""
    net = _own_net(setup)
    _libc().call("unshare", "unshare", CLONE_NEWNS | CLONE_NEWUTS | (CLONE_NEWNET if net else 0))
    return dict(built, net_namespace=net)


def enter_namespaces(cfg):
    """As root, before forking the zygote: private mounts, no network, and a minimal root.

    The new root (pivot_root into a small tmpfs) holds only what the allowlist names: the
    Python runtime (sys.base_prefix, without its site-packages) and the system libraries it
    loads, read-only; /dev/null and friends; an empty /proc for the pid namespace; and private
    tmpfs /tmp, /var/tmp and /dev/shm.  Nothing else exists in it (no /home, /root, /work, /srv,
    /opt, /var, /mnt, no kit, no classmates), so a search of the disk finds nothing to copy."""
    lib = _libc()
    flags = CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS | (CLONE_NEWPID if cfg["pidns"] else 0)
    lib.call("unshare", "unshare", flags)
    lib.mount(None, "/", None, MS_REC | MS_PRIVATE)
    applied = {"namespaces": ["mount", "net", "ipc", "uts"] + (["pid"] if cfg["pidns"] else []),
               "network": "none", "ipc_limits": limit_ipc()}
    hidden = [os.path.realpath(p) for p in cfg.get("hidden", [])]
    applied.update(build_root(lib, cfg, hidden))
    return applied


STAGE = "/tmp"          # mount point of the new root before pivot_root (our mount namespace only)
SYSTEM_LIBS = ("/lib", "/lib64", "/lib32", "/usr/lib", "/usr/lib64", "/usr/lib32")
ROOT_LINKS = ("lib", "lib64", "lib32", "libx32", "bin", "sbin")
DEVICES = ("null", "zero", "full", "random", "urandom")
SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41, "riscv64": 41, "ppc64le": 203, "s390x": 217}
MNT_DETACH = 2


def allowlist():
    """(path, is_dir) pairs bound read-only into the new root: the runtime and its libraries."""
    prefix = os.path.realpath(sys.base_prefix)
    stdlib = os.path.realpath(os.path.dirname(os.__file__))
    # A system Python (prefix /usr, as on Gradescope) needs /usr/lib only, not all of /usr.
    paths = ([prefix] if prefix not in ("/", "/usr") else []) + [stdlib]
    paths += [os.path.realpath(p) for p in SYSTEM_LIBS if os.path.isdir(p)]
    paths += [p for p in ("/etc/ld.so.cache",) if os.path.isfile(p)]
    out = []
    for path in sorted(set(paths), key=len):
        if not any(_within(path, q) for q, _ in out):
            out.append((path, os.path.isdir(path)))
    return out


def _site_packages():
    """Installed packages are not the runtime: hidden inside the new root."""
    version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    found = []
    for base in {os.path.realpath(sys.base_prefix), "/usr", "/usr/local"}:
        for sub in (f"lib/{version}/site-packages", f"lib/{version}/dist-packages", "lib/python3/dist-packages"):
            path = os.path.join(base, sub)
            if os.path.isdir(path):
                found.append(os.path.realpath(path))
    return found


_LAYOUT = []      # [(allowlist(), _site_packages())] once per process (set in place: see runtime_layout)


def runtime_layout():
    """(allowlist(), _site_packages()): facts of this interpreter and machine (~0.7 ms of realpath
    and stat calls), found once per process; the template finds them before it forks anything, so
    no student root or sandbox finds them again."""
    if not _LAYOUT:
        _LAYOUT.append((allowlist(), _site_packages()))
    allowed, packages = _LAYOUT[0]
    return list(allowed), list(packages)


def _bind(lib, source, target, is_dir):
    if is_dir:
        os.makedirs(target, 0o755, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(target), 0o755, exist_ok=True)
        os.close(os.open(target, os.O_WRONLY | os.O_CREAT, 0o644))
    lib.mount(source, target, None, MS_BIND | MS_REC)
    if not lib.set_readonly(target):
        lib.mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)


def build_root(lib, cfg, hidden):
    os.umask(0o022)
    lib.mount("tmpfs", STAGE, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,nr_inodes=4000,mode=0755")
    allowed, packages = runtime_layout()
    for path, is_dir in allowed:
        _bind(lib, path, STAGE + path, is_dir)
    for name in ROOT_LINKS:                  # merged /usr: /lib -> usr/lib and such
        if os.path.islink("/" + name):
            os.symlink(os.readlink("/" + name), f"{STAGE}/{name}")
    # Inside the allowed trees, still hide installed packages and anything the grader names.
    covered = []
    for path in sorted(set(packages + hidden), key=len):
        if not any(_within(path, a) for a, _ in allowed) or any(_within(path, c) for c in covered):
            continue
        target = STAGE + path
        if os.path.isdir(target):
            lib.mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV | MS_RDONLY, "size=4k,nr_inodes=16,mode=0755")
        elif os.path.lexists(target):
            lib.mount("/dev/null", target, None, MS_BIND)
        covered.append(path)
    os.makedirs(f"{STAGE}/dev", 0o755)
    for name in DEVICES:
        if os.path.exists(f"/dev/{name}"):
            _bind_device(lib, f"/dev/{name}", f"{STAGE}/dev/{name}")
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"),
                         ("stdout", "/proc/self/fd/1"), ("stderr", "/proc/self/fd/2")):
        os.symlink(target, f"{STAGE}/dev/{name}")
    for folder in ("proc", "tmp", "var/tmp", "dev/shm", "etc"):
        os.makedirs(f"{STAGE}/{folder}", 0o755, exist_ok=True)
    if not cfg["pidns"]:                      # no pid namespace to mount a /proc of its own for
        lib.mount("/proc", f"{STAGE}/proc", None, MS_BIND | MS_REC)
    os.makedirs(f"{STAGE}/.old-root", 0o700)
    os.chdir(STAGE)
    number = SYS_PIVOT_ROOT.get(os.uname().machine)
    if number is None:
        raise OSError(f"pivot_root: unknown system call number on {os.uname().machine}")
    ct = lib.ctypes
    if lib.libc.syscall(ct.c_long(number), b".", b".old-root") != 0:
        err = ct.get_errno()
        raise OSError(err, f"pivot_root: {os.strerror(err)}")
    os.chdir("/")
    lib.call("umount old root", "umount2", b"/.old-root", ct.c_int(MNT_DETACH))
    os.rmdir("/.old-root")
    private = mount_private(lib, cfg["tmp_mb"]) if cfg["tmp_mb"] else []
    # The root itself (dirs and links only) read-only: nothing can be left in it.
    if not lib.set_readonly("/", recursive=False):
        lib.mount(None, "/", None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
    return {"root": "minimal", "allowed": [p for p, _ in allowed], "hidden": hidden + covered,
            "private_tmp": private, "readonly_root": True}


def mount_private(lib, tmp_mb):
    """Fresh private tmpfs /tmp, /var/tmp and /dev/shm (on the root's own folders)."""
    private = [("/tmp", f"size={tmp_mb}m,mode=1777"), ("/var/tmp", "size=8m,mode=1777"),
               ("/dev/shm", "size=8m,mode=1777")]
    for path, opts in private:
        lib.mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, opts)
    return [p for p, _ in private]


def _bind_device(lib, source, target):
    os.close(os.open(target, os.O_WRONLY | os.O_CREAT, 0o644))
    lib.mount(source, target, None, MS_BIND)


def limit_ipc():
    """In the new IPC namespace: System V shared memory limited to almost nothing (seccomp also
    refuses shmget/semget/msgget; this holds where the filter is missing)."""
    done = {}
    for key, value in (("shmmax", 1 << 20), ("shmall", 256), ("shmmni", 4), ("msgmni", 0)):
        try:                  # (os.open: open()'s text layer cost ~0.2 ms of page copies a life)
            fd = os.open(f"/proc/sys/kernel/{key}", os.O_WRONLY)
            try:
                os.write(fd, str(value).encode())
            finally:
                os.close(fd)
            done[key] = value
        except OSError:
            pass
    return done


def set_rlimits(limits, nproc):
    import resource
    mb = 1 << 20
    wanted = [("RLIMIT_CPU", limits["cpu_s"], limits["cpu_s"] + 1),
              ("RLIMIT_AS", limits["memory_mb"] * mb, limits["memory_mb"] * mb),
              ("RLIMIT_FSIZE", limits["fsize_mb"] * mb, limits["fsize_mb"] * mb),
              ("RLIMIT_NOFILE", max(limits["nofile"], 16), max(limits["nofile"], 16)),
              ("RLIMIT_CORE", 0, 0)]
    if nproc:
        wanted.append(("RLIMIT_NPROC", limits["nproc"], limits["nproc"]))
    applied = {}
    for name, soft, hard in wanted:
        res = getattr(resource, name)
        _, cur_hard = resource.getrlimit(res)
        if cur_hard != resource.RLIM_INFINITY:     # unprivileged: cannot raise the hard limit
            soft, hard = min(soft, cur_hard), min(hard, cur_hard)
        resource.setrlimit(res, (soft, hard))
        applied[name[7:].lower()] = soft
    return applied


def become_sandbox_user(cfg, late_ipc=False, parent_death=True, ready=None):
    """Still root: /proc for the new pid namespace, the work dir, limits; then drop to the sandbox uid.
    PARENT_DEATH: die with the parent (the outer process; a life its student root forked as the
    pid 1 of its namespace does not die with the root).  READY: the filter its student root
    prepared (prepare_seccomp)."""
    lib = _libc()
    applied = {}
    if cfg["pidns"]:
        try:
            lib.mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
            applied["proc"] = True
        except OSError:
            applied["proc"] = False
    if cfg["pidns"] and late_ipc:   # a student root's life: no /proc of the root's to write them in before
        applied["ipc_limits"] = limit_ipc()
    uid = gid = cfg["uid"]
    work = cfg["workdir"]
    try:
        os.mkdir(work, 0o700)       # (not makedirs: its Python costs ~15 page copies a life)
    except FileExistsError:
        pass
    except FileNotFoundError:
        os.makedirs(work, 0o700, exist_ok=True)
    os.chown(work, uid, gid)
    applied["rlimits"] = set_rlimits(cfg["limits"], nproc=True)
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
    applied["no_new_privs"] = lib.try_call("prctl", PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    if cfg["pidns"]:
        if parent_death:
            lib.try_call("prctl", PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    else:       # no pid namespace: be the reaper of escaped processes ourselves
        applied["subreaper"] = lib.try_call("prctl", PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    try:
        os.setuid(0)
    except PermissionError:
        pass
    else:
        raise RuntimeError("privilege drop failed: could become root again")
    applied["seccomp"] = install_seccomp(lib, cfg.get("seccomp"), ready)
    os.chdir(work)
    os.environ["HOME"] = work
    stdlib = os.path.dirname(os.__file__)
    if not os.access(stdlib, os.R_OK | os.X_OK):
        raise RuntimeError(f"the sandbox uid {uid} cannot read the Python standard library at {stdlib}")
    applied.update(uid=uid, gid=gid, workdir=work)
    return applied


def install_seccomp(lib, program_hex, ready=None):
    """Install the grader's seccomp filter (classic BPF, built by engine/seccomp.py); False without one.
    READY: a filter prepared before (prepare_seccomp), used if it is that very program."""
    if not program_hex:
        return False
    if ready is None or ready[0] != program_hex:     # (not the one its student root prepared)
        ready = _prepared(lib, program_hex)
    if lib.libc.prctl(*ready[1]) != 0:
        raise OSError(lib.ctypes.get_errno(), "seccomp: the filter was refused")
    return True


def prepare_seccomp(lib, program_hex):
    """A student root: its lives' filter (the grader's, the same for each) made ready once to be
    installed, so that a life only compares its text and calls prctl (no hex decode, buffer or
    ctypes arguments made in every life: ~20 page copies a life), or None."""
    return _prepared(lib, program_hex) if program_hex else None


def _prepared(lib, program_hex):
    """(PROGRAM_HEX, prctl's arguments to install it, the buffer they point into)."""
    ct = lib.ctypes
    data = bytes.fromhex(program_hex)
    # A plain buffer, not a (SockFilter * count) array: that made a ctypes type in every life
    # (~0.2 ms and ~30 page copies); the kernel reads COUNT 8-byte sock_filters at its address.
    program = ct.create_string_buffer(data, len(data))
    fprog = lib.SockFprog(len(data) // 8, ct.addressof(program))
    return (program_hex, (ct.c_int(PR_SET_SECCOMP), ct.c_ulong(SECCOMP_MODE_FILTER), ct.byref(fprog),
                          ct.c_ulong(0), ct.c_ulong(0)), program, fprog)


def limit_self(cfg):
    """Not root: only limits, and become a child subreaper so escaped processes stay ours."""
    applied = {"rlimits": set_rlimits(cfg["limits"], nproc=False), "uid": os.getuid(),
               "workdir": os.getcwd(), "namespaces": [], "network": "host"}
    try:
        lib = _libc()
        applied["subreaper"] = lib.try_call("prctl", PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
        applied["no_new_privs"] = lib.try_call("prctl", PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
        applied["seccomp"] = install_seccomp(lib, cfg.get("seccomp")) if applied["no_new_privs"] else False
        if applied["seccomp"] and cfg.get("sockets_refused") is True:
            applied["network"] = "no sockets"       # the host's, but the filter makes no socket
    except OSError:
        applied["subreaper"] = False
    return applied


def outer_wait(pid, fds):
    """The root process outside the pid namespace: wait for the zygote, exit like it."""
    for fd in fds:
        os.close(fd)
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            break
        except InterruptedError:
            continue
    code = os.waitstatus_to_exitcode(status)
    _real_exit(code if code >= 0 else 128 - code)
