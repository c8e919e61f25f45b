"""Line I/O on raw fds: JSON lines out, a blocking line reader in (no buffering surprises across fork)."""

import os

from .base import _dumps


def write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def write_line(fd, obj):
    write_all(fd, _dumps(obj).encode("ascii") + b"\n")


class Lines:
    """Blocking line reader on a raw fd (no buffering surprises across fork)."""

    def __init__(self, fd):
        self.fd = fd
        self.buf = bytearray()

    def readline(self):
        while True:
            i = self.buf.find(b"\n")
            if i >= 0:
                line = bytes(self.buf[:i])
                del self.buf[:i + 1]
                return line
            chunk = os.read(self.fd, 1 << 16)
            if not chunk:
                return None
            self.buf += chunk


def _pidfd(pid):
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None
