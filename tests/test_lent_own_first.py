"""A lent check's confirming run tries the student's own sandbox first (engine/confirm.py,
lent.ALL_OWN): no life is started where the student's own functions say the same, and every row
shows what the confirming lives alone would have let it show.  Real sandboxes, real grades."""

from __future__ import annotations

from pathlib import Path

import pytest

from autograder.engine import confirm
from autograder.engine.program import Program
from autograder.grading.grade import grade

SAMPLES = Path(__file__).resolve().parent.parent / "samples" / "class"


def _graded(path: Path, own_first: bool, monkeypatch) -> tuple[list, list]:
    """(each row's id, status, score, output, hint; the variants the student's Program started:
    not the reference's recording one, which runs first where the reference cache is made)."""
    lives: list = []
    close = Program.close

    def closing(self: Program) -> None:
        if self._owner is None and self._reference is not None and not self.label.startswith("the reference"):
            lives.append(sorted(keep for keep, v in self._variants.items() if v._sandbox.starts))
        close(self)

    monkeypatch.setattr(confirm, "OWN_FIRST", own_first)
    monkeypatch.setattr(Program, "close", closing)
    report = grade(path, "yahtzee")
    rows = [(t.test_id, t.status, t.score, t.output, t.hint) for t in report.tests]
    return rows, lives


@pytest.mark.parametrize("name, lives_saved", [("peggy", 1), ("nick", 1)])
def test_own_sandbox_first_shows_the_same_rows_with_fewer_lives(name, lives_saved, monkeypatch):
    """peggy (one failed stage-3 check beside the later stages' reference) and nick (two of its
    game rows need the earlier stages' reference to say the same: the fallback) get the very rows
    the confirming lives alone give them, with one life less each."""
    first, first_lives = _graded(SAMPLES / f"{name}.py", True, monkeypatch)
    alone, alone_lives = _graded(SAMPLES / f"{name}.py", False, monkeypatch)
    assert first == alone
    assert len(alone_lives[0]) - len(first_lives[0]) == lives_saved, (first_lives, alone_lives)
