"""The sandbox harness loaded into a test's own process, and a job run in a fork of it (for the
tests of harness parts: clean.py, identities.py, warm.py)."""

from __future__ import annotations

import os
import types

from autograder.engine import harness


def loaded() -> types.ModuleType:
    """The harness's source executed as a module of its own (harness_under_test)."""
    ns = types.ModuleType("harness_under_test")
    exec(compile(harness.source(), "<sandbox-harness>", "exec"), ns.__dict__)
    return ns


def in_child(job) -> str:
    """JOB() run in a fork (the rlimits, fds, patches, modules and signals it changes are the
    child's own): what it returned, as a string, or the error."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(r)
            try:
                out = str(job())
            except BaseException as e:       # noqa: BLE001 (reported to the parent)
                out = f"error: {type(e).__name__}: {e}"
            os.write(w, out.encode())
        finally:
            os._exit(0)
    os.close(w)
    chunks = []
    while chunk := os.read(r, 65536):
        chunks.append(chunk)
    os.close(r)
    os.waitpid(pid, 0)
    return b"".join(chunks).decode()
