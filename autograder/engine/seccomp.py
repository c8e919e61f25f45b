"""The sandbox's seccomp filter, built with libseccomp (pyseccomp) on the grader side.

The filter is a denylist of the system calls that could undo the sandbox or pass state between
students; everything else a Python program needs stays allowed, save sockets: no socket of any
family can be made (NETWORK), the second network wall besides the empty net namespace (a student's
lives share one on the strength of this rule).  It is compiled here to a classic BPF program
(bytes) and sent to the harness, which installs it with prctl(PR_SET_SECCOMP) as the last step
before any student code exists (after no_new_privs, so no privilege is needed).
Denied calls fail with EPERM (clone3 with ENOSYS, so glibc falls back to clone, whose namespace
flags are checked).  Without libseccomp the sandbox runs without the filter and says so
(Sandbox.applied["seccomp"] is False).
"""

from __future__ import annotations

import errno
import os
import sys
import tempfile

from . import codecache

DENIED = (
    # namespaces and mounts: the minimal root must stay the only view of the file system
    "unshare", "setns", "mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree",
    "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
    # other processes' memory and handles
    "ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "kcmp",
    # kernel state that outlives the process (a note for the next student with this uid)
    "keyctl", "add_key", "request_key", "shmget", "semget", "msgget",
    # large kernel attack surface no homework needs
    "bpf", "perf_event_open", "userfaultfd", "io_uring_setup", "io_uring_enter", "io_uring_register",
    "name_to_handle_at", "open_by_handle_at", "fanotify_init", "syslog", "acct", "quotactl",
    "swapon", "swapoff", "reboot", "kexec_load", "kexec_file_load", "init_module", "finit_module",
    "delete_module", "iopl", "ioperm", "personality",
)
# Every way to make a socket, for every family (AF_INET, AF_INET6, AF_UNIX with abstract names,
# AF_NETLINK, AF_PACKET, AF_VSOCK...), socketpair included: an AF_UNIX datagram pair can be bound to
# an abstract name and disconnected.  socketcall: the multiplexer where the arch has one (i386,
# s390x); on x86_64 and aarch64 libseccomp takes its rule and adds nothing.  No harness code in a
# sandbox makes a socket (pipes only), and none is inherited (entry._fresh_process closes every
# other fd), so connect, bind, accept and sendmsg need no rule: there is nothing to call them on.
NETWORK = ("socket", "socketpair", "socketcall")
# clone() flags that create namespaces (a user namespace would give back mount and root).
CLONE_NAMESPACES = (0x00000080, 0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000,
                    0x20000000, 0x40000000)

_cache: bytes | None | bool = False
_sockets: list[bool] = []     # [whether the NETWORK rules were all added] when this process built it


def filter_bpf() -> bytes | None:
    """The compiled filter for this machine's architecture, or None without libseccomp.
    Built once per machine (codecache.stored: kept when libseccomp knew every rule)."""
    global _cache
    if _cache is False:
        key = repr((DENIED, NETWORK, CLONE_NAMESPACES, errno.EPERM, errno.ENOSYS, os.uname().machine,
                    sys.byteorder))
        _sockets.clear()
        _cache = codecache.stored("seccomp", key, _build, _is_bpf)
    return _cache or None


def refuses_sockets() -> bool:
    """True when filter_bpf() refuses every socket (each NETWORK rule added): only then may a
    student's lives share one net namespace (harness/isolation.py enter_life_namespaces).  A filter
    from the cache was kept because every rule was added."""
    return filter_bpf() is not None and all(_sockets)


def _is_bpf(data: bytes) -> bool:
    return bool(data) and len(data) % 8 == 0 and os.name == "posix"


def _build() -> tuple[bytes | None, bool]:
    """(The filter or None, whether every rule was added: only then may it be kept.)"""
    try:
        import pyseccomp as sc
        rules = sc.SyscallFilter(sc.ALLOW)
    except (ImportError, OSError, RuntimeError):     # no pyseccomp or no libseccomp.so
        return None, False
    complete = sockets = True
    for name in DENIED + NETWORK:
        try:
            rules.add_rule(sc.ERRNO(errno.EPERM), name)
        except (ValueError, RuntimeError, OSError):   # unknown on this architecture
            complete = False
            sockets = sockets and name not in NETWORK
    _sockets[:] = [sockets]
    for flag in CLONE_NAMESPACES:
        rules.add_rule(sc.ERRNO(errno.EPERM), "clone", sc.Arg(0, sc.MASKED_EQ, flag, flag))
    try:
        rules.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
    except (ValueError, RuntimeError, OSError):
        complete = False
    with tempfile.TemporaryFile() as handle:
        rules.export_bpf(handle)
        handle.seek(0)
        data = handle.read()
    return (data, complete) if _is_bpf(data) else (None, False)
