"""Verb: generate an assignment's hidden game scenarios from its scenario plan, or check them.

    python -m autograder scenarios --assignment NAME      regenerate the committed scenario file
    python -m autograder scenarios --out DIR --start-seed 5000
                                                         a fresh hidden set (e.g. for a new term)
    python -m autograder scenarios --check               do the committed scenarios still cover
                                                         what they claim?
    python -m autograder scenarios --audit               is every case of every course (or of
                                                         --assignment) what its text says it is?

The plan is content: the assignment's plan.py (autograder/assignments/<name>/plan.py) defines
FILE (the scenario file it writes, e.g. "games.toml"), generate(reference, start_seed, verbose)
-> (text, count) and verify(reference, path) -> (problems, count).  Scenarios are input only;
expected values come from the reference at grading time.  To grade with another scenario set,
point AUTOGRADER_SCENARIOS_DIR at the folder --out wrote.  A plan replays a committed script in
its own process with scripted_input (the engine's Scripted: the one runtime of scripted input).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from ..assignment import Assignment, add_assignment_argument
from ..engine.feedback import ordinal
from ..engine.scripted import Scripted


class ScriptExhausted(RuntimeError):
    """A plan's replay asked for more input than its script holds."""


def scripted_input(script: list[str]) -> tuple[Scripted, Callable[..., str]]:
    """(a Scripted holding SCRIPT, an input(prompt) that answers from it in order and raises
    ScriptExhausted past its end): how a plan replays a committed script in its own process.
    What is left unread afterwards: the Scripted's answers_left()."""
    scripted = Scripted(script)

    def answer(prompt: str = "") -> str:
        text = scripted.answer()
        if text is None:
            raise ScriptExhausted(f"asked for input a {ordinal(scripted.asked)} time")
        return text
    return scripted, answer


def load_plan(spec: Assignment) -> ModuleType | None:
    """SPEC's plan.py imported (None when the assignment has none)."""
    if not spec.plan.is_file():
        return None
    module_spec = importlib.util.spec_from_file_location(f"autograder.assignments.{spec.name}.plan", spec.plan)
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[module_spec.name] = module          # dataclasses look their module up by name
    module_spec.loader.exec_module(module)
    return module


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_assignment_argument(parser, "whose scenario plan to run")
    parser.add_argument("--out", metavar="DIR",
                        help="write the scenario file into DIR (a fresh hidden set) instead of the committed one")
    parser.add_argument("--start-seed", type=int, default=1, help="first seed to try (default: 1)")
    parser.add_argument("--check", action="store_true",
                        help="verify the committed scenarios still cover what they claim")
    parser.add_argument("--audit", action="store_true",
                        help="audit every scenario case on the reference (does it exercise what it says?): "
                             "every course, or the one --assignment names (authoring/audit.py)")
    parser.set_defaults(assignment=None)      # (None: yahtzee, or with --audit every course)
    parser.add_argument("-v", "--verbose", action="store_true", help="print each scenario found")


def run(args: argparse.Namespace) -> int:
    from ..assignment import DEFAULT_ASSIGNMENT, load_for_cli
    from .build import relative

    if args.audit:
        return run_audit(args.assignment)
    spec = load_for_cli(args.assignment or DEFAULT_ASSIGNMENT)
    if spec is None:
        return 2
    plan = load_plan(spec)
    if plan is None:
        print(f"error: {spec.name} has no scenario plan: write {relative(spec.plan)} "
              f"(FILE, generate() and verify(); see autograder/assignments/yahtzee/plan.py)", file=sys.stderr)
        return 2
    committed = spec.scenarios_dir / plan.FILE
    target = Path(args.out) / plan.FILE if args.out else committed
    if args.check:
        if not target.is_file():
            print(f"error: no scenario file {target}", file=sys.stderr)
            return 2
        problems, count = plan.verify(spec.reference, target)
        for problem in problems:
            print(f"scenario drift: {problem}", file=sys.stderr)
        if not problems:
            print(f"{target}: {count} scenarios, all covers hold")
        return 1 if problems else 0
    started = time.perf_counter()
    text, count = plan.generate(spec.reference, args.start_seed, args.verbose)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    print(f"wrote {target}: {count} games in {time.perf_counter() - started:.1f} s")
    if args.out:
        print(f"grade with them: AUTOGRADER_SCENARIOS_DIR={args.out} python -m autograder grade ...")
    return 0


def run_audit(name: str | None) -> int:
    """`scenarios --audit`: every finding of authoring/audit.py, one line each; exit 1 if any."""
    from ..assignment import available, load_for_cli
    from .audit import audit

    specs = [load_for_cli(name)] if name else [load_for_cli(n) for n in available()]
    if None in specs:
        return 2
    failed = False
    for spec in specs:
        findings, count = audit(spec)
        for finding in findings:
            print(f"scenario drift: {finding}", file=sys.stderr)
        failed = failed or bool(findings)
        if not findings:
            print(f"{spec.name}: {count} cases evaluated on the reference, each as its text says")
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder scenarios", description=__doc__.split("\n")[0])
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
