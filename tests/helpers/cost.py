"""Grading tests/corpus/cost/ for test_hostile_cost.py: the pool worker that grades one case and
times it (the pool's workers import this module by name, so it holds no fixture)."""

from __future__ import annotations

import time

from autograder.engine.sandbox import Limits

LIMITS = Limits(wall_s=1.0, cpu_s=4, memory_mb=256)      # the hostile corpus's limits (helpers/hostile.py)
_STUDENTS: list = []


def warm_up(reference: str) -> None:
    """Pool initializer: record the student Programs grade() makes; one grade first, so every
    timed grade is a warm worker's."""
    import autograder.grading.grade as grade_module

    class RecordingProgram(grade_module.Program):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            _STUDENTS.append(self)

    grade_module.Program = RecordingProgram
    grade_module.grade(reference, "yahtzee", limits=LIMITS)


def grade_timed(name: str, path: str) -> dict:
    """Grade PATH: its score, wall time and the trial counts of its Program (Program.trials)."""
    from autograder.grading.grade import grade

    _STUDENTS.clear()
    t0 = time.monotonic()
    report = grade(path, "yahtzee", limits=LIMITS)
    wall = time.monotonic() - t0
    trials = [list(p.trials) for p in _STUDENTS if p._owner is None]
    return {"name": name, "score": report.score, "wall": wall, "trials": trials}
