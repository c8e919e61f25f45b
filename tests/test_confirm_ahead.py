"""The lent checks' confirming runs, their plan's requests run ahead in the student's own sandbox
(engine/confirm.py AHEAD, Program.own_ahead, pass 25): an unfinished program's ~75 requests in one
round trip instead of one each, and the very report it gets with each sent alone.  Real sandboxes,
real grades: each program graded once each way in this module."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from autograder.engine import confirm
from autograder.engine.sandbox import Sandbox
from autograder.grading.grade import grade

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = {"starter": ROOT / "starter" / "yahtzee.py",        # every function a stub
            "ivan": ROOT / "samples" / "class" / "ivan.py",     # stage 1 and part of stage 2 written
            "nick": ROOT / "samples" / "class" / "nick.py"}     # complete; three rows confirmed


def _graded(path: Path, ahead: bool) -> tuple[dict, int, int]:
    """(the report as JSON without its times, requests sent alone, requests sent in batches)."""
    alone, batched = [0], [0]
    run, run_batch = Sandbox.run, Sandbox.run_batch

    def one(self, request, limit=None):
        alone[0] += 1
        return run(self, request, limit)

    def many(self, requests, *args, **kwargs):
        batched[0] += len(requests)
        return run_batch(self, requests, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(confirm, "AHEAD", ahead)
        patch.setattr(Sandbox, "run", one)
        patch.setattr(Sandbox, "run_batch", many)
        report = grade(path, "yahtzee").to_dict()
    for row in report["tests"]:
        row.pop("elapsed", None)
    report.pop("execution_time", None)
    return json.loads(json.dumps(report, sort_keys=True)), alone[0], batched[0]


@pytest.fixture(scope="module")
def graded() -> dict[str, tuple]:
    return {name: (_graded(path, True), _graded(path, False)) for name, path in PROGRAMS.items()}


@pytest.mark.parametrize("name, score", [("starter", 0.0), ("ivan", 14.0), ("nick", 96.4196)])
def test_the_same_report_either_way(graded, name, score):
    (ahead, _, _), (alone, _, _) = graded[name]
    assert ahead == alone
    assert ahead["score"] == score


@pytest.mark.parametrize("name", ["starter", "ivan"])
def test_an_unfinished_programs_confirming_runs_take_one_round_trip(graded, name):
    """Sent alone: the load probe and 74 confirming requests; ahead: the probe alone, the 74 in
    the batch of the checks' plan run ahead (the same count of requests either way)."""
    (_, ahead_alone, ahead_batched), (_, alone_alone, alone_batched) = graded[name]
    assert alone_alone == 75
    assert ahead_alone == 1
    assert ahead_batched == alone_batched + 74


def test_a_complete_program_confirms_as_before(graded):
    """nick's three confirmed rows: what its own sandbox serves runs ahead (2 requests), the same
    requests in all either way."""
    (_, ahead_alone, ahead_batched), (_, alone_alone, alone_batched) = graded["nick"]
    assert ahead_alone == alone_alone - 2
    assert ahead_alone + ahead_batched == alone_alone + alone_batched
