"""Assignments are content: a problem table, a reference, a starter, a handout, scenarios and suites.

The engine reads an assignment only through this module.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

PACKAGE_DIR = Path(__file__).resolve().parent
REPO_ROOT = PACKAGE_DIR.parent
ASSIGNMENTS_DIR = PACKAGE_DIR / "assignments"


@dataclass(frozen=True)
class Problem:
    number: int
    stage: int
    title: str
    points: float
    functions: tuple[str, ...] = ()


@dataclass(frozen=True)
class Stage:
    number: int
    title: str
    optional: bool = False          # graded only when asked for (--stage N); not in "all" nor the total


@dataclass(frozen=True)
class Assignment:
    name: str
    title: str
    root: Path                      # autograder/assignments/<name>
    student_file: str               # what the student submits, e.g. "yahtzee.py"
    solution: Path
    starter: Path
    handout: Path
    entry: str
    stages: tuple[Stage, ...]
    problems: tuple[Problem, ...]
    extra: dict = field(default_factory=dict, compare=False, hash=False)

    @property
    def suites_dir(self) -> Path:
        return self.root / "suites"

    @property
    def scenarios_dir(self) -> Path:
        return self.root / "scenarios"

    @property
    def core_stages(self) -> tuple[Stage, ...]:
        """The stages `--stage all` grades and the total counts (optional stages left out)."""
        return tuple(s for s in self.stages if not s.optional)

    @property
    def total_points(self) -> float:
        """The assignment's total: the problems of its non-optional stages."""
        core = {s.number for s in self.core_stages}
        return sum(p.points for p in self.problems if p.stage in core or not self.stages)

    def is_optional(self, stage: int) -> bool:
        return any(s.number == stage and s.optional for s in self.stages)

    def problem(self, number: int) -> Problem:
        for problem in self.problems:
            if problem.number == number:
                return problem
        raise KeyError(f"{self.name} has no problem {number}")

    def stage_problems(self, stage: int) -> list[Problem]:
        return [p for p in self.problems if p.stage == stage]

    def stage_points(self, stage: int) -> float:
        return sum(p.points for p in self.stage_problems(stage))

    def substitution(self, stage: int) -> dict:
        """What a check of STAGE runs with (a bug costs points once, in its own stage): "names", the
        functions graded in other stages only (earlier: a game calls the scoring functions; later:
        a stage-3 final_score calls the stage-4 upper_bonus), replaced by the reference's; "keep",
        the functions of STAGE itself, the student's own even where the reference's code calls them."""
        keep = {f for p in self.problems if p.stage == stage for f in p.functions}
        names = {f for p in self.problems if p.stage != stage for f in p.functions} - keep
        return {"names": sorted(names), "keep": sorted(keep)}

    def suite_files(self, stage: int | str = "all") -> list[Path]:
        """The pytest suite files for STAGE ("all" or a stage number), in stage order."""
        numbers = [s.number for s in self.core_stages] if stage == "all" else [int(stage)]
        files = []
        for number in numbers:
            files.extend(sorted(self.suites_dir.glob(f"test_stage{number}*.py")))
        return files


def available() -> list[str]:
    return sorted(p.parent.name for p in ASSIGNMENTS_DIR.glob("*/assignment.toml"))


@cache
def load_assignment(name: str = "yahtzee") -> Assignment:
    """Load autograder/assignments/NAME/assignment.toml; raise KeyError with the known names."""
    root = ASSIGNMENTS_DIR / name
    table = root / "assignment.toml"
    if not table.is_file():
        raise KeyError(f"unknown assignment {name!r}; known: {', '.join(available()) or 'none'}")
    data = tomllib.loads(table.read_text(encoding="utf-8"))
    stages = tuple(Stage(s["number"], s["title"], bool(s.get("optional", False))) for s in data.get("stages", []))
    problems = tuple(
        Problem(p["number"], p["stage"], p["title"], p["points"], tuple(p.get("functions", ())))
        for p in data.get("problems", [])
    )
    known = {"name", "title", "student_file", "solution", "starter", "handout", "entry", "stages", "problems"}
    return Assignment(
        name=data["name"],
        title=data["title"],
        root=root,
        student_file=data["student_file"],
        solution=REPO_ROOT / data["solution"],
        starter=REPO_ROOT / data["starter"],
        handout=REPO_ROOT / data["handout"],
        entry=data.get("entry", "main"),
        stages=stages,
        problems=problems,
        extra={k: v for k, v in data.items() if k not in known},
    )


def load_for_cli(name: str) -> Assignment | None:
    """load_assignment for a command-line verb: None (after one clear line on stderr) when unknown."""
    try:
        return load_assignment(name)
    except KeyError as err:
        print(f"error: {err.args[0]}", file=sys.stderr)
        return None
