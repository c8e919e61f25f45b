"""Verb `grade`: grade one submission and print its feedback (the grading itself: grade.py).

Also what the verb tells apart before grading: something that is not a submission at all, and the
stage a kit notebook's metadata names."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from ..assignment import add_assignment_argument, load_for_grading
from ..engine.checks import GraderFault
from ..engine.submission import SubmissionError, load_submission
from .grade import grade


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of `grade`."""
    parser.add_argument("path", help="a .py file, a folder holding one, or a .ipynb notebook")
    add_assignment_argument(parser)
    parser.add_argument("--stage", default=None, metavar="N|all",
                        help="grade one stage of the assignment, or all (default: all = its core stages; an "
                             "optional stage is graded only on its own; a kit notebook: its own stage)")
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
    from ..engine import reporters

    spec = load_for_grading(args.assignment, args.stage, args.python)
    if spec is None:
        return 2
    if not Path(args.path).exists():
        print(f"error: no such file or folder: {args.path}", file=sys.stderr)
        return 2
    problem = not_a_submission(args.path, spec)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    claimed, disagree = metadata_stage(args.path, spec), None
    if args.stage is None:
        args.stage = notebook_stage(args.path, spec, claimed) or "all"
    elif claimed is not None and str(claimed) != str(args.stage):
        disagree = stage_disagrees(claimed, args.stage)
        print(f"note: {disagree}", file=sys.stderr)
    if args.stage != "all" and not spec.suite_files(args.stage):
        print(f"error: {spec.name} has no suite for stage {args.stage}", file=sys.stderr)
        return 2
    if args.gradebook and args.public:
        print("error: --gradebook records real grades; it cannot be combined with --public", file=sys.stderr)
        return 2
    started = time.perf_counter()
    try:
        report = grade(args.path, spec, stage=args.stage, public_only=args.public)
    except GraderFault as err:
        print(f"grader fault (not the student's): {err}", file=sys.stderr)
        return 1
    if disagree:
        report.notes.insert(0, disagree)        # the student's to read too (Gradescope's output)
    if args.gradebook:
        record_in_gradebook(report, spec, args, time.perf_counter() - started)
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
    from ..engine import reporters
    from .discover import safe_id, submission_files
    from .export import write_exports
    from .grade_all import grader_version
    from .gradebook import Gradebook, content_hash
    from .sections import add_graded

    out = Path(args.gradebook)
    path = Path(args.path)
    sid = safe_id(args.id or path.stem)
    report.submission = sid
    with Gradebook(out / "gradebook.sqlite") as book:
        book.record(assignment=spec.name, submission_id=sid, content_hash=content_hash(submission_files(path)),
                    stage=str(args.stage), report=report, feedback=reporters.to_text(report), wall_time=wall,
                    cpu_time=0.0, grader_version=grader_version(spec), source=str(path))
        add_graded(book, spec.name, sid, path)      # (found now, as by a grade-all: never listed as missing)
        write_exports(book, spec, out)
    print(f"recorded {sid} in {out / 'gradebook.sqlite'}; exports and report rewritten", file=sys.stderr)


def not_a_submission(path: str, spec) -> str | None:
    """Why PATH is not something to grade at all (a .txt, a zip, a folder without code), or None.

    A file that is there but broken (not UTF-8, an empty or corrupt notebook) IS graded: 0 points
    and the reason, once, in the report."""
    from ..assignment import available
    from ..engine.submission import NotASubmission

    try:
        submission = load_submission(path, spec.student_file, spec.entry)
    except NotASubmission as err:
        return str(err)
    except SubmissionError:
        return None
    if submission.course not in (None, spec.name) and submission.course in available():
        # the kit's notebooks of every course sit side by side: grading one against another course's
        # suites would give 0 with baffling feedback
        return (f"{Path(path).name} is a notebook of the {submission.course} assignment, not {spec.name}: "
                f"grade it with --assignment {submission.course}")
    return None


def metadata_stage(path: str, spec) -> int | None:
    """The stage a kit notebook's metadata names (one SPEC has), or None: the student's file says
    it, so it is a claim, never the grader's decision where the grader was told a stage."""
    try:
        submission = load_submission(path, spec.student_file, spec.entry)
    except SubmissionError:
        return None
    if submission.stage is None or submission.stage not in {stage.number for stage in spec.stages}:
        return None                     # (the metadata is the student's file: a stage it has not, every stage)
    return submission.stage


def stage_disagrees(claimed: int, stage: str) -> str:
    """The note for a notebook whose metadata names stage CLAIMED, graded on STAGE (the grader's:
    --stage, a Gradescope bundle's)."""
    graded = "every stage" if stage == "all" else f"stage {stage}"
    return (f"this notebook is marked as the stage {claimed} notebook, but this assignment grades {graded}: "
            f"it was graded on {graded}. If you meant to submit the stage {claimed} notebook, submit it "
            "to that stage's assignment; otherwise submit the notebook for this one.")


def notebook_stage(path: str, spec, claimed: int | None = None) -> str | None:
    """A stage notebook of the kit is graded on its own stage unless --stage says otherwise (CLAIMED:
    metadata_stage's, when already read)."""
    if claimed is None:
        claimed = metadata_stage(path, spec)
    if claimed is None:
        return None
    print(f"note: {path} is the stage {claimed} notebook; grading stage {claimed} "
          "(use --stage all for every stage)", file=sys.stderr)
    return str(claimed)
