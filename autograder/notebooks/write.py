"""Writing (or, with --check, comparing) every generated notebook: `python -m autograder.notebooks [--check]`."""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
from pathlib import Path

from autograder.assignment import (
    Assignment,
    available,
    load_assignment,
    load_for_cli,
)
from autograder.authoring.build import relative, report

from .build import build_all, notebook_path, sample_notebooks, sample_path, student_notebook, student_path
from .cells import dumps
from .common import (
    COURSE_DIR,
    GENERATE_COMMAND,
    SAMPLES_DIR,
    SOURCE_DIR,
    STUDENT_DIR,
    NotebookError,
    content_path,
    has_notebooks,
    load_content,
)
from .leaks import student_leaks


def courses(assignment: Assignment | None = None) -> list[Assignment]:
    """ASSIGNMENT, or every kit course with notebook content (a notebooks.toml): their notebooks are
    committed side by side under notebooks/ (assignment_id keeps their nbgrader names apart)."""
    if assignment is not None:
        return [assignment]
    return [spec for spec in map(load_assignment, available()) if has_notebooks(spec)]


def _folders(course: Path) -> tuple[Path, Path, Path]:
    """(source, samples, student) of the nbgrader course folder COURSE (the kit's: notebooks/)."""
    if course == COURSE_DIR:
        return SOURCE_DIR, SAMPLES_DIR, STUDENT_DIR
    return course / SOURCE_DIR.name, course / SAMPLES_DIR.relative_to(COURSE_DIR), course / STUDENT_DIR.name


def planned_files(assignment: Assignment, course: Path = COURSE_DIR) -> list[tuple[Path, str]]:
    content = load_content(assignment)
    source, samples, students = _folders(course)
    files = []
    with contextlib.redirect_stdout(io.StringIO()):     # a reference that prints while checks run
        builds = build_all(assignment)
    for build in builds:
        files.append((notebook_path(assignment, build.stage, source), dumps(build.notebook)))
        files.append((student_path(assignment, build.stage, students), dumps(student_notebook(build, assignment))))
        for student, nb in sample_notebooks(build, content).items():
            files.append((sample_path(student, assignment, build.stage, samples), dumps(nb)))
    return files


def generate(check: bool = False, assignment: Assignment | None = None,
             course: Path = COURSE_DIR) -> tuple[list[str], list[Path]]:
    """Write (or, with CHECK, compare) the notebooks of ASSIGNMENT (default: every course's) in the
    nbgrader course folder COURSE (default: the kit's notebooks/); return (problems, paths written)."""
    files: list[tuple[Path, str]] = []
    leaks: list[str] = []
    specs = courses(assignment)
    folders = _folders(course)
    for spec in specs:
        try:
            planned = planned_files(spec, course)
        except NotebookError as err:
            return [f"cannot generate the notebooks of {spec.name}: {err}"], []
        files += planned
        leaks += student_leaks(spec, [(p, t) for p, t in planned if folders[2] in p.parents])
    if leaks:
        head = "LEAK: the student notebooks would show solutions or hidden data; nothing was written:"
        return [head, *leaks], []
    problems, written = [], []
    for path, text in files:
        current = path.read_text(encoding="utf-8") if path.is_file() else None
        if current == text:
            continue
        if check:
            state = "is missing" if current is None else "is out of date"
            problems.append(f"{relative(path)} {state}: run `{GENERATE_COMMAND}`")
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            written.append(path)
    if check:
        wanted = {path for path, _ in files}
        others = tuple(f"{name}_stage" for name in available() if name not in {spec.name for spec in specs})
        for root in folders:
            for path in sorted(root.rglob("*.ipynb")) if root.is_dir() else []:
                if (path not in wanted and ".ipynb_checkpoints" not in path.parts
                        and not path.name.startswith(others)):      # another course's are not ours to judge
                    problems.append(f"{relative(path)} is not generated any more: delete it")
    return problems, written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog=GENERATE_COMMAND,
        description="Generate the nbgrader source notebooks, one per stage, from the reference and the problem table.")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a notebook is out of date")
    parser.add_argument("--assignment", default=None, metavar="NAME",
                        help="only this assignment's notebooks (default: every course with a notebooks.toml: "
                             f"{', '.join(spec.name for spec in courses())}; or the path of an assignment folder)")
    args = parser.parse_args(argv)
    spec = None
    if args.assignment is not None:
        spec = load_for_cli(args.assignment)
        if spec is None:
            return 2
        if not has_notebooks(spec):
            print(f"error: {spec.name} has no notebook content ({relative(content_path(spec))})", file=sys.stderr)
            return 2
    problems, written = generate(check=args.check, assignment=spec)
    for path in written:
        print(f"wrote {relative(path)}")
    return report(problems, written, args.check, "notebooks are up to date")
