"""`make mutants`: how strong the hidden suites are, measured by mutation testing.

Cosmic Ray (a maintained mutation-testing tool) generates the mutants: each of its core
operators (replace a binary or comparison operator, a number, True/False, and/or, break/continue,
an exception type; add `not`; empty a for loop) applied at each place it fits in the reference.
A mutant belongs to the problem whose `# BEGIN PROBLEM N` fence holds the changed line (the
innermost one); mutants of given code (outside every fence) are not counted, nor those of an
optional stage's problems (Yahtzee's stage 5, a strategy contest graded by score thresholds,
not by rules, outside the 100 points: `grade --stage 5` plays 1,000 games per program).
Every mutant is a file in one folder, graded by `grade-all` (the batch engine: parallel workers, one pytest
session each) with the hidden suite, all stages.

Per problem it prints: mutants, killed (lost points), survived (full marks), equivalent (listed
in the assignment's equivalent-mutants.toml with a one-line reason: no program behaviour can
tell them apart from the reference), and how many killed mutants lost points only in their own
problem's stage.  Targets: 100 % of non-equivalent mutants killed, >= 95 % charged only in their
own stage.  Survivors are listed with the key to paste into the equivalents file (or a new check
to write).

    python -m autograder mutants [--assignment NAME|all] [--sample N] [--jobs N]
"""

from __future__ import annotations

import argparse
import difflib
import random
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

from autograder import toml as tomllib  # the one TOML shim

from ..assignment import Assignment, available, load_assignment, load_for_cli

FENCE = re.compile(r"#\s*(BEGIN|END) PROBLEM (\d+)")


@dataclass(frozen=True)
class Mutant:
    name: str            # file stem: p03-ReplaceComparisonOperator_Eq_NotEq-2
    problem: int
    operator: str
    line: int
    before: str
    after: str
    source: str

    @property
    def key(self) -> str:
        """Stable across unrelated edits of the reference: the operator and the changed line."""
        return f"{self.operator}: {self.before} -> {self.after}"


def fences(source: str) -> dict[int, int]:
    """line number -> the innermost problem whose fence holds it."""
    owner, stack = {}, []
    for number, text in enumerate(source.split("\n"), start=1):
        match = FENCE.search(text)
        if match and match.group(1) == "BEGIN":
            stack.append(int(match.group(2)))
        elif match:
            if stack:
                stack.pop()
        elif stack:
            owner[number] = stack[-1]
    return owner


def operators() -> list:
    """(name, operator instance) for Cosmic Ray's core operators that need no configuration."""
    from cosmic_ray import plugins

    out = []
    for name in plugins.operator_names():
        if not name.startswith("core/") or "Variable" in name:   # the variable ones need arguments
            continue
        cls = plugins.get_operator(name)
        try:
            out.append((name.split("/", 1)[1], cls(None)))
        except TypeError:
            out.append((name.split("/", 1)[1], cls()))
    return out


def generate(spec: Assignment) -> tuple[list[Mutant], int]:
    """Every mutant of SPEC's reference inside a problem fence; and how many fell outside (an
    optional stage's problems count as outside: `all` does not grade them)."""
    from cosmic_ray.mutating import mutate_code

    source = spec.reference.read_text(encoding="utf-8")
    core = {s.number for s in spec.core_stages}
    owner = {line: number for line, number in fences(source).items()
             if spec.problem(number).stage in core}
    lines = source.split("\n")
    mutants, outside = [], 0
    for name, operator in operators():
        occurrence = 0
        while True:
            try:
                mutated = mutate_code(source, operator, occurrence)
            except Exception:           # an operator Cosmic Ray cannot apply to this code
                break
            if mutated is None:
                break
            occurrence += 1
            changed = [i for i, op in _changes(lines, mutated.split("\n"))]
            problem = owner.get(changed[0]) if changed else None
            if problem is None:
                outside += 1
                continue
            new_lines = mutated.split("\n")
            before = lines[changed[0] - 1].strip()
            after = new_lines[changed[0] - 1].strip() if changed[0] - 1 < len(new_lines) else ""
            mutants.append(Mutant(f"p{problem:02d}-{name}-{occurrence - 1}", problem, name, changed[0],
                                  before, after, mutated))
    return mutants, outside


def _changes(old: list[str], new: list[str]):
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, _, _, _ in matcher.get_opcodes():
        if tag != "equal":
            yield i1 + 1, tag


def equivalents(spec: Assignment) -> dict[str, str]:
    """key -> reason, from the assignment's equivalent-mutants.toml."""
    path = spec.equivalent_mutants
    if not path.is_file():
        return {}
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    return {item["key"]: item["reason"] for item in data.get("equivalent", [])}


def grade_mutants(spec: Assignment, mutants: list[Mutant], jobs: int | None, folder: Path) -> dict[str, dict]:
    """Grade every mutant with grade-all; name -> its grades.json summary."""
    import json

    from ..grading.grade_all import grade_all

    subs = folder / "submissions"
    subs.mkdir(parents=True, exist_ok=True)
    for mutant in mutants:
        (subs / f"{mutant.name}.py").write_text(mutant.source, encoding="utf-8")
    out = folder / "out"
    grade_all(subs, out, spec.name, "all", jobs, force=True, progress=False)
    data = json.loads((out / "grades.json").read_text(encoding="utf-8"))
    return {row["id"]: row for row in data["students"]}


def report(spec: Assignment, mutants: list[Mutant], rows: dict[str, dict], known: dict[str, str],
           outside: int, total: int) -> bool:
    """Print the table; True when both targets are met."""
    stage_of = {p.number: p.stage for p in spec.problems}
    per: dict[int, dict[str, int]] = {p.number: dict(n=0, killed=0, survived=0, equivalent=0, own=0)
                                      for p in spec.problems}
    survivors, strays = [], []
    for mutant in mutants:
        row = rows.get(mutant.name)
        counts = per[mutant.problem]
        counts["n"] += 1
        if row is None:
            survivors.append((mutant, "not graded"))
            continue
        lost = [int(p) for p, (got, top) in row["problems"].items() if got < top - 0.005]
        if not lost:
            if mutant.key in known:
                counts["equivalent"] += 1
            else:
                counts["survived"] += 1
                survivors.append((mutant, "full marks"))
            continue
        counts["killed"] += 1
        if {stage_of[p] for p in lost} == {stage_of[mutant.problem]}:
            counts["own"] += 1
        else:
            strays.append((mutant, lost))
    print(f"\n{spec.title}: {len(mutants)} mutants graded of {total} in the problem fences of the graded stages "
          f"({outside} more in given code or an optional stage, not counted)")
    print(f"{'problem':>8} {'stage':>5} {'mutants':>8} {'killed':>7} {'survived':>9} {'equivalent':>11} "
          f"{'own stage':>10}")
    sums = dict(n=0, killed=0, survived=0, equivalent=0, own=0)
    for problem in spec.problems:
        if problem.number not in per or not any(problem.stage == s.number for s in spec.core_stages):
            continue
        c = per[problem.number]
        for k in sums:
            sums[k] += c[k]
        print(f"{problem.number:>8} {problem.stage:>5} {c['n']:>8} {c['killed']:>7} {c['survived']:>9} "
              f"{c['equivalent']:>11} {c['own']:>10}")
    print(f"{'all':>8} {'':>5} {sums['n']:>8} {sums['killed']:>7} {sums['survived']:>9} {sums['equivalent']:>11} "
          f"{sums['own']:>10}")
    live = sums["n"] - sums["equivalent"]
    killed_pct = 100 * sums["killed"] / live if live else 100.0
    own_pct = 100 * sums["own"] / sums["killed"] if sums["killed"] else 100.0
    met_kill, met_own = sums["killed"] == live, own_pct >= 95
    print(f"killed {sums['killed']}/{live} non-equivalent ({killed_pct:.1f} %; target 100 %): "
          f"{'MET' if met_kill else 'NOT MET'}")
    print(f"charged only in their own stage {sums['own']}/{sums['killed']} killed ({own_pct:.1f} %; target >= 95 %): "
          f"{'MET' if met_own else 'NOT MET'}")
    for mutant, why in survivors:
        print(f"  survived ({why}) P{mutant.problem} line {mutant.line}: key = {mutant.key!r}")
    for mutant, lost in strays:
        print(f"  charged outside stage {stage_of[mutant.problem]}: P{mutant.problem} {mutant.key!r} lost {lost}")
    return met_kill and met_own


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of the `mutants` verb."""
    parser.add_argument("--assignment", default="all", metavar="NAME",
                        help=f"one assignment, or all (default): {', '.join(available())}")
    parser.add_argument("--sample", type=int, default=0, metavar="N",
                        help="grade N mutants per assignment, drawn with a fixed seed (default: all)")
    parser.add_argument("--jobs", "-j", type=int, default=None, help="grade-all workers (default: CPUs)")
    parser.add_argument("--keep", default=None, metavar="DIR", help="keep the mutant files and grades in DIR")


def run(args: argparse.Namespace) -> int:
    """The `mutants` verb: 0 when every target is met, 1 when one is not."""
    if args.assignment != "all" and load_for_cli(args.assignment) is None:
        return 2
    names = [n for n in available() if load_assignment(n).reference.is_file()] \
        if args.assignment == "all" else [args.assignment]
    met = True
    for name in names:
        spec = load_assignment(name)
        mutants, outside = generate(spec)
        total = len(mutants)
        if args.sample and args.sample < total:
            mutants = sorted(random.Random(12).sample(mutants, args.sample), key=lambda m: m.name)
        with tempfile.TemporaryDirectory(prefix=f"mutants-{name}-") as tmp:
            folder = Path(args.keep) / name if args.keep else Path(tmp)
            rows = grade_mutants(spec, mutants, args.jobs, folder)
        met = report(spec, mutants, rows, equivalents(spec), outside, total) and met
    return 0 if met else 1
