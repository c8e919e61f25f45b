"""Assignments are content: one folder each, autograder/assignments/<name>/.

The folder holds assignment.toml (the problem table and rules data), reference.py (the source of
truth), handout.md, scenarios/, suites/ and optionally plan.py, notebooks.toml, mutants.toml,
equivalent-mutants.toml and samples.toml: every file is found by convention, through a property
of `Assignment`, so no other code builds these paths.  The top-level solution/<name>.py and
starter/<name>.py are the generated student-facing views (`python -m autograder build`); they
exist only in a checkout of the repository (`Assignment.in_repository`).

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

DEFAULT_ASSIGNMENT = "yahtzee"      # the kit's main track: what a verb works on without --assignment
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
    student_file: str               # what the student submits (assignment.toml's student_file)
    entry: str
    stages: tuple[Stage, ...]
    problems: tuple[Problem, ...]
    extra: dict = field(default_factory=dict, compare=False, hash=False)
    views: Path = field(default=REPO_ROOT, compare=False)   # where solution/ and starter/ are generated

    # --- the content files, by convention (paths inside the assignment's folder) -------------
    @property
    def table(self) -> Path:
        """assignment.toml: the problem table and rules data."""
        return self.root / "assignment.toml"

    @property
    def reference(self) -> Path:
        """reference.py: the reference solution with its problem fences, THE source."""
        return self.root / "reference.py"

    @property
    def handout(self) -> Path:
        """handout.md (shipped to students as `handout_name`)."""
        return self.root / "handout.md"

    @property
    def handout_name(self) -> str:
        """The handout's file name in the student bundle, and in the starter's note."""
        return f"handout-{self.name}.md"

    @property
    def notebook_content(self) -> Path:
        """notebooks.toml: teaching text and extra public checks of the stage notebooks (optional)."""
        return self.root / "notebooks.toml"

    @property
    def mutants(self) -> Path:
        """mutants.toml: single-bug programs as edits of the reference, with their exact scores."""
        return self.root / "mutants.toml"

    @property
    def equivalent_mutants(self) -> Path:
        """equivalent-mutants.toml: generated mutants no program behaviour can tell apart."""
        return self.root / "equivalent-mutants.toml"

    @property
    def samples(self) -> Path:
        """samples.toml: the sample class, as edits of the reference or named files (optional)."""
        return self.root / "samples.toml"

    @property
    def plan(self) -> Path:
        """plan.py: the scenario plan of `python -m autograder scenarios` (optional)."""
        return self.root / "plan.py"

    @property
    def suites_dir(self) -> Path:
        return self.root / "suites"

    @property
    def scenarios_dir(self) -> Path:
        return self.root / "scenarios"

    # --- the generated student-facing views at the repository's top level --------------------
    @property
    def solution(self) -> Path:
        """solution/<name>.py: a generated copy of the reference, for the course's eyes."""
        return self.views / "solution" / f"{self.name}.py"

    @property
    def starter(self) -> Path:
        """starter/<name>.py: generated from the reference (every fenced region a stub)."""
        return self.views / "starter" / f"{self.name}.py"

    @property
    def in_repository(self) -> bool:
        """True in a checkout of the kit (the views and the repo's tests exist), False when installed."""
        return in_repository()

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


# An assignment's files that grading never reads (a change to them regrades no one; they stay out
# of the Gradescope bundle).
AUTHORING_ONLY = frozenset({"samples", "samples.toml", "mutants.toml", "equivalent-mutants.toml", "plan.py"})


def kit_version() -> str:
    """The installed distribution's version of this package ("0" when it is not installed)."""
    from importlib.metadata import PackageNotFoundError, packages_distributions, version

    try:
        return version(packages_distributions().get(__package__, [""])[0])
    except (PackageNotFoundError, ValueError):
        return "0"


def in_repository() -> bool:
    """Whether the package runs from a checkout of the kit (not from an installed wheel)."""
    return (REPO_ROOT / "pyproject.toml").is_file()


def needs_repository(what: str) -> str | None:
    """None in a checkout; else one clear line saying WHAT needs the kit's repository."""
    if in_repository():
        return None
    return (f"{what} needs a checkout of the kit's repository (it reads or writes the files around the "
            f"autograder package there); this autograder is an installed package ({PACKAGE_DIR}): "
            f"run it from a clone of the repository")


def available() -> list[str]:
    return sorted(p.parent.name for p in ASSIGNMENTS_DIR.glob("*/assignment.toml"))


@cache
def load_assignment(name: str = DEFAULT_ASSIGNMENT) -> Assignment:
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
    # solution/starter/handout: the paths of the layout before one folder per assignment; files
    # are found by convention now, and a not-yet-updated assignment.toml keeps working.
    known = {"name", "title", "student_file", "solution", "starter", "handout", "entry", "stages", "problems"}
    return Assignment(
        name=data["name"],
        title=data["title"],
        root=root,
        student_file=data["student_file"],
        entry=data.get("entry", "main"),
        stages=stages,
        problems=problems,
        extra={k: v for k, v in data.items() if k not in known},
    )


def add_assignment_argument(parser, what: str = "assignment to grade against") -> None:
    """The --assignment option every verb shares (its stage choices come from the one chosen)."""
    parser.add_argument("--assignment", default=DEFAULT_ASSIGNMENT, metavar="NAME",
                        help=f"{what} (default: {DEFAULT_ASSIGNMENT}; the kit has {', '.join(available())})")


def stage_error(spec: Assignment, stage: str | int | None, allow_all: bool = True) -> str | None:
    """Why STAGE is not a stage of SPEC (one line naming the ones it has), or None when it is."""
    numbers = [str(s.number) for s in spec.stages]
    if stage is None or str(stage) in numbers or (allow_all and str(stage) == "all"):
        return None
    choices = ", ".join(numbers) + (" or all" if allow_all else "")
    return f"{spec.name} has no stage {stage}: choose {choices}"


def load_for_cli(name: str) -> Assignment | None:
    """load_assignment for a command-line verb: None (after one clear line on stderr) when unknown."""
    try:
        return load_assignment(name)
    except KeyError as err:
        print(f"error: {err.args[0]}", file=sys.stderr)
        return None
