"""Writing (or, with --check, comparing) every generated notebook: `python -m autograder.notebooks [--check]`."""

from __future__ import annotations

import argparse
from pathlib import Path

from autograder.assignment import Assignment, load_assignment
from autograder.build import relative, report

from .build import build_all, notebook_path, sample_notebooks, sample_path, student_notebook, student_path
from .cells import dumps
from .common import GENERATE_COMMAND, SAMPLES_DIR, SOURCE_DIR, STUDENT_DIR, NotebookError, load_content
from .leaks import student_leaks


def planned_files(assignment: Assignment | None = None) -> list[tuple[Path, str]]:
    assignment = assignment or load_assignment("yahtzee")
    content = load_content(assignment)
    files = []
    for build in build_all(assignment):
        files.append((notebook_path(assignment, build.stage), dumps(build.notebook)))
        files.append((student_path(assignment, build.stage), dumps(student_notebook(build, assignment))))
        for student, nb in sample_notebooks(build, content).items():
            files.append((sample_path(student, assignment, build.stage), dumps(nb)))
    return files


def generate(check: bool = False, assignment: Assignment | None = None) -> tuple[list[str], list[Path]]:
    """Write (or, with CHECK, compare) the notebooks; return (problems, paths written)."""
    try:
        files = planned_files(assignment)
    except NotebookError as err:
        return [f"cannot generate the notebooks: {err}"], []
    leaks = student_leaks(assignment or load_assignment("yahtzee"),
                          [(p, t) for p, t in files if STUDENT_DIR in p.parents])
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
        for root in (SOURCE_DIR, SAMPLES_DIR, STUDENT_DIR):
            for path in sorted(root.rglob("*.ipynb")) if root.is_dir() else []:
                if path not in wanted and ".ipynb_checkpoints" not in path.parts:
                    problems.append(f"{relative(path)} is not generated any more: delete it")
    return problems, written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=GENERATE_COMMAND, description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a notebook is out of date")
    args = parser.parse_args(argv)
    problems, written = generate(check=args.check)
    for path in written:
        print(f"wrote {relative(path)}")
    return report(problems, written, args.check, "notebooks are up to date")
