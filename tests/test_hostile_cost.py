"""What a hostile or slow program costs to grade (issue 13 item 5), and that the shortcuts which
make it cheap change no verdict.

Every case of tests/corpus/cost/ (expected outcomes in its expected.toml) is graded once with the
hostile corpus's limits, two at a time in a pool of warm workers, together with the reference
three times.  Each case asserts its exact score (recorded before endless loops were proved in the
sandbox), its grading time as a ratio to the reference's in the same run (never an absolute
time: the machine is shared), and, where it says, how many requests ran again at their full
limit after a trial ran out (an endless loop proved in the sandbox needs none).
"""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import statistics
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers.cost import grade_timed, warm_up

from autograder import toml as tomllib  # the one TOML shim

REPO = Path(__file__).resolve().parent.parent
COST = REPO / "tests" / "corpus" / "cost"
EXPECTED = tomllib.loads((COST / "expected.toml").read_text(encoding="utf-8"))
REFERENCE = REPO / "solution" / "yahtzee.py"
REFERENCE_GRADES = 3


@dataclass
class Case:
    name: str
    why: str
    score: float
    ratio: float
    path: str = ""
    full: int | None = None


CASES = [Case(**entry) for entry in EXPECTED["case"]]


def _submission(case: Case, folder: Path) -> Path:
    if case.path:
        return REPO / case.path
    text = REFERENCE.read_text(encoding="utf-8").rstrip("\n") + "\n\n\n" + (COST / f"{case.name}.py").read_text(
        encoding="utf-8")
    path = folder / f"{case.name}.py"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cost")
    jobs = [(f"reference-{n}", REFERENCE) for n in range(REFERENCE_GRADES)]
    jobs += [(case.name, _submission(case, folder)) for case in CASES]
    jobs.sort(key=lambda job: job[0] != "reference-1")        # one reference first, one in the middle,
    jobs.append(jobs.pop(1))                                   # one last
    context = multiprocessing.get_context("forkserver")
    with concurrent.futures.ProcessPoolExecutor(2, mp_context=context, initializer=warm_up,
                                                initargs=(str(REFERENCE),)) as pool:
        results = {r["name"]: r for r in pool.map(grade_timed, *zip(*[(n, str(p)) for n, p in jobs]))}
    reference = statistics.median(results[f"reference-{n}"]["wall"] for n in range(REFERENCE_GRADES))
    return results, reference


def test_cost_corpus_is_complete():
    on_disk = {p.stem for p in COST.glob("*.py")}
    assert on_disk == {c.name for c in CASES if not c.path}
    assert len({c.name for c in CASES}) == len(CASES)


def test_the_reference_gets_full_marks(runs):
    results, _ = runs
    assert [results[f"reference-{n}"]["score"] for n in range(REFERENCE_GRADES)] == [100] * REFERENCE_GRADES


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_cost(case, runs):
    results, reference = runs
    got = results[case.name]
    assert got["score"] == pytest.approx(case.score, abs=1e-4), case.why
    assert got["wall"] <= case.ratio * reference, (
        f"{case.name} took {got['wall']:.2f} s, {got['wall'] / reference:.1f} x the reference's {reference:.2f} s")
    if case.full is not None:
        assert [t[1] for t in got["trials"]] == [case.full]


def test_timings(runs, capsys):
    """Not a check: prints every case's grading time and its ratio to the reference's."""
    results, reference = runs
    lines = [f"reference (median of {REFERENCE_GRADES}): {reference:.2f} s"]
    for case in CASES:
        got = results[case.name]
        lines.append(f"{case.name:<34} {got['score']:>8g} {got['wall']:>6.2f} s {got['wall'] / reference:>5.1f} x"
                     f"  trials {got['trials']}")
    with capsys.disabled():
        print("\n" + "\n".join(lines))
