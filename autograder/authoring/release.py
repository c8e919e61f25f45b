"""Verb: build the student bundle, as a folder or a zip, and prove that nothing secret is in it.

    python -m autograder release OUT                 # folder OUT/ for stage 1
    python -m autograder release OUT --stage 2       # after the stage-1 deadline
    python -m autograder release OUT.zip --zip

For every assignment with a reference solution, the bundle holds (under OUT/<name>/):

* the starter file (``yahtzee.py``), generated from the reference as ``autograder build`` does;
* the handout (``handout-<name>.md``), when it exists;
* ``check.py``: a standalone script with the PUBLIC checks only (the docstring examples, the
  public scenarios, the notebooks' public checks), their expected values computed from the
  reference now, run by the same runtime as ``grade --public`` and the notebooks' check cells
  (engine/selfcheck.py).  Students run ``python check.py yahtzee.py`` (``--verbose``: every
  failing check; ``--json``: ``{"problems": {"1": "passed", ...}}``); it needs nothing but Python;
* ``notebooks/<name>_stageK.ipynb`` for K = 1..STAGE (assignments with notebooks): the nbgrader
  release versions, made by the same stubbing as ``nbgrader generate_assignment`` (byte for byte,
  tests/test_nbgrader.py checks it).  The stage-K notebook gives the reference code of stages
  before K, so release stage K only after the deadline of stage K-1.

Then the leak check reads every file of the bundle: no line of a solution region of a problem in
stage STAGE or later (earlier stages are given code by then), no hidden scenario data (names,
hints, calls, scripts of the scenarios not marked public).  A leak fails loudly, and the bundle
is deleted.  Finally check.py is run on the reference itself: every public check must pass.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import shutil
import subprocess
import sys
import tempfile
import textwrap
import zipfile
from pathlib import Path

from autograder.assignment import Assignment, available, load_assignment
from autograder.authoring.build import generate_starter, relative
from autograder.engine.reporters import HIDDEN_NOTE
from autograder.grading.public import SELFCHECK_SOURCE, public_checks, unchecked_public
from autograder.notebooks import (
    TOOLS,
    NotebookError,
    build_all,
    find_leaks,
    generate,
    has_notebooks,
    notebook_name,
    notebook_texts,
    release_notebook,
)
from autograder.notebooks import dumps as notebook_dumps

CHECK_TIMEOUT = 1.5         # seconds per check in check.py (the reference needs milliseconds) ...
SHORT_CHECK_TIMEOUT = 0.5   # ... once selfcheck.SLOW_ALLOWED checks ran out of time


class ReleaseError(RuntimeError):
    """The bundle cannot be built, or it would leak."""


# ---------------------------------------------------------------------------
# Public checks
# ---------------------------------------------------------------------------

CHECK_TEMPLATE = '''\
#!/usr/bin/env python3
"""Public checks of the {title} assignment: run them on your file before you hand it in.

    python check.py {student_file}               every problem
    python check.py {student_file} --stage 2     the problems of one stage
    python check.py {student_file} --problem 7   one problem

These are the public examples (the docstrings, the handout's public cases and the notebooks'
public checks), with the values the reference solution gives.  The grader runs many more
checks of its own when it grades (hidden ones, other dice, whole games): passing these is a
good sign, not a promise.

Made by `python -m autograder release`; do not edit (your changes would not count anyway).
"""

import argparse
import contextlib
import importlib.util
import io
import json
import sys
import traceback
from pathlib import Path

TITLE = {title!r}
STUDENT_FILE = {student_file!r}
TIMEOUT = {timeout!r}
SHORT_TIMEOUT = {short_timeout!r}   # per check, once a few checks ran out of time
PROBLEMS = {problems}   # (number, stage, title)
HANDOUT = {handout!r}   # every name the problems give: a did-you-mean never offers one of them
CALLS = {calls!r}   # problem -> the problems whose functions it calls (a bug there fails it here too)
UNCHECKED = {unchecked!r}   # problem -> the handout's public cases the grade plays and no check here runs
CHECKS = {checks}
TOOLS = {tools!r}
RUNTIME = {runtime!r}   # the public-check runtime: the same code notebooks and `grade --public` run
HIDDEN_NOTE = {hidden_note!r}


def load(path):
    """Import the student's file without running its game."""
    def no_input(prompt=""):
        raise RuntimeError("your file asks for input while being loaded; "
                           "start the game under `if __name__ == \\"__main__\\":`")
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    import builtins
    real_input = builtins.input
    builtins.input = no_input
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            spec.loader.exec_module(module)
    finally:
        builtins.input = real_input
    return module


def where_in(err, path):
    """' (line N of your file)' for the deepest frame of the traceback in PATH."""
    lines = [frame.lineno for frame in traceback.extract_tb(err.__traceback__)
             if Path(frame.filename).resolve() == path.resolve()]
    return f" (line {{lines[-1]}} of your file)" if lines else ""


def main(argv=None):
    parser = argparse.ArgumentParser(description=f"Public checks of the {{TITLE}} assignment.")
    parser.add_argument("file", nargs="?", default=str(Path(__file__).with_name(STUDENT_FILE)),
                        help=f"your file (default: {{STUDENT_FILE}} next to this script)")
    parser.add_argument("--stage", type=int, help="check only the problems of this stage")
    parser.add_argument("--problem", type=int, help="check only this problem")
    parser.add_argument("-v", "--verbose", action="store_true", help="show every failing check, not only the first")
    parser.add_argument("--json", action="store_true",
                        help='print {{"problems": {{"1": "passed", "2": "failed", ...}}}} only')
    args = parser.parse_args(argv)
    path = Path(args.file)
    if not path.is_file():
        print(f"There is no file {{path}}.")
        return 2
    if path.suffix != ".py":
        print(f"{{path.name}} is not a .py file: check.py checks your {{STUDENT_FILE}}.  A notebook runs the "
              "same checks in its own check cells (Run All).")
        return 2
    chosen = [p for p in PROBLEMS if (args.stage is None or p[1] == args.stage)
              and (args.problem is None or p[0] == args.problem)]
    if not chosen:
        stages = sorted({{p[1] for p in PROBLEMS}})
        print(f"No problem matches: the stages here are {{', '.join(map(str, stages))}}, the problems "
              f"{{PROBLEMS[0][0]}} to {{PROBLEMS[-1][0]}}.")
        return 2
    engine = {{"__name__": "selfcheck"}}
    exec(RUNTIME, engine)
    engine["SETTINGS"].update(timeout=TIMEOUT, short_timeout=SHORT_TIMEOUT, filename=path.name)
    engine["HANDOUT"] = HANDOUT
    engine["CALLS"] = CALLS
    sys.path.insert(0, str(path.resolve().parent))
    problem = None
    try:
        module = load(path)
    except SyntaxError as err:
        problem = f"Your file has a syntax error on line {{err.lineno}}: {{err.msg}}"
    except Exception as err:
        problem = f"Your file raised {{type(err).__name__}} while being loaded{{where_in(err, path)}}: {{err}}"
    results = {{}}
    for number, _, _ in chosen:
        if number not in CHECKS:
            continue
        if problem:
            results[number] = [("loading your file", "failed", problem)]
        else:
            results[number] = engine["run_problem"](number, CHECKS[number], vars(module), TOOLS)
    if args.json:
        print(json.dumps({{"problems": {{str(n): engine["problem_status"](r) for n, r in results.items()}}}}))
    else:
        if problem:
            print(problem)
        print(engine["summary"](chosen, results, args.verbose, HIDDEN_NOTE, unchecked=UNCHECKED))
        note = engine["time_note"](engine["TIMED_OUT"]["count"], TIMEOUT, SHORT_TIMEOUT)
        if note:
            print(note)
    return 0 if all(engine["problem_status"](r) == "passed" for r in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
'''


def check_script(assignment: Assignment, checks: dict[int, str], unchecked: dict[int, list[str]] | None = None) -> str:
    problems = [(p.number, p.stage, p.title) for p in
                sorted(assignment.problems, key=lambda p: (p.stage, p.number))]
    checks_text = "{\n" + "".join(f"    {number}: {code!r},\n" for number, code in sorted(checks.items())) + "}"
    problems_text = "[\n" + "".join(f"    {p!r},\n" for p in problems) + "]"
    return CHECK_TEMPLATE.format(title=assignment.title, student_file=assignment.student_file,
                                 timeout=CHECK_TIMEOUT, short_timeout=SHORT_CHECK_TIMEOUT,
                                 problems=problems_text, checks=checks_text,
                                 handout=tuple(sorted(assignment.handout_names)), calls=assignment.calls(),
                                 unchecked=dict(sorted((unchecked or {}).items())),
                                 tools=TOOLS, runtime=SELFCHECK_SOURCE, hidden_note=HIDDEN_NOTE)


# ---------------------------------------------------------------------------
# The bundle
# ---------------------------------------------------------------------------



def bundle_files(assignment: Assignment, stage: int) -> tuple[dict[str, str], list[str]]:
    """{relative path: text} of ASSIGNMENT's part of the bundle, and notes."""
    notes: list[str] = []
    files: dict[str, str] = {}
    name = assignment.name
    solution_text = assignment.reference.read_text(encoding="utf-8")
    starter = generate_starter(solution_text, assignment)
    if assignment.starter.is_file() and assignment.starter.read_text(encoding="utf-8") != starter:
        notes.append(f"{relative(assignment.starter)} is out of date (run `python -m autograder build`); "
                     "the bundle has the up-to-date starter")
    files[f"{name}/{assignment.student_file}"] = starter
    if assignment.handout.is_file():
        files[f"{name}/{assignment.handout_name}"] = assignment.handout.read_text(encoding="utf-8")
    else:
        notes.append(f"{name}: no handout at {relative(assignment.handout)}; the bundle has none")
    checks, check_notes = public_checks(assignment)
    notes += check_notes
    files[f"{name}/check.py"] = check_script(assignment, checks, unchecked_public(assignment))
    if has_notebooks(assignment):
        problems, _ = generate(check=True, assignment=assignment)
        notes += [f"{name}: {p} (the bundle has freshly generated notebooks)" for p in problems]
        with contextlib.redirect_stdout(io.StringIO()):
            builds = build_all(assignment)
        for build in builds:
            if build.stage <= stage:
                files[f"{name}/notebooks/{notebook_name(assignment, build.stage)}"] = notebook_dumps(
                    release_notebook(build.notebook))
    return files, notes


def readme(assignments: list[Assignment], stage: int) -> str:
    lines = ["# Student bundle", ""]
    for assignment in assignments:
        lines += [f"## {assignment.title} (`{assignment.name}/`)", "",
                  f"* `{assignment.student_file}`: your file. Write your code in the regions marked "
                  "`# BEGIN PROBLEM N` / `# END PROBLEM N`."]
        if assignment.handout.is_file():
            lines.append(f"* `{assignment.handout_name}`: the handout, the whole specification.")
        lines.append(f"* `check.py`: the public checks. Run `python check.py {assignment.student_file}` "
                     "(add `--stage N` for one stage). The grader runs more checks of its own.")
        if has_notebooks(assignment):
            held = "notebook of stage 1" if stage == 1 else f"notebooks of stages 1 to {stage}"
            lines.append(f"* `notebooks/`: the Jupyter {held}. Work in the notebook of the current stage: "
                         "it gives the code of the earlier stages.")
        lines.append("")
    return "\n".join(lines)


def leaks_of(files: dict[str, str], assignments: list[Assignment], stage: int) -> list[str]:
    problems = []
    for assignment in assignments:
        texts = {}
        for path, text in files.items():
            if not (path.startswith(f"{assignment.name}/") or "/" not in path):
                continue
            if path.endswith(".ipynb"):
                text = notebook_texts(json.loads(text))
            texts[path] = text
        released = stage if has_notebooks(assignment) else 1
        problems += find_leaks(texts, assignment, released)
    return problems


def self_check(folder: Path, assignment: Assignment) -> str | None:
    """Run the bundle's check.py on the reference: every public check must pass."""
    script = folder / assignment.name / "check.py"
    try:
        result = subprocess.run([sys.executable, str(script), str(assignment.reference)],
                                capture_output=True, text=True, timeout=300, cwd=str(folder))
    except subprocess.TimeoutExpired:
        return f"{assignment.name}/check.py did not finish on the reference"
    if result.returncode != 0:
        return (f"{assignment.name}/check.py fails on the reference solution:\n"
                + textwrap.indent((result.stdout + result.stderr)[-3000:], "    "))
    return None


def build_release(out: Path, stage: int = 1, names: list[str] | None = None, as_zip: bool = False,
                  force: bool = False) -> tuple[Path, list[str]]:
    """Build the bundle at OUT (a folder, or a zip with AS_ZIP); return (path, notes).

    Raises ReleaseError (and leaves nothing behind) when it would leak or fails its self-check.
    """
    chosen = [load_assignment(n) for n in (names or available())]
    chosen = [a for a in chosen if a.reference.is_file()]
    if not chosen:
        raise ReleaseError("no assignment with a reference solution to release")
    stages = {s.number for a in chosen for s in a.stages}
    if stage not in stages:
        raise ReleaseError(f"there is no stage {stage} (stages: {', '.join(map(str, sorted(stages)))})")
    if as_zip and out.suffix != ".zip":
        out = out.with_name(out.name + ".zip")
    if out.exists() and (out.is_file() or any(out.iterdir())):
        if not force:
            raise ReleaseError(f"{out} already exists; choose another place or pass --force to replace it")
        if out.is_dir():
            shutil.rmtree(out)
        else:
            out.unlink()
    files: dict[str, str] = {}
    notes: list[str] = []
    for assignment in chosen:
        try:
            part, found = bundle_files(assignment, stage)
        except NotebookError as err:
            raise ReleaseError(f"{assignment.name}: {err}") from None
        files.update(part)
        notes += found
    files["README.md"] = readme(chosen, stage)
    leaks = leaks_of(files, chosen, stage)
    if leaks:
        raise ReleaseError("LEAK: the bundle would hold secret material; nothing was written:\n  "
                           + "\n  ".join(leaks))
    with tempfile.TemporaryDirectory(prefix="release-") as tmp:
        root = Path(tmp) / (out.stem if as_zip else out.name)
        for relative, text in sorted(files.items()):
            path = root / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        for assignment in chosen:
            problem = self_check(root, assignment)
            if problem:
                raise ReleaseError(problem)
        if as_zip:
            out.parent.mkdir(parents=True, exist_ok=True)
            with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
                for relative in sorted(files):
                    archive.write(root / relative, f"{root.name}/{relative}")
        else:
            out.parent.mkdir(parents=True, exist_ok=True)
            shutil.copytree(root, out, dirs_exist_ok=True)
    return out, notes


# ---------------------------------------------------------------------------
# The verb
# ---------------------------------------------------------------------------

def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("out", help="where to put the bundle: a folder (or a .zip with --zip)")
    parser.add_argument("--zip", action="store_true", help="write a zip file instead of a folder")
    parser.add_argument("--stage", type=int, default=1,
                        help="the latest stage released (default 1): its notebook and the earlier ones go in, "
                             "and the earlier stages' code is given in it")
    parser.add_argument("--assignment", action="append", dest="assignments", metavar="NAME",
                        help="release only this assignment (repeatable; default: every one with a reference.py)")
    parser.add_argument("--force", action="store_true", help="replace OUT if it exists")


def run(args: argparse.Namespace) -> int:
    try:
        out, notes = build_release(Path(args.out), args.stage, args.assignments, args.zip, args.force)
    except KeyError as err:
        print(f"error: {err.args[0]}", file=sys.stderr)
        return 2
    except ReleaseError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    for note in notes:
        print(f"note: {note}")
    print(f"wrote {out} (stage {args.stage}); leak check passed; check.py passes on the reference")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder release", description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
