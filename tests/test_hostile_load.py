"""What load must not cost an honest submission (pass 17, docs/floor.md): the time budget charges
a request neither its own wait for a CPU nor the same again for its path outside its process
(trials._charged), never less than its CPU time; a sleep is charged in full."""

from __future__ import annotations

from types import SimpleNamespace

from autograder.engine import trials
from autograder.engine.protocol import Outcome


def _ok(elapsed: float, wait: float, cpu: float, status: str = "ok") -> Outcome:
    return Outcome(status=status, elapsed=elapsed, wait=wait, cpu=cpu)


def test_an_honest_request_under_load_is_charged_its_cpu():
    # round2 shm_growth at load 15: 0.15 s on the wall, 0.05 s waiting for a CPU, 0.05 s of CPU
    assert trials._charged(_ok(0.15, 0.055, 0.05)) == 0.05
    assert trials._charged(_ok(0.30, 0.20, 0.05)) == 0.05          # never below its CPU, never above it here


def test_a_sleeping_request_is_charged_its_sleep():
    # bench (d): every call pauses 1.8 s; asleep is not runnable, so it waits for no CPU
    assert trials._charged(_ok(1.82, 0.004, 0.002)) == 1.82 - 2 * 0.004
    assert trials._charged(_ok(1.0, 0.0, 0.0)) == 1.0


def test_a_calm_request_is_charged_as_before():
    assert trials._charged(_ok(0.07, 0.0, 0.047)) == 0.07
    assert trials._charged(_ok(0.5, 0.1, 0.6)) == 0.6                # its CPU, when more (threads)
    assert trials._charged(_ok(2.0, 0.1, 1.9, status="timeout")) == 0.0


class _Budget(trials.Trials):
    """The budget's state of a Program (program.py sets it in __init__), nothing else."""

    def __init__(self, budget_s: float) -> None:
        self._cache = None
        self.limits = SimpleNamespace(budget_s=budget_s, wall_factor=3.0)
        self._spent = [0.0, 0.0]


def test_a_request_cut_to_the_budget_left_is_charged_in_full_only_when_the_budget_stopped_it():
    budget = _Budget(15.0)
    budget._charge([_ok(0.15, 0.055, 0.05)], capped=True)         # finished under its cut limit
    assert budget._spent == [0.05, 0.15]
    budget._charge([_ok(2.5, 0.5, 2.0, status="timeout")], capped=True)   # stopped by the cut
    assert budget._spent == [2.55, 2.65]
    budget._charge([_ok(2.5, 0.5, 2.0, status="timeout")])       # its own limit: not charged
    assert budget._spent == [2.55, 2.65]
