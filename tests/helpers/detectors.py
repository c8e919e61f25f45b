"""The ways a sandbox reads dict versions (harness/clean.py, AUTOGRADER_DICT_VERSIONS), for the tests
of the fresh runner and of the programs that try to poison the next request."""

from __future__ import annotations

import pytest

DETECTORS = ("ctypes", "testcapi")


def force(detector: str) -> None:
    """Sandboxes started from now on read dict versions this way (skip where this Python has none)."""
    if detector == "testcapi":
        pytest.importorskip("_testcapi", reason="this Python has no _testcapi")
