"""What load must not cost an honest submission (pass 17, docs/floor.md): the time budget charges
a request neither its own wait for a CPU nor the same again for its path outside its process
(trials._charged), never less than its CPU time; a sleep is charged as before."""

from __future__ import annotations

import pytest

from autograder.engine import trials
from autograder.engine.protocol import Outcome


def _ok(elapsed: float, wait: float, cpu: float, status: str = "ok") -> Outcome:
    return Outcome(status=status, elapsed=elapsed, wait=wait, cpu=cpu)


def test_an_honest_request_under_load_is_charged_about_its_cpu():
    # round2 shm_growth at load 15: 0.15 s on the wall, 0.055 s waiting for a CPU, 0.05 s of CPU:
    # 0.095 s charged before (its wait out once), 0.15 - 0.055 x (1 + 0.105 / 0.15) now
    assert trials._charged(_ok(0.15, 0.055, 0.05)) == pytest.approx(0.0565)
    assert trials._charged(_ok(0.30, 0.20, 0.05)) == 0.05          # never below its CPU


def test_a_sleeping_request_is_charged_its_sleep():
    # bench (d): every call pauses 1.8 s; asleep it is not runnable: only its wake-up waits
    assert trials._charged(_ok(1.82, 0.004, 0.002)) >= 1.81
    assert trials._charged(_ok(0.31, 0.009, 0.001)) >= 0.3          # test_speed's slow(0.3) on a busy machine
    assert trials._charged(_ok(1.0, 0.0, 0.0)) == 1.0


def test_a_calm_request_is_charged_as_before():
    assert trials._charged(_ok(0.07, 0.0, 0.047)) == 0.07
    assert trials._charged(_ok(0.5, 0.1, 0.6)) == 0.6                # its CPU, when more (threads)
    assert trials._charged(_ok(2.0, 0.1, 1.9, status="timeout")) == 0.0
