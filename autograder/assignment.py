"""Assignments are content: one folder each, autograder/assignments/<name>/.

The folder holds assignment.toml (the problem table and rules data), reference.py (the source of
truth), handout.md, scenarios/, suites/ and optionally plan.py, notebooks.toml, mutants.toml,
equivalent-mutants.toml and samples.toml: every file is found by convention, through a property
of `Assignment`, so no other code builds these paths.  The top-level solution/<name>.py and
starter/<name>.py are the generated student-facing views (`python -m autograder build`); they
exist only in a checkout of the repository (`Assignment.in_repository`).

A course can also live outside the package: `--assignment path/to/folder` (or the folder listed
in $AUTOGRADER_ASSIGNMENTS, then `--assignment NAME`) loads the same layout from there; its
generated views go into that folder.  A folder that is not an assignment (no assignment.toml, a
table without problems, points that are not numbers ...) is refused with what is wrong.

The engine reads an assignment only through this module.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path

from autograder import toml as tomllib  # the one TOML shim

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

    def notebook_data(self) -> dict:
        """notebooks.toml parsed ({} without one): read once per version of the file (the call graph
        and every notebook build read it), each caller given its own copy to change."""
        import copy

        path = self.notebook_content
        try:
            stat = path.stat()
        except OSError:
            return {}
        return copy.deepcopy(_parsed_toml(str(path), stat.st_mtime_ns, stat.st_size))

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

    def made_from_key(self) -> str:
        """sha256 of every file what is generated from this assignment is made from (its public
        checks, its notebooks, its count of hidden checks): its folder's files (reference,
        scenarios, suites, tables, notebook content) and the kit's own code.  A change to any of
        them is a new key; ~10-30 ms (the kit's code is ~1.8 MB)."""
        import hashlib

        skipped = {"samples", "refcache", "__pycache__"}      # (folders nothing is generated from)
        paths = {*PACKAGE_DIR.rglob("*.py"), *(p for p in self.root.rglob("*")
                                               if not skipped & set(p.relative_to(self.root).parts))}
        digest = hashlib.sha256(f"made from {self.name}\0".encode())
        for path in sorted(paths):
            if "__pycache__" not in path.parts and path.is_file():
                data = path.read_bytes()
                digest.update(f"{path}\0{len(data)}\0".encode())
                digest.update(data)
        return digest.hexdigest()

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
        the functions of STAGE itself, the student's own even where the reference's code calls them.
        A method is named "Class.method": in `functions` itself, or every bare name when the table
        says `class_name` (the problems' functions are that class's methods); the sandbox then sets
        the reference's methods on the STUDENT's class (harness/targets.py)."""
        keep = {self.qualified(f) for p in self.problems if p.stage == stage for f in p.functions}
        if not self.is_optional(stage):
            # An optional stage's functions (yahtzee's stage-5 strategy) never serve a core stage's
            # check: the student's own, and its substitution sandbox holds no reference of them.  On
            # main d3a0ea6 a stage-1 public check's message could carry the reference strategy's
            # bytecode (round9 later_stage_reference; the core stages' still can: threat-model.md)
            keep |= {self.qualified(f) for p in self.problems if self.is_optional(p.stage) for f in p.functions}
        names = {self.qualified(f) for p in self.problems if p.stage != stage for f in p.functions} - keep
        return {"names": sorted(names), "keep": sorted(keep)}

    @property
    def handout_names(self) -> frozenset[str]:
        """Every name the problems give (a function; a method's class and method names; the table's
        class): a did-you-mean never offers one of them for another (engine/outcomes.not_another)."""
        names = {part for p in self.problems for f in p.functions for part in (f, *f.split("."))}
        owner = self.extra.get("class_name")
        return frozenset(names | ({owner} if isinstance(owner, str) and owner else set()))

    def calls(self) -> dict[int, tuple[int, ...]]:
        """Problem number -> the other problems whose functions its functions call in the reference,
        through any helper (a final score calls the upper bonus): where a self-check, which runs the
        student's own functions throughout, fails a problem for another's bug that the grade charges
        once, in that other problem (a stage's retry with the reference's version, or another
        stage's substitution).  Methods by their bare names (`self.score(...)`).  Worked out once per
        version of the files it reads (~20 ms: every stage's notebook and report asks)."""
        stamps = tuple((p.stat().st_mtime_ns, p.stat().st_size) if p.is_file() else None
                       for p in (self.reference, self.notebook_content))
        key = (self, stamps)
        if key not in _CALLS:
            _CALLS[key] = self._calls()
        return dict(_CALLS[key])

    def _calls(self) -> dict[int, tuple[int, ...]]:
        import ast

        tree = ast.parse(self.reference.read_text(encoding="utf-8"))
        called: dict[str, set[str]] = {}
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                called.setdefault(node.name, set()).update(
                    call.func.id if isinstance(call.func, ast.Name) else call.func.attr
                    for call in ast.walk(node) if isinstance(call, ast.Call)
                    and isinstance(call.func, (ast.Name, ast.Attribute)))
                # and a function named as a value (a dispatch table {"Pair": pair}, a key=): called
                # through it (pass 25: yatzy's score and cs21's slotScore reached no scoring problem)
                called[node.name].update(name.id for name in ast.walk(node)
                                         if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Load))
        owners: dict[str, set[int]] = {}      # (a function graded by two problems belongs to both:
        for p in self.problems:                # final_score's bug of P14 fails P16 too, not P20's only)
            for f in p.functions:
                owners.setdefault(f.split(".")[-1], set()).add(p.number)
        checked = self._names_in_public_checks(tree, self.notebook_data())
        out = {}
        for problem in self.problems:
            own = {f.split(".")[-1] for f in problem.functions}
            # (and what its public checks' own code calls: a docstring's `card = new_scorecard()`, a
            # check's `play_strategy(...)`, whose bugs fail its self-check too)
            reached, todo = set(), list(own | checked.get(problem.number, set()))
            reached.update(checked.get(problem.number, set()) - own)
            while todo:
                for name in called.get(todo.pop(), ()):
                    if name not in reached:
                        reached.add(name)
                        todo.append(name)
            others = {n for name in reached - own for n in owners.get(name, ())}
            # and an earlier problem grading one of its own functions (play_round: P12 for P19): a bug
            # of that problem's part fails this one's checks too, and is charged there
            others |= {n for name in own for n in owners.get(name, ()) if n < problem.number}
            others = sorted(others - {problem.number})
            if others:
                out[problem.number] = tuple(others)
        return out

    def _names_in_public_checks(self, tree, content: dict) -> dict[int, set[str]]:
        """Problem number -> the names its public checks' code calls: the doctest examples of its
        functions' docstrings in the reference (TREE) and the notebook CONTENT's `checks` (setup, expr)."""
        import ast
        import doctest

        def names(code: str) -> set[str]:
            try:
                parsed = ast.parse(code)
            except SyntaxError:
                return set()
            return {n.func.id for n in ast.walk(parsed) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}

        found: dict[int, set[str]] = {}
        docs = {node.name: ast.get_docstring(node) or "" for node in ast.walk(tree)
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
        for problem in self.problems:
            for function in problem.functions:
                for example in doctest.DocTestParser().get_examples(docs.get(function.split(".")[-1], "")):
                    found.setdefault(problem.number, set()).update(names(example.source))
        for number, spec in (content.get("problems") or {}).items():
            # (both forms: the `checks = [...]` list and the `[[problems.N.check]]` tables, whose
            # setup, call and after run the student's functions too: pass 25)
            listed = [*spec.get("checks", ()), *spec.get("check", ())] if isinstance(spec, dict) else []
            for check in listed:
                codes = [check] if isinstance(check, str) else [
                    *check.get("setup", ()), check.get("expr", ""), check.get("call", ""), *check.get("after", ())]
                for code in codes:
                    found.setdefault(int(number), set()).update(names(code))
        return found

    def qualified(self, function: str) -> str:
        """FUNCTION as substitution names it: "Class.method" for a method of the table's
        `class_name` (a name with a dot is taken as it is), else the module-level name."""
        owner = self.extra.get("class_name")
        if "." in function or not isinstance(owner, str) or not owner:
            return function
        return f"{owner}.{function}"

    def suite_files(self, stage: int | str = "all") -> list[Path]:
        """The pytest suite files for STAGE ("all" or a stage number), in stage order."""
        numbers = [s.number for s in self.core_stages] if stage == "all" else [int(stage)]
        files = []
        for number in numbers:
            files.extend(sorted(self.suites_dir.glob(f"test_stage{number}*.py")))
        return files


_CALLS: dict[tuple, dict[int, tuple[int, ...]]] = {}


@lru_cache(maxsize=16)
def _parsed_toml(path: str, mtime_ns: int, size: int) -> dict:
    """A TOML file parsed once per version (its path, mtime and size: the key; callers copy)."""
    return tomllib.loads(Path(path).read_text(encoding="utf-8"))


# An assignment's files that grading never reads (a change to them regrades no one; they stay out
# of the Gradescope bundle).
AUTHORING_ONLY = frozenset({"samples", "samples.toml", "mutants.toml", "equivalent-mutants.toml", "plan.py"})


DISTRIBUTION = "yahtzee-kit"        # pyproject.toml's [project] name


def kit_version() -> str:
    """The installed distribution's version of this package ("0" when it is not installed).
    Looked up by name first: finding it from the package scans every installed distribution
    (~0.3 s of every grade-all)."""
    from importlib.metadata import PackageNotFoundError, packages_distributions, version

    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:
        pass
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


ASSIGNMENTS_ENV = "AUTOGRADER_ASSIGNMENTS"   # extra assignment folders (os.pathsep-separated), outside the package


class AssignmentError(KeyError):
    """An unknown assignment, or a folder that is not one (a KeyError: the verbs catch those)."""

    def __str__(self) -> str:
        return str(self.args[0])


def available() -> list[str]:
    """The assignments packaged with the kit (`build` and `release` with no names do these)."""
    return sorted(p.parent.name for p in ASSIGNMENTS_DIR.glob("*/assignment.toml"))


def extra_folders() -> dict[str, Path]:
    """name -> folder of the assignments outside the package: $AUTOGRADER_ASSIGNMENTS lists folders,
    each an assignment folder (it has assignment.toml) or a folder of assignment folders."""
    found: dict[str, Path] = {}
    for entry in filter(None, os.environ.get(ASSIGNMENTS_ENV, "").split(os.pathsep)):
        folder = Path(entry).expanduser().resolve()
        tables = [folder / "assignment.toml"] if (folder / "assignment.toml").is_file() \
            else sorted(folder.glob("*/assignment.toml"))
        for table in tables:
            found.setdefault(table.parent.name, table.parent)
    return found


def is_path(value: str) -> bool:
    """Whether --assignment VALUE names a folder rather than an assignment: it has a `/`, or it is
    a folder and no known assignment's name (a submissions folder named `yahtzee` is not a course)."""
    if "/" in value or os.sep in value:
        return True
    known = (ASSIGNMENTS_DIR / value / "assignment.toml").is_file() or value in extra_folders()
    return not known and Path(value).is_dir()


@cache
def load_assignment(name: str = DEFAULT_ASSIGNMENT) -> Assignment:
    """Load an assignment: NAME is a packaged one (autograder/assignments/NAME), one of the folders
    $AUTOGRADER_ASSIGNMENTS lists, or the path of an assignment folder anywhere.  A folder loaded by
    path is added to $AUTOGRADER_ASSIGNMENTS, so everything that later finds it by name (its suites,
    the reporters, grade-all's worker processes) finds the same folder.  AssignmentError (a KeyError)
    for an unknown name or a folder that is not an assignment."""
    if is_path(name):
        root = Path(name).expanduser().resolve()
        packaged = ASSIGNMENTS_DIR / root.name
        if (packaged / "assignment.toml").is_file() and packaged.resolve() != root:
            raise AssignmentError(f"{name}: the kit already has an assignment named {root.name!r}; "
                                  f"rename the folder")
        assignment = _read(root)
        if root.parent != ASSIGNMENTS_DIR and extra_folders().get(root.name) != root:
            listed = os.environ.get(ASSIGNMENTS_ENV)
            os.environ[ASSIGNMENTS_ENV] = os.pathsep.join(filter(None, [listed, str(root)]))
        return assignment
    root = ASSIGNMENTS_DIR / name
    if not (root / "assignment.toml").is_file():
        root = extra_folders().get(name, root)
    if not (root / "assignment.toml").is_file():
        known = available() + sorted(set(extra_folders()) - set(available()))
        raise AssignmentError(f"unknown assignment {name!r}; known: {', '.join(known) or 'none'} "
                              f"(or give the path of an assignment folder)")
    return _read(root)


def _read(root: Path) -> Assignment:
    """The assignment in folder ROOT, its table checked (AssignmentError saying what is wrong)."""
    table = root / "assignment.toml"
    if not root.is_dir():
        raise AssignmentError(f"{root}: no such folder")
    if not table.is_file():
        raise AssignmentError(f"{root} is not an assignment folder: it has no assignment.toml")
    try:
        data = tomllib.loads(table.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise AssignmentError(f"{table}: not valid TOML: {err}") from None
    problems_found = _table_problems(data, root.name)
    if problems_found:
        raise AssignmentError(f"{table} is not a valid assignment table:\n  " + "\n  ".join(problems_found))
    stages = tuple(Stage(s["number"], s["title"], bool(s.get("optional", False))) for s in data.get("stages", []))
    problems = tuple(
        Problem(p["number"], p["stage"], p["title"], p["points"], tuple(p.get("functions", ())))
        for p in data["problems"]
    )
    # solution/starter/handout: the paths of the layout before one folder per assignment; files
    # are found by convention now, and a not-yet-updated assignment.toml keeps working.
    known = {"name", "title", "student_file", "solution", "starter", "handout", "entry", "stages", "problems"}
    return Assignment(
        name=data.get("name", root.name),
        title=data["title"],
        root=root,
        student_file=data["student_file"],
        entry=data.get("entry", "main"),
        stages=stages,
        problems=problems,
        extra={k: v for k, v in data.items() if k not in known},
        # an assignment outside the package generates its solution/ and starter/ views in its folder
        views=REPO_ROOT if root.parent == ASSIGNMENTS_DIR else root,
    )


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _table_problems(data: dict, folder: str) -> list[str]:
    """What is wrong with an assignment table DATA (of the folder named FOLDER); [] when nothing."""
    found = []
    if data.get("name", folder) != folder:
        found.append(f"name = {data['name']!r}, but the folder is {folder!r}: the name is the folder's")
    for key in ("title", "student_file"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            found.append(f"{key} is missing (a string)")
    stages, problems = data.get("stages", []), data.get("problems")
    if not isinstance(problems, list) or not problems:
        return found + ["it has no [[problems]] (number, stage, title, points, functions)"]
    if not isinstance(stages, list):
        return found + ["stages must be an array of tables, [[stages]]"]
    for i, stage in enumerate(stages, 1):
        if not isinstance(stage, dict) or not _is_int(stage.get("number")) or not isinstance(stage.get("title"), str):
            found.append(f"stage #{i}: needs number (an integer) and title (a string)")
    numbers = set()
    for i, p in enumerate(problems, 1):
        if not isinstance(p, dict):
            found.append(f"problem #{i}: not a table")
            continue
        label = f"problem {p['number']}" if _is_int(p.get("number")) else f"problem #{i}"
        for key in ("number", "stage"):
            if not _is_int(p.get(key)):
                found.append(f"{label}: {key} must be an integer, not {p.get(key)!r}")
        if not isinstance(p.get("title"), str):
            found.append(f"{label}: title must be a string")
        if not (isinstance(p.get("points"), (int, float)) and not isinstance(p.get("points"), bool)) \
                or p["points"] < 0:
            found.append(f"{label}: points must be a number >= 0, not {p.get('points')!r}")
        functions = p.get("functions", [])
        if not isinstance(functions, list) or not all(isinstance(f, str) for f in functions):
            found.append(f"{label}: functions must be a list of names")
        if p.get("number") in numbers:
            found.append(f"{label}: the number is used twice")
        numbers.add(p.get("number"))
    declared = {s.get("number") for s in stages if isinstance(s, dict)}
    used = {p.get("stage") for p in problems if isinstance(p, dict)}
    for number in sorted(n for n in declared - used if _is_int(n)):
        found.append(f"stage {number} has no problems")
    if declared:
        for number in sorted(n for n in used - declared if _is_int(n)):
            found.append(f"problems name stage {number}, which [[stages]] does not declare")
    return found


def add_assignment_argument(parser, what: str = "assignment to grade against") -> None:
    """The --assignment option every verb shares (its stage choices come from the one chosen)."""
    parser.add_argument("--assignment", default=DEFAULT_ASSIGNMENT, metavar="NAME",
                        help=f"{what} (default: {DEFAULT_ASSIGNMENT}; the kit has {', '.join(available())}; "
                             f"or the path of an assignment folder)")


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


def load_for_grading(name: str, stage: str | int | None, python: str | None = None) -> Assignment | None:
    """load_for_cli for a grading verb, with its --stage checked against the assignment and its
    --python (the interpreter of student code) put in place: None after one clear line on stderr."""
    spec = load_for_cli(name)
    if spec is None:
        return None
    problem = stage_error(spec, stage)
    if problem is None and python:
        from .engine.isolation import use_python

        problem = use_python(python)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return None
    return spec
