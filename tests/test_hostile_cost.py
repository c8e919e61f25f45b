"""What a hostile or slow program costs to grade (issue 13 item 5), and that the shortcuts which
make it cheap change no verdict.

Every case of tests/corpus/cost/ (expected outcomes in its expected.toml) is graded once with the
hostile corpus's limits, two at a time in a pool of warm workers, together with the reference
three times.  Each case asserts its exact score (recorded before endless loops were proved in the
sandbox), what its grade cost against a budget of the same run, in measures the machine's load
does not stretch (never the wall clock: the machine is shared, and at load 8-19 a wall budget
failed a grade that cost no more than alone): the CPU time of the grade's whole process tree (the
grader and its sandboxes) within a ratio to the reference's plus the case's own fixed cost (its
sleeps and spins, read from its file, and the kit's limit floors, read from the code:
expected.toml's `fixed`), so a faster reference cannot fail a case whose cost did not change; its
runs' own time (less their CPU waits); and, where it says, how many requests ran again at their
full limit after a trial ran out (an endless loop proved in the sandbox needs none).  The
positive controls, graded in the same run: a case whose sleeps doubled exceeds its case's bound
on the runs' own time, and a case whose spins doubled its case's CPU budget.
"""

from __future__ import annotations

import ast
import concurrent.futures
import multiprocessing
import re
import statistics
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers.cost import LIMITS, grade_timed, warm_up

from autograder import toml as tomllib  # the one TOML shim
from autograder.engine import trials
from autograder.engine.harness import endless

pytestmark = pytest.mark.serial      # CPU cost against the reference's, measured: alone in make test

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
    fixed: tuple = ()        # ([runs, per-run cost's name], ...): see expected.toml


CASES = [Case(**entry) for entry in EXPECTED["case"]]
# The kit's limit floors a case's fixed cost may name, read from the code (not restated here).
FLOORS = {"TRIAL_FLOOR_S": trials.TRIAL_FLOOR_S, "LOOK_AFTER": endless.LOOK_AFTER, "LOOK_EVERY": endless.LOOK_EVERY,
          "wall_s": LIMITS.wall_s}
DOUBLED = "sleep_in_chance"      # the positive control: this case with its sleep twice as long
SPUN = "spin_in_chance"          # the CPU's positive control: this case with its spin twice as long
FIXED_SLACK = 1.25               # a fixed cost's runs take up to a quarter more (a spin overshoots, a sleep wakes late)
RUNS_RATIO = 3                   # a case's other runs: the reference's requests, up to 3 x their time


def _constants(case: Case) -> dict[str, float]:
    """The number-valued names a case's file assigns at its top level (_SLEEP_S = 0.3)."""
    if case.path:
        return {}
    tree = ast.parse((COST / f"{case.name}.py").read_text(encoding="utf-8"))
    return {node.targets[0].id: node.value.value for node in tree.body
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Constant) and type(node.value.value) in (int, float)}


def fixed_cost(case: Case, constants: dict[str, float] | None = None) -> float:
    """The seconds CASE's grade takes whatever the grader's speed: runs x per-run cost, each cost
    a constant of the case's file (CONSTANTS: in place of its own) or a floor of the kit (FLOORS)."""
    known = {**FLOORS, **(_constants(case) if constants is None else constants)}
    return sum(runs * known[name] for runs, name in case.fixed)


def budget(case: Case, reference: dict) -> float:
    """What CASE's grade may cost in CPU time, its whole process tree's (the grader, its sandboxes:
    helpers/cost.py's "tree"): RATIO x the reference's grade (what scales with the grader: the
    same checks, more requests and lives where a trial runs out) and its fixed cost x FIXED_SLACK
    (a spin spends it on a CPU; a sleep, whose fixed cost counts here too, spends none).  A
    measure the machine's load leaves alone (a CPU second is a CPU second however long the
    process waited for it), where the wall clock it replaced failed mallory at load 8-19
    (0.74 s against 0.72 s, 2.5 x the reference's grade; 1.1 x alone)."""
    return case.ratio * reference["tree"] + FIXED_SLACK * fixed_cost(case)


def own_budget(case: Case, reference: dict) -> float:
    """What CASE's runs may take on their own (Outcome.elapsed less Outcome.wait, the sandbox's
    measures: the machine's load mostly out of it): its fixed cost x FIXED_SLACK, and RUNS_RATIO x
    the reference's runs (its other requests are the reference's)."""
    return FIXED_SLACK * fixed_cost(case) + RUNS_RATIO * reference["own"]


def _own(got: dict) -> float:
    return got["ran"] - got["waited"]


def _doubled_text(case: Case) -> str:
    """CASE's file with every constant its fixed cost names twice as large."""
    text = (COST / f"{case.name}.py").read_text(encoding="utf-8")
    constants = _constants(case)
    for name in {name for _, name in case.fixed if name in constants}:
        text, n = re.subn(rf"(?m)^{name} = [0-9.]+", f"{name} = {constants[name] * 2!r}", text)
        assert n == 1, name
    return text


def _submission(case: Case, folder: Path, doubled: bool = False) -> Path:
    if case.path:
        return REPO / case.path
    text = REFERENCE.read_text(encoding="utf-8").rstrip("\n") + "\n\n\n" + (
        _doubled_text(case) if doubled else (COST / f"{case.name}.py").read_text(encoding="utf-8"))
    path = folder / f"{case.name}{'-doubled' if doubled else ''}.py"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cost")
    jobs = [(f"reference-{n}", REFERENCE) for n in range(REFERENCE_GRADES)]
    jobs += [(case.name, _submission(case, folder)) for case in CASES]
    jobs.append((f"{DOUBLED}-doubled", _submission(_case(DOUBLED), folder, doubled=True)))
    jobs.append((f"{SPUN}-doubled", _submission(_case(SPUN), folder, doubled=True)))
    jobs.sort(key=lambda job: job[0] != "reference-1")        # one reference first, one in the middle,
    jobs.append(jobs.pop(1))                                   # one last
    context = multiprocessing.get_context("forkserver")
    with concurrent.futures.ProcessPoolExecutor(2, mp_context=context, initializer=warm_up,
                                                initargs=(str(REFERENCE),)) as pool:
        results = {r["name"]: r for r in pool.map(grade_timed, *zip(*[(n, str(p)) for n, p in jobs]))}
    grades = [results[f"reference-{n}"] for n in range(REFERENCE_GRADES)]
    reference = {key: statistics.median(g[key] for g in grades) for key in ("wall", "cpu", "tree", "spent")}
    reference["own"] = statistics.median(map(_own, grades))
    return results, reference


def _case(name: str) -> Case:
    return next(c for c in CASES if c.name == name)


def test_cost_corpus_is_complete():
    on_disk = {p.stem for p in COST.glob("*.py")}
    assert on_disk == {c.name for c in CASES if not c.path}
    assert len({c.name for c in CASES}) == len(CASES)


def test_fixed_costs_name_what_exists():
    """Every fixed cost names a constant of its case's file or a floor of the kit; the doubled
    control's file has its case's own constants twice as large, most of its fixed cost."""
    for case in CASES:
        known = {**FLOORS, **_constants(case)}
        assert all(runs > 0 and name in known for runs, name in case.fixed), case.name
    control = _case(DOUBLED)
    constants = _constants(control)
    doubled = {name: 2 * value for name, value in constants.items()}
    tree = ast.parse(_doubled_text(control))
    assert {n.targets[0].id: n.value.value for n in tree.body if isinstance(n, ast.Assign)
            and isinstance(n.value, ast.Constant)} == doubled
    own = sum(runs * constants[name] for runs, name in control.fixed if name in constants)
    assert fixed_cost(control, doubled) == pytest.approx(fixed_cost(control) + own)
    assert own > fixed_cost(control) / 2


def test_the_reference_gets_full_marks(runs):
    results, _ = runs
    assert [results[f"reference-{n}"]["score"] for n in range(REFERENCE_GRADES)] == [100] * REFERENCE_GRADES


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_cost(case, runs):
    results, reference = runs
    got = results[case.name]
    assert got["score"] == pytest.approx(case.score, abs=1e-4), case.why
    allowed = budget(case, reference)
    assert got["tree"] <= allowed, (
        f"{case.name}'s grade cost {got['tree']:.2f} s of CPU, over its {allowed:.2f} s: {case.ratio:g} x the "
        f"reference's {reference['tree']:.2f} s + its fixed {fixed_cost(case):.2f} s x {FIXED_SLACK:g}")
    allowed = own_budget(case, reference)
    assert _own(got) <= allowed, (
        f"{case.name}'s runs took {_own(got):.2f} s (CPU waits out), over their {allowed:.2f} s: its fixed "
        f"{fixed_cost(case):.2f} s x {FIXED_SLACK:g} + {RUNS_RATIO:g} x the reference's runs' {reference['own']:.2f} s")
    if case.full is not None:
        assert [t[1] for t in got["trials"]] == [case.full]


def test_a_doubled_cost_fails(runs):
    """The positive control: the same case with its sleep twice as long (a fixed cost nearly twice
    as large, every call of Chance paying twice), graded in the same run, gets the same score and
    fails its case's bound on the runs' own time (a sleep is not stretched by the machine's load,
    and the CPU waits are out: this holds at any load).  On a quiet machine it fails the wall
    wall clock too (printed by test_timings; not asserted: under load RATIO x the reference's grade
    grows past what the doubled sleeps add)."""
    results, reference = runs
    case, got = _case(DOUBLED), results[f"{DOUBLED}-doubled"]
    assert got["score"] == pytest.approx(case.score, abs=1e-4)
    assert _own(got) > own_budget(case, reference), (
        f"{DOUBLED} with its sleep doubled: its runs took {_own(got):.2f} s, within the case's "
        f"{own_budget(case, reference):.2f} s")


def test_a_doubled_spin_fails(runs):
    """The CPU's positive control: spin_in_chance with its spin twice as long (every call of Chance
    spends 0.6 s of CPU, not 0.3), graded in the same run, gets the same score and exceeds its
    case's CPU budget (CPU time: at any load)."""
    results, reference = runs
    case, got = _case(SPUN), results[f"{SPUN}-doubled"]
    assert got["score"] == pytest.approx(case.score, abs=1e-4)
    assert got["tree"] > budget(case, reference), (
        f"{SPUN} with its spin doubled cost {got['tree']:.2f} s of CPU, within the case's {budget(case, reference):.2f} s")


def test_timings(runs, capsys):
    """Not a check: prints every case's grading time, its ratio to the reference's, its budgets."""
    results, reference = runs
    lines = [f"reference (median of {REFERENCE_GRADES}): {reference['wall']:.2f} s wall, {reference['tree']:.2f} s CPU"
             f" (the grader's {reference['cpu']:.2f}), its runs {reference['own']:.2f} s"]
    controls = [(f"{DOUBLED}-doubled", _case(DOUBLED)), (f"{SPUN}-doubled", _case(SPUN))]
    for name, case in [(c.name, c) for c in CASES] + controls:
        got = results[name]
        lines.append(f"{name:<26} {got['score']:>8g} CPU {got['tree']:>5.2f} s {got['tree'] / reference['tree']:>5.1f} x"
                     f" (budget {budget(case, reference):>5.2f} s: fixed {fixed_cost(case):.2f}); wall {got['wall']:.2f} s"
                     f" ({got['wall'] / reference['wall']:.1f} x, waits {got['waited']:.2f}); runs {_own(got):.2f} s"
                     f" (budget {own_budget(case, reference):.2f}); trials {got['trials']}")
    with capsys.disabled():
        print("\n" + "\n".join(lines))
