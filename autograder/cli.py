"""Thin command-line interface: one sub-command per verb, each verb in its own module.

Verbs are grouped by what they serve: autograder/grading/ (grade, grade-all, demo: grading and
what comes of it), autograder/authoring/ (build, scenarios, release, mutants, bench: making and
checking an assignment; `notebooks` is autograder/notebooks), autograder/platforms/ (gradescope),
autograder/coach/.  A verb module has add_arguments(parser) and run(args) -> int; a module with
only main(argv) gets the rest of the command line as it is.

Exit status: 0 whenever grading happened (whatever the score); 2 for bad usage or bad input
to the kit (a missing path, an unknown assignment); 1 for a fault in the grader itself.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import importlib
import os
import sys
import threading
from typing import NoReturn

# verb -> (module, help).
VERBS = {
    "grade": ("autograder.grading.grade_cmd", "grade one submission (.py, folder or .ipynb) and print feedback"),
    "grade-all": ("autograder.grading.grade_all", "grade a whole class into a gradebook, CSV and HTML report"),
    "demo": ("autograder.grading.demo", "grade an assignment's sample class and write the gradebook and report"),
    "build": ("autograder.authoring.build",
              "generate solution/, starter/, the sample class and the handout's points table from the references"),
    "notebooks": ("autograder.notebooks", "generate the stage notebooks from the reference (--check)"),
    "scenarios": ("autograder.authoring.scenarios", "generate or check hidden game scenarios from an assignment's plan"),
    "release": ("autograder.authoring.release", "build the student bundle (starter, notebooks, public checks, handout)"),
    "mutants": ("autograder.authoring.mutants", "mutation testing: the hidden suites against generated mutants"),
    "bench": ("autograder.authoring.bench", "measure grading speed, batch throughput, timeouts under load, the coach"),
    "gradescope": ("autograder.platforms.gradescope", "build a Gradescope autograder zip running this same grader"),
    "coach": ("autograder.coach.cli", "optimal play: the optimum, advice for a position, a review of a game"),
}

EPILOG = """examples:
  python -m autograder grade starter/yahtzee.py --public        the student self-check
  python -m autograder grade alice.py --stage 2                  grade stage 2 only
  python -m autograder grade alice.ipynb --format gradescope     print Gradescope's results.json
  python -m autograder grade-all submissions/ --jobs 2 --out out/
  python -m autograder build --check                             fail if a generated file drifted

exit status: 0 when grading happened (whatever the score), 2 for bad usage or input, 1 for a grader fault."""


def _module(name: str):
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as err:
        if err.name != name:
            raise             # a broken verb module must not silently vanish from the CLI
        return None           # a verb whose module is not installed here is simply not offered


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The CLI's parser; with ONLY (the verb on the command line), only that verb's module is
    imported (`grade` starts without loading notebooks, Jinja2 or nbformat)."""
    parser = argparse.ArgumentParser(
        prog="python -m autograder",
        description="Grade programming assignments safely: student code runs in a separate, limited "
                    "process; expected values come from the reference solution.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="verb", metavar="COMMAND")
    for verb, (module_name, help_text) in VERBS.items():
        if only is not None and verb != only:
            sub.add_parser(verb, help=help_text, description=help_text)
            continue
        module = _module(module_name)
        if module is None:
            continue
        verb_parser = sub.add_parser(verb, help=help_text, description=help_text)
        if hasattr(module, "add_arguments"):
            module.add_arguments(verb_parser)
            verb_parser.set_defaults(handler=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    try:
        return _main(argv)
    except ModuleNotFoundError as err:
        if not err.name or err.name.partition(".")[0] == "autograder":
            raise                 # one of our own modules: a fault of the grader, with its traceback
        # A package the kit needs is not in this Python (a student's `python` outside .venv): one
        # line that says which Python to use instead of a traceback.
        print(f"error: this Python ({sys.executable}) has no `{err.name}`, which the grader needs: "
              "run `make install` in the kit, then use its Python (`.venv/bin/python -m autograder ...`, "
              "or `. .venv/bin/activate` first)", file=sys.stderr)
        return 2


def _main(argv: list[str] | None) -> int:
    words = sys.argv[1:] if argv is None else list(argv)
    verb = words[0] if words and words[0] in VERBS else None
    with _template_early(verb, words):
        if verb is not None:
            module = _module(VERBS[verb][0])
            if module is not None and not hasattr(module, "add_arguments"):
                return module.main(words[1:])      # a verb with its own parser gets the rest of the line
        parser = build_parser(only=verb)
        args = parser.parse_args(words)
        if not getattr(args, "handler", None):
            parser.print_help()
            return 2
        try:
            return args.handler(args)
        except KeyboardInterrupt:
            print("interrupted", file=sys.stderr)
            return 130


def end(code: int, quick: bool) -> NoReturn:
    """Exit with CODE.  QUICK (the `grade` and `grade-all` verbs, their work done): without Python's
    teardown, which frees the process's objects one by one (`grade`: pytest, the suites, the
    reference's outcomes, ~50,000 objects: 40-100 ms of a cold `grade`, a fifth of it;
    `grade-all`: matplotlib, NumPy, Jinja2 and the class's rows, ~15 ms idle, 30-90 ms loaded).  Only once nothing else runs: the atexit
    functions first (they stop any sandbox still open), the output flushed; not under a profiler
    or tracer (it writes its results at exit), nor with another thread still running."""
    alive = [t for t in threading.enumerate() if t is not threading.current_thread() and not t.daemon]
    if not quick or alive or sys.getprofile() is not None or sys.gettrace() is not None:
        sys.exit(code)
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except Exception:     # noqa: BLE001 -- a closed pipe, say: Python's own exit reports it as usual
        sys.exit(code)
    os._exit(code)


def _template_early(verb: str | None, words: list[str]) -> contextlib.AbstractContextManager:
    """`grade` boots its sandbox template (engine/launch.py) first thing, so the new interpreter
    starts on the other CPU while the verb's modules load (~35 ms) and is ready when the first
    sandbox forks from it, instead of being booted after them.  Not for --public (no sandbox
    template), --python (another interpreter, chosen later) or help."""
    skip = ("--public", "--python", "-h", "--help")
    if verb != "grade" or any(w in skip or w.startswith("--python=") for w in words):
        return contextlib.nullcontext()
    from .engine.life import prestart_template
    from .engine.sandbox import template_scope

    scope = template_scope()
    scope.__enter__()
    try:
        prestart_template()
    except BaseException:
        scope.__exit__(None, None, None)
        raise
    return scope
