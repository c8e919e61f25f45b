"""A fork + exit of a process holding 64 MB of private anonymous memory, with and without huge
pages (MADV_COLLAPSE): CPU of the parent and of the children per fork, each child writing 50
scattered pages.  The lead's micro-test of pass 14 (`hugeheap`, docs/floor.md).  With "write",
the parent also writes one byte in each 2 MiB range after each fork while its child lives, as a
Python parent's loop does (refcounts): each write splits that range's huge PMD, so the next fork copies 512 PTEs again.

    .venv/bin/python benchmarks/floor/thp_fork.py plain|collapse [write] [K]

(mmap.mmap(-1, n) alone is MAP_SHARED, i.e. shmem, where MADV_COLLAPSE gives EINVAL: the
mapping here is MAP_PRIVATE | MAP_ANONYMOUS.)
"""

import ctypes
import mmap
import os
import sys

MADV_COLLAPSE = 25
HUGE = 2 << 20
N = 64 << 20


def main() -> None:
    mode = sys.argv[1]
    write = "write" in sys.argv[2:]
    k = int(sys.argv[-1]) if sys.argv[-1].isdigit() else 200
    libc = ctypes.CDLL(None, use_errno=True)
    libc.madvise.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
    area = mmap.mmap(-1, N + HUGE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    addr = ctypes.addressof(ctypes.c_char.from_buffer(area))
    start = (addr + HUGE - 1) & ~(HUGE - 1)
    for off in range(0, N, 4096):
        ctypes.memset(start + off, 1, 1)
    if mode == "collapse":
        done = libc.madvise(start, N, MADV_COLLAPSE)
        print("collapse", done, os.strerror(ctypes.get_errno()) if done else "")
    with open("/proc/self/smaps_rollup") as f:
        print(" ".join(line.strip() for line in f if line.startswith(("Rss", "AnonHuge"))))
    c0 = os.times()
    for _ in range(k):
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(w)
            os.read(r, 1)             # (alive while the parent writes, as a root or a life is)
            for j in range(50):
                ctypes.memset(start + j * 1310720 % N, 2, 1)
            os._exit(0)
        os.close(r)
        if write:
            for off in range(0, N, HUGE):
                ctypes.memset(start + off, 3, 1)
        os.close(w)
        os.waitpid(pid, 0)
    c1 = os.times()
    own = (c1.user + c1.system - c0.user - c0.system) / k * 1000
    kids = (c1.children_user + c1.children_system - c0.children_user - c0.children_system) / k * 1000
    with open("/proc/self/smaps_rollup") as f:
        print(" ".join(line.strip() for line in f if line.startswith("AnonHuge")), "after the forks")
    print(f"{mode}{' write' if write else ''}: per fork + exit, parent {own:.3f} ms, children {kids:.3f} ms")


if __name__ == "__main__":
    main()
