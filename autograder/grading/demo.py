"""Verb `demo` (make demo): grade an assignment's sample class and show where everything went.

An assignment's sample class is its samples.toml (autograder/assignments/<name>/): small, realistic
submissions written as edits of the reference or named files (correct ones written differently,
typical mistakes, the untouched starter, hostile ones...).  The demo generates the class into a
scratch folder and runs
`grade-all` on it into --out: a second run reuses the gradebook and only regrades what changed
(--force regrades all).  It never reads standard input and exits 0 once the class is graded,
whatever the scores.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from ..assignment import add_assignment_argument, load_for_cli
from ..authoring.build import relative
from ..authoring.samples import SampleError, write_class
from .discover import InputError
from .grade_all import default_jobs, grade_all, print_summary
from .gradebook import Gradebook

DEFAULT_OUT = "demo-output"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", default=DEFAULT_OUT, help=f"output folder (default: {DEFAULT_OUT})")
    parser.add_argument("--jobs", "-j", type=int, default=None, help="parallel grading processes (default: 2)")
    parser.add_argument("--force", action="store_true", help="regrade every sample, even unchanged ones")
    add_assignment_argument(parser, "whose sample class (its samples.toml) to grade")


def _note(row) -> str:
    """One short line on what went wrong for this student (or nothing); sandbox refusals first."""
    flags = row.report.get("flags") or []
    if flags:
        return f"SANDBOX FLAG ({len(flags)}): {flags[0]}"
    if row.error:
        return row.error.splitlines()[0]
    failed = [t for t in row.tests if t["status"] != "passed"]
    if not failed:
        return ""
    first = failed[0]                      # checks come in problem order: the earliest mistake
    what = (first.get("output") or "").strip().splitlines()
    return f"{len(failed)} check{'' if len(failed) == 1 else 's'} failed, first: {what[0] if what else first['name']}"


def table(rows, width: int = 100) -> str:
    lines = [f"{'student':<10} {'score':>14} {'%':>5}  note", f"{'-' * 10} {'-' * 14} {'-' * 5}  {'-' * 40}"]
    for row in rows:
        pct = 100 * row.score / row.max_score if row.max_score else 0.0
        score = f"{row.score:.2f}".rstrip("0").rstrip(".") + " / " + f"{row.max_score:g}"
        note = _note(row)
        room = width - 34
        lines.append(f"{row.submission_id:<10} {score:>14} {pct:5.0f}  "
                     f"{note if len(note) <= room else note[:room - 3] + '...'}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    if args.jobs is not None and args.jobs < 1:
        print("error: --jobs must be at least 1", file=sys.stderr)
        return 2
    spec = load_for_cli(args.assignment)
    if spec is None:
        return 2
    if not spec.samples.is_file():
        print(f"error: {spec.name} has no sample class: write {relative(spec.samples)} "
              f"(programs as edits of its reference, in the format of mutants.toml)",
              file=sys.stderr)
        return 2
    out = Path(args.out)
    with tempfile.TemporaryDirectory(prefix=f"{spec.name}-class-") as scratch:
        klass = Path(scratch) / "class"
        try:
            count = len(write_class(spec, klass))
        except (SampleError, OSError) as err:
            print(f"error: {relative(spec.samples)}: {err}", file=sys.stderr)
            return 2
        print(f"Grading {spec.name}'s sample class ({count} files from {relative(spec.samples)}) into {out}/ ...",
              flush=True)
        try:
            summary = grade_all(klass, out, spec.name, "all", args.jobs or min(2, default_jobs()), args.force)
        except (InputError, KeyError) as err:
            print(f"error: {err}", file=sys.stderr)
            return 2
    print()
    with Gradebook(out / "gradebook.sqlite") as book:
        rows = book.rows(spec.name)
    print(table(rows))
    print()
    print_summary(summary)
    print(f"\nOpen {(out / 'report.html').resolve().as_uri()} for the class report;")
    print(f"each student's feedback is in {out / 'feedback'}/<id>.md, .txt and .html.")
    print("Run it again: unchanged submissions are skipped (--force regrades them).")
    return 130 if summary.interrupted else 0
