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

    def read(self, size):
        """The next SIZE bytes after the lines read so far (fewer at the end of input)."""
        parts = [bytes(memoryview(self.buf)[:size])]
        del self.buf[:size]
        left = size - len(parts[0])
        while left > 0:
            chunk = os.read(self.fd, min(left, 1 << 20))
            if not chunk:
                break
            parts.append(chunk)
            left -= len(chunk)
        return parts[0] if len(parts) == 1 else b"".join(parts)


def _pidfd(pid):
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None
