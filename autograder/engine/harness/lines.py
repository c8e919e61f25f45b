"""Line I/O on raw fds: JSON lines out, a blocking line reader in (no buffering surprises across fork)."""

import mmap
import os

from .base import _dumps

_CHUNK = 1 << 16


def _scratch():
    """Where every read of this process lands (read_into), before its bytes are taken: memory
    that is only touched where a read writes, instead of a new 64 kB bytes object a read (each
    one a heap chunk split, shrunk and freed: the heap's headers written, pages copied on write
    after a fork).  Private: a fork's reads never reach its parent's (MAP_PRIVATE)."""
    try:
        area = mmap.mmap(-1, _CHUNK, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    except (OSError, ValueError, AttributeError):
        return None
    return (area,), memoryview(area)


_SCRATCH = _scratch()


def read_into(fd, buf):
    """One read of FD appended to BUF: the number of bytes read (0: end of file).  Raises what
    the read raises (BlockingIOError: nothing to read now)."""
    if _SCRATCH is None:
        chunk = os.read(fd, _CHUNK)
        buf += chunk
        return len(chunk)
    n = os.readv(fd, _SCRATCH[0])
    if n:
        buf += _SCRATCH[1][:n]
    return n


def take_line(buf, i):
    """The line that ends at BUF[I] (a newline), without it, taken out of BUF: one copy."""
    line = bytes(memoryview(buf)[:i])
    if i + 1 == len(buf):
        buf.clear()
    else:
        del buf[:i + 1]
    return line


def write_all(fd, data, end=b""):
    """DATA and then END written to FD (one writev when it takes them whole)."""
    if end:
        n = os.writev(fd, (data, end))
        if n == len(data) + len(end):
            return
        data = b"".join((data, end))[n:]   # (a part written: a signal came, or a non-blocking pipe filled)
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def write_parts(fd, parts):
    """PARTS (a list of bytes-like objects) written to FD in order: a writev of up to _IOV of them
    at a time, no copy made where it takes them whole."""
    for i in range(0, len(parts), _IOV):
        some = parts[i:i + _IOV]
        n = os.writev(fd, some)
        if n != sum(map(len, some)):
            write_all(fd, b"".join(some)[n:])


_IOV = 512      # (under IOV_MAX, 1024 on Linux)


def write_line(fd, obj):
    write_all(fd, _dumps(obj).encode("ascii"), b"\n")


class Lines:
    """Blocking line reader on a raw fd (no buffering surprises across fork)."""

    def __init__(self, fd):
        self.fd = fd
        self.buf = bytearray()

    def readline(self):
        while True:
            i = self.buf.find(b"\n")
            if i >= 0:
                return take_line(self.buf, i)
            if not read_into(self.fd, self.buf):
                return None


def _pidfd(pid):
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None
