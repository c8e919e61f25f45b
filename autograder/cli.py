"""Thin command-line interface: one sub-command per verb, each verb in its own module.

Exit status: 0 whenever grading happened (whatever the score); 2 for bad usage or bad input
to the kit (a missing path, an unknown assignment); 1 for a fault in the grader itself.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys

# verb -> (module, help).  Each module has add_arguments(parser) and run(args) -> int.
VERBS = {
    "grade": ("autograder.cli", "grade one submission (.py, folder or .ipynb) and print feedback"),
    "grade-all": ("autograder.batch", "grade a whole class into a gradebook, CSV and HTML report"),
    "build": ("autograder.build", "generate starter/ and the handout's points table from solution/ (--check)"),
    "scenarios": ("autograder.scenarios", "search seeds and scripts for a fresh set of hidden game scenarios"),
    "release": ("autograder.release", "build the student bundle (starter, notebooks, public checks, handout)"),
    "gradescope": ("autograder.gradescope", "build a Gradescope autograder zip running this same grader"),
    "demo": ("autograder.demo", "grade the bundled sample class and write the gradebook and report"),
    "coach": ("autograder.coach.cli", "optimal play: the optimum, advice for a position, a review of a game"),
}

EPILOG = """examples:
  python -m autograder grade starter/yahtzee.py --public        the student self-check
  python -m autograder grade alice.py --stage 2                  grade stage 2 only
  python -m autograder grade alice.ipynb --format gradescope     print Gradescope's results.json
  python -m autograder grade-all submissions/ --jobs 2 --out out/
  python -m autograder build --check                             fail if starter/ drifted from solution/

exit status: 0 when grading happened (whatever the score), 2 for bad usage or input, 1 for a grader fault."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of `grade`."""
    parser.add_argument("path", help="a .py file, a folder holding one, or a .ipynb notebook")
    parser.add_argument("--assignment", default="yahtzee", help="assignment to grade against (default: yahtzee)")
    parser.add_argument("--stage", default=None, choices=["1", "2", "3", "4", "5", "all"],
                        help="grade one stage or all (default: all = the core stages, 1-4 for yahtzee; the optional "
                             "stage 5, the strategy contest, is graded only on its own; a kit notebook: its own stage)")
    parser.add_argument("--format", default="text", choices=["text", "json", "gradescope", "markdown"],
                        help="output format (default: text)")
    parser.add_argument("--public", action="store_true", help="run only the public checks (student self-check)")
    parser.add_argument("--python", default=None, metavar="PATH",
                        help="the Python that runs student code (default: the grader's own)")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="list passed checks too (with --public: every failing check, not only the first)")
    parser.add_argument("--gradebook", default=None, metavar="OUT",
                        help="also record this grade in the class gradebook OUT/gradebook.sqlite (as grade-all "
                             "does) and rewrite OUT's exports and report")
    parser.add_argument("--id", default=None, help="the student id in --gradebook (default: the file's name)")


def run(args: argparse.Namespace) -> int:
    """The `grade` verb."""
    from pathlib import Path

    from .assignment import load_for_cli
    from .engine import reporters
    from .grade import GraderFault, grade

    spec = load_for_cli(args.assignment)
    if spec is None:
        return 2
    if args.python:
        from .engine.sandbox import use_python

        problem = use_python(args.python)
        if problem:
            print(f"error: {problem}", file=sys.stderr)
            return 2
    if not Path(args.path).exists():
        print(f"error: no such file or folder: {args.path}", file=sys.stderr)
        return 2
    problem = not_a_submission(args.path, spec)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    if args.stage is None:
        args.stage = notebook_stage(args.path, spec) or "all"
    if args.stage != "all" and not spec.suite_files(args.stage):
        print(f"error: {spec.name} has no stage {args.stage}", file=sys.stderr)
        return 2
    if args.gradebook and args.public:
        print("error: --gradebook records real grades; it cannot be combined with --public", file=sys.stderr)
        return 2
    import time as _time

    started = _time.perf_counter()
    try:
        report = grade(args.path, spec, stage=args.stage, public_only=args.public)
    except GraderFault as err:
        print(f"grader fault (not the student's): {err}", file=sys.stderr)
        return 1
    if args.gradebook:
        record_in_gradebook(report, spec, args, _time.perf_counter() - started)
    if args.format == "text":
        print(reporters.to_text(report, verbose=args.verbose))
    elif args.format == "json":
        print(reporters.to_json(report))
    elif args.format == "gradescope":
        print(json.dumps(reporters.to_gradescope(report), indent=2))
    else:
        print(reporters.to_markdown(report))
    return 1 if any(t.status == "error" for t in report.tests) else 0


def record_in_gradebook(report, spec, args: argparse.Namespace, wall: float) -> None:
    """Store one `grade` in a class gradebook, exactly as grade-all would, and rewrite the exports."""
    from pathlib import Path

    from .batch import grader_version, safe_id, submission_files
    from .engine import reporters
    from .export import write_exports
    from .gradebook import Gradebook, content_hash

    out = Path(args.gradebook)
    path = Path(args.path)
    sid = safe_id(args.id or path.stem)
    report.submission = sid
    with Gradebook(out / "gradebook.sqlite") as book:
        book.record(assignment=spec.name, submission_id=sid, content_hash=content_hash(submission_files(path)),
                    stage=str(args.stage), report=report, feedback=reporters.to_text(report), wall_time=wall,
                    cpu_time=0.0, grader_version=grader_version(spec), source=str(path))
        write_exports(book, spec, out)
    print(f"recorded {sid} in {out / 'gradebook.sqlite'}; exports and report rewritten", file=sys.stderr)


def not_a_submission(path: str, spec) -> str | None:
    """Why PATH is not something to grade at all (a .txt, a zip, a folder without code), or None.

    A file that is there but broken (not UTF-8, an empty or corrupt notebook) IS graded: 0 points
    and the reason, once, in the report."""
    from .engine.submission import NotASubmission, SubmissionError, load_submission

    try:
        load_submission(path, spec.student_file, spec.entry)
    except NotASubmission as err:
        return str(err)
    except SubmissionError:
        return None
    return None


def notebook_stage(path: str, spec) -> str | None:
    """A stage notebook of the kit is graded on its own stage unless --stage says otherwise."""
    from .engine.submission import SubmissionError, load_submission

    try:
        submission = load_submission(path, spec.student_file, spec.entry)
    except SubmissionError:
        return None
    if submission.stage is None:
        return None
    print(f"note: {path} is the stage {submission.stage} notebook; grading stage {submission.stage} "
          "(use --stage all for every stage)", file=sys.stderr)
    return str(submission.stage)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The CLI's parser; with ONLY (the verb on the command line), only that verb's module is
    imported (`grade` starts without loading notebooks, Jinja2 or nbformat)."""
    parser = argparse.ArgumentParser(
        prog="python -m autograder",
        description="Grade Yahtzee (and other) programming assignments safely: student code runs in a "
                    "separate, limited process; expected values come from the reference solution.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="verb", metavar="COMMAND")
    for verb, (module_name, help_text) in VERBS.items():
        if only is not None and verb != only:
            sub.add_parser(verb, help=help_text, description=help_text)
            continue
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as err:
            if err.name != module_name:
                raise             # a broken verb module must not silently vanish from the CLI
            continue              # a verb whose module is not installed here is simply not offered
        verb_parser = sub.add_parser(verb, help=help_text, description=help_text)
        module.add_arguments(verb_parser)
        verb_parser.set_defaults(handler=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else argv
    parser = build_parser(only=words[0] if words and words[0] in VERBS else None)
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help()
        return 2
    try:
        return args.handler(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
