"""Checks as data (engine/verdicts.py): a check's passing verdict is given again, without running
the check, only to a submission whose answers to it are the very answers it passed with; every
report is the one the checks themselves give.  Real sandboxes, no mocks; no timing asserted."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from helpers.programs import do_nothing

from autograder import toml as tomllib
from autograder.assignment import load_assignment
from autograder.authoring.edits import apply_edits
from autograder.engine import plugin, verdicts
from autograder.engine.program import Program
from autograder.engine.sandbox import Limits, Request

ROOT = Path(__file__).resolve().parents[1]
COURSES = ("yahtzee", "pytzee", "yatzy", "cs21", "swe3006")


def _rows(report) -> dict:
    """A report as data, its timings aside."""
    data = report.to_dict()
    data.pop("execution_time", None)
    for test in data.get("tests", []):
        test.pop("elapsed", None)
    return data


def _stream(paths: list[str], course: str, on: bool, monkeypatch) -> tuple[list[dict], int]:
    """PATHS graded in one session (as a grade-all worker does) with checks as data ON or off:
    the reports, and how many checks were given their verdict without running."""
    from autograder.grading.grade import grade_stream

    monkeypatch.setattr(plugin, "VERDICTS", on)
    given = [0]
    replays = verdicts.Verdict.replays

    def counted(self, student):
        ok = replays(self, student)
        given[0] += ok
        return ok

    monkeypatch.setattr(verdicts.Verdict, "replays", counted)
    reports: list = []
    grade_stream(iter(paths), reports.append, course)
    monkeypatch.undo()
    return [_rows(r) for r in reports], given[0]


def _class(course: str, folder: Path) -> list[str]:
    """COURSE's solution, some of its mutants (each a different bug), a program doing nothing,
    and the solution again, written to FOLDER: passes to record, then answers that differ."""
    spec = load_assignment(course)
    solution = (ROOT / "solution" / f"{course}.py").read_text(encoding="utf-8")
    mutants = tomllib.loads(spec.mutants.read_text(encoding="utf-8"))["mutant"]
    sources = [solution] + [apply_edits(solution, m["edits"], m["name"]) for m in mutants[:: max(1, len(mutants) // 5)]]
    sources += [do_nothing(course, "return None"), solution]
    paths = []
    for index, source in enumerate(sources):
        path = folder / f"s{index}" / f"{course}.py"
        path.parent.mkdir()
        path.write_text(source, encoding="utf-8")
        paths.append(str(path))
    return paths


def _same_where_determined(given: list[dict], ran: list[dict], again: list[dict]) -> None:
    """GIVEN equals RAN, but for the rows where RAN and AGAIN (every check run, twice) differ: a
    submission that draws random numbers of its own (a mutant calling random.choice) answers
    differently from run to run, whatever the grader does."""
    assert len(given) == len(ran) == len(again)
    for a, b, c in zip(given, ran, again):
        assert {k: v for k, v in a.items() if k != "tests"} == {k: v for k, v in b.items() if k != "tests"} \
            or b != c
        assert len(a["tests"]) == len(b["tests"])
        for x, y, z in zip(a["tests"], b["tests"], c["tests"]):
            assert x == y or y != z, (x, y)


@pytest.mark.parametrize("course", COURSES)
def test_verdicts_given_as_data_are_the_checks_own(course, tmp_path, monkeypatch):
    """Each course's solution, mutants and a do-nothing program in one session: the same reports,
    row for row, with checks as data and with every check run."""
    paths = _class(course, tmp_path)
    given, replayed = _stream(paths, course, True, monkeypatch)
    ran, none = _stream(paths, course, False, monkeypatch)
    assert none == 0
    if given != ran:
        _same_where_determined(given, ran, _stream(paths, course, False, monkeypatch)[0])
    if course == "yahtzee":
        assert replayed > 0


def test_the_sample_class_twice_gives_the_same_reports(monkeypatch):
    """The sample class (every kind of bug, a notebook, a folder), twice in one session."""
    folder = ROOT / "samples" / "class"
    paths = [str(p) for p in sorted(folder.iterdir())] * 2
    given, replayed = _stream(paths, "yahtzee", True, monkeypatch)
    ran, _ = _stream(paths, "yahtzee", False, monkeypatch)
    assert replayed > 0
    assert given == ran


def test_a_single_grade_traces_no_check_and_gives_the_same_report(monkeypatch):
    """grade() grades one submission in its session: no later one could be given a verdict, so its
    checks run untraced (plugin trace=False); a stream of the same file traces them.  The report is
    the same row for row (the sample class's every kind of bug, a stub, a notebook, a folder)."""
    from autograder.grading.grade import grade, grade_stream

    traced = [0]
    start = verdicts.start

    def counted(student):
        traced[0] += 1
        start(student)

    monkeypatch.setattr(verdicts, "start", counted)
    folder = ROOT / "samples" / "class"
    paths = [str(p) for p in sorted(folder.iterdir())]
    for path in paths[:6]:
        single = _rows(grade(path, "yahtzee"))
        assert traced[0] == 0, path
        streamed: list = []
        grade_stream(iter([path]), streamed.append, "yahtzee")
        assert traced[0] > 0, path
        traced[0] = 0
        assert single == _rows(streamed[0]), path


STATEFUL = textwrap.dedent("""
    COUNT = [0]

    def bump(n):
        COUNT[0] += n
        return COUNT[0]

    def game():
        return input("name? ")
""").lstrip()


def _call(func: str, *args, stdin=None) -> Request:
    return Request("call", func, list(args), {}, stdin, None, None, stdin is not None, None)


PLAN = [_call("bump", 1), _call("game", stdin=["ann"]), _call("bump", 2)]


def _traced(program: Program, reads) -> verdicts.Verdict | None:
    """A check that runs READS(PROGRAM) and passes: its Verdict, if it is data."""
    verdicts.start(program)
    program.called.clear()
    reads(program)
    verdict = verdicts.verdict_of(program, trivial=False)
    verdicts.stop(program)
    return verdict


def test_a_verdict_replays_only_on_the_same_answers_and_takes_them_as_the_check_would():
    first, same, other = (Program(source, "m.py", limits=Limits(wall_s=2))
                          for source in (STATEFUL, STATEFUL, STATEFUL.replace("COUNT[0] += n", "COUNT[0] -= n")))
    try:
        for program in (first, same, other):
            program.prefetch(PLAN)
        verdict = _traced(first, lambda p: [p.call("bump", 1), p.call("game", stdin=["ann"]), p.call("bump", 2)])
        assert verdict is not None and verdict.called == {"bump", "game"}
        assert verdict.replays(same)
        assert not same._shared_ahead and not same._fresh_ahead      # taken as the check would
        assert same.called >= {"bump", "game"}
        assert not verdict.replays(other)                            # bump answers -1: the check runs itself
        assert len(other._shared_ahead) == 2 and len(other._fresh_ahead) == 1     # nothing taken
        assert [other.call("bump", 1).value, other.call("bump", 2).value] == [-1, -3]
        assert other.round_trips == 1
    finally:
        for program in (first, same, other):
            program.close()


@pytest.mark.parametrize("read", ["source", "functions", "a list memo", "a list memo in a memo", "an untraced memo",
                                  "a memo that raised", "timed_out"])
def test_a_check_reading_more_than_its_answers_leaves_no_verdict(read):
    program = Program(STATEFUL, "m.py", limits=Limits(wall_s=2))
    try:
        program.prefetch(PLAN)
        if read == "an untraced memo":
            program.memo("key", lambda: 1)

        def reads(p: Program) -> None:
            p.call("bump", 1)
            if read == "source":
                assert "COUNT" in p.source
            elif read == "functions":
                assert "bump" in p.functions
            elif read == "a list memo":
                p.memo("key", lambda: [1])
            elif read == "a list memo in a memo":
                p.memo("key", lambda: p.memo("inner", lambda: [1])[0])
            elif read == "an untraced memo":
                p.memo("key", None)
            elif read == "a memo that raised":
                with pytest.raises(ValueError):
                    p.memo("key", lambda: int("x"))
            else:
                p.timed_out.add("bump")
        assert _traced(program, reads) is None
        if read == "timed_out":
            assert not verdicts.traceable(program)
    finally:
        program.close()


def test_a_memo_is_data_when_its_compute_read_answers_only():
    """A check reading a memo (a game read once, by several checks): replayed where the memo's
    COMPUTE would read the same answers; the memo then holds the traced value, the functions its
    COMPUTE called count as the check's, and a check reading it next replays on it too."""
    first, second, third = (Program(STATEFUL, "m.py", limits=Limits(wall_s=2)) for _ in range(3))
    try:
        for program in (first, second, third):
            program.prefetch(PLAN)

        def game(p: Program) -> str:        # (a memo read by another's COMPUTE: data too)
            return p.memo("game", lambda: p.memo("answer", lambda: p.call("game", stdin=["ann"]).value).upper())

        computed = _traced(first, lambda p: (game(p), p.call("bump", 1)))
        read = _traced(first, lambda p: (p.memoized("game"), game(p), p.call("bump", 2)))
        assert computed is not None and read is not None
        assert computed.called == {"bump"} and read.called == {"bump"}
        second.called.clear()
        assert computed.replays(second)
        assert second.memo("game", None) == "ANN" and second.called == {"bump", "game"}
        assert not second._fresh_ahead and len(second._shared_ahead) == 1
        assert read.replays(second) and not second._shared_ahead
        assert not read.replays(third)          # no memo yet, so memoized("game") is no longer True
        third.memo("game", lambda: third.call("game", stdin=["ann"]).value.upper())   # (untraced)
        assert "answer" not in third._memo
        assert not read.replays(third)          # a memo of this submission's, not traced: the check runs
    finally:
        for program in (first, second, third):
            program.close()


def test_an_answer_not_in_the_plan_runs_the_check():
    """A traced request the plan does not hold (its answer would come from a run): no replay."""
    first, second = Program(STATEFUL, "m.py", limits=Limits(wall_s=2)), Program(STATEFUL, "m.py", limits=Limits(wall_s=2))
    try:
        first.prefetch(PLAN)
        second.prefetch(PLAN[:1])
        verdict = _traced(first, lambda p: [p.call("bump", 1), p.call("bump", 2)])
        assert verdict is not None
        assert not verdict.replays(second)
        assert len(second._shared_ahead) == 1
    finally:
        first.close()
        second.close()
