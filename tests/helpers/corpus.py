"""A corpus of programs written as edits (tests/corpus/<name>/expected.toml), graded one course at a
time in one `grade-all` batch: what the corpus tests of instage, honest4/5, scriptonce,
chargeonce19 and gamecharge share (the rows, the points each lost by problem, what the failed checks said)."""

from __future__ import annotations

from pathlib import Path

from autograder.authoring.edits import apply_edits


def chained_text(corpus: Path, programs: list[dict], program: dict) -> str:
    """PROGRAM's source: its `base` (a .py file of CORPUS, or another program of PROGRAMS by name,
    itself built the same way) with its `edits`."""
    base = program["base"]
    text = (corpus / base).read_text(encoding="utf-8") if base.endswith(".py") else \
        chained_text(corpus, programs, next(p for p in programs if p["name"] == base))
    return apply_edits(text, program["edits"], base)


def grade_class(tmp: Path, course: str, files: dict[str, tuple[str, bytes | str]], **options) -> dict:
    """FILES (a folder name -> its file's name and content) written as a class folder in TMP and
    graded by one `grade-all` of COURSE (OPTIONS: grade_all's, e.g. stage); every one graded, none
    crashed; the gradebook's rows by submission id."""
    from autograder.grading.grade_all import grade_all
    from autograder.grading.gradebook import Gradebook

    for name, (file_name, content) in files.items():
        folder = tmp / "class" / name
        folder.mkdir(parents=True)
        path = folder / file_name
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    summary = grade_all(tmp / "class", tmp / "out", assignment=course, jobs=2, progress=False, exports=False,
                        **options)
    assert summary.graded == len(files) and not summary.crashed, summary
    with Gradebook(tmp / "out" / "gradebook.sqlite") as book:
        return {row.submission_id: row for row in book.rows(course)}


def program_id(program: dict) -> str:
    """A corpus program's submission id (its name, "/" replaced)."""
    return program["name"].replace("/", "-")


def grade_corpus(tmp_path_factory, corpus: Path, programs: list[dict]) -> dict:
    """Every program of PROGRAMS (each with its `assignment`) graded, one `grade-all` per course,
    as its course's student file: the rows by program_id."""
    from autograder.assignment import load_assignment

    found = {}
    for course in sorted({p["assignment"] for p in programs}):
        stem = Path(load_assignment(course).student_file).stem
        found.update(grade_class(tmp_path_factory.mktemp(f"{corpus.name}-{course}"), course, {
            program_id(p): (f"{stem}.py", chained_text(corpus, programs, p))
            for p in programs if p["assignment"] == course}))
    return found


def failed_feedback(row, problems, names: bool = True) -> str:
    """What ROW's failed checks of PROBLEMS say: their output and hints (NAMES: their names too)."""
    return "\n".join((f"{t['name']}\n" if names else "") + f"{t['output']}\n{t.get('hint') or ''}"
                     for t in row.tests if t["problem"] in problems and t["score"] < t["max_score"])


def lost_by_problem(row) -> dict[int, float]:
    """The points a gradebook ROW lost, by problem (4 decimals; a check within 1e-9 of its max lost nothing)."""
    lost: dict[int, float] = {}
    for test in row.tests:
        if test["score"] < test["max_score"] - 1e-9:
            lost[test["problem"]] = round(lost.get(test["problem"], 0) + test["max_score"] - test["score"], 4)
    return lost


def graded_exactly(row, name: str, score: float, problems: list[int]) -> tuple[dict[int, float], str]:
    """Assert a corpus program's ROW: graded without an error row, at SCORE exactly, losing points in
    PROBLEMS and no other; (its lost_by_problem, the summary line the test's later asserts show)."""
    import pytest

    lost = lost_by_problem(row)
    summary = f"{name}: score {row.score:g}, lost {lost}"
    assert not row.error and not [t["name"] for t in row.tests if t["status"] == "error"], summary
    assert row.score == pytest.approx(score, abs=1e-3), summary
    assert sorted(lost) == sorted(problems), summary
    return lost, summary


def assert_well_formed(corpus: Path, programs: list[dict], at_least: int) -> None:
    """A corpus's expected.toml: unique ids, AT_LEAST programs, every key a test reads, every edit fits."""
    assert len({program_id(p) for p in programs}) == len(programs) >= at_least
    for program in programs:
        assert {"name", "base", "edits", "why", "problems", "score", "assignment"} <= set(program), program
        base = chained_text(corpus, programs, {**program, "edits": []})
        assert chained_text(corpus, programs, program) != base, program["name"]     # every edit fits


def assert_as_predicted(row, program: dict, names: bool = True) -> str:
    """A corpus program's ROW at its exact score, losing points in its problems only, their failed
    checks saying its phrase; the summary line later asserts show."""
    _, summary = graded_exactly(row, program["name"], program["score"], program["problems"])
    said = failed_feedback(row, program["problems"], names=names)
    assert program["phrase"].lower() in said.lower(), summary
    return summary
