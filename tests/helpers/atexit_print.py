"""Preloaded by a test's fork server (test_batch_outside): says so at once, registers an atexit
function that prints without flushing (the fork server's quick exit must run it and flush), and
keeps a witness that writes when Python's teardown frees it (a quick exit never does)."""

import atexit
import os
import sys

print("preloaded", flush=True)
atexit.register(lambda: sys.stdout.write("atexit ran\n"))


class _Witness:
    def __del__(self) -> None:
        os.write(1, b"torn down\n")


WITNESS = _Witness()
