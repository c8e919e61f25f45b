"""A plan's rest after its batch stopped at a timeout runs ahead again (ahead.Plan._rebatch).

A stage's variant whose batch stops at an endless loop (Chance, P5) used to run the ~50 requests of
its plan after it one round trip each, and a public one asked after a hidden one in a public twin
(a life more).  Now the rest runs ahead again, in batches, from the first request the checks ask of
it.  These tests grade two such programs with and without the re-batch: every report is the same
(statuses, scores, feedback, notes, flags), the exact scores are main's, and the single requests
are a few instead of ~55 a grade.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from autograder.engine.program import Program
from autograder.engine.sandbox import Sandbox

ROOT = Path(__file__).resolve().parent.parent
CHANCE = "    return sum(dice)\n    # END PROBLEM 5"
SCORES = {"chance_loops": 94.1655, "mallory": 91.7655}     # main 44bdcdc's (mallory: samples/class)


def _programs(tmp_path: Path) -> list[Path]:
    source = (ROOT / "solution" / "yahtzee.py").read_text(encoding="utf-8")
    assert source.count(CHANCE) == 1
    (tmp_path / "chance_loops").mkdir()
    loops = tmp_path / "chance_loops" / "yahtzee.py"
    loops.write_text(source.replace(CHANCE, "    while True:\n        pass\n    # END PROBLEM 5"), encoding="utf-8")
    return [loops, ROOT / "samples" / "class" / "mallory.py"]


def _graded(paths: list[Path], rebatch: bool) -> tuple[list[tuple], int]:
    """(each report's fields that a student or instructor reads, the single requests of the stream)."""
    from autograder.grading.grade import grade_stream

    singles = [0]
    run, again = Sandbox.run, Program._rebatch

    def counting(self, request, limit=None):
        singles[0] += 1
        return run(self, request, limit)

    reports: list = []
    Sandbox.run = counting
    if not rebatch:
        Program._rebatch = lambda self, key, public: False
    try:
        grade_stream(iter(paths), reports.append, "yahtzee", "all")
    finally:
        Sandbox.run, Program._rebatch = run, again
    return [(r.score, r.error, r.notes, r.flags, [(t.test_id, t.status, t.score, t.output, t.hint) for t in r.tests])
            for r in reports], singles[0]


def test_the_rest_runs_in_batches_and_every_report_is_the_one_without(tmp_path):
    paths = _programs(tmp_path)
    with_rest, few = _graded(paths, rebatch=True)
    without, many = _graded(paths, rebatch=False)
    assert [report[0] for report in with_rest] == pytest.approx([SCORES["chance_loops"], SCORES["mallory"]])
    assert with_rest == without
    # (quiet: a few against ~110; a loaded machine stops batches at the budget left more often, so
    # the bound is loose: what it proves is that the rest no longer runs one request at a time)
    assert many >= 80 and few <= many // 2, (few, many)
