"""The handout's sample game, produced by the reference (python -m autograder.assignments.swe3006.sample
[--check]): the block between `<!-- BEGIN SAMPLE seed=S answers=[...] -->` and `<!-- END SAMPLE -->` is
the transcript of YahtzeeGame().play() with that seed and those answers, run in the grader's sandbox
exactly as a graded game is (answers echoed after their prompt), up to where the answers run out."""

from __future__ import annotations

import json
import re
import sys

from autograder.assignment import load_assignment
from autograder.engine.program import Program

SAMPLE = re.compile(r"(<!-- BEGIN SAMPLE seed=(?P<seed>\d+) answers=(?P<answers>\[.*?\]) -->\n)(?P<body>.*?)"
                    r"(<!-- END SAMPLE -->)", re.DOTALL)


def transcript(seed: int, answers: list[str]) -> str:
    spec = load_assignment("swe3006")
    program = Program(spec.solution.read_text(encoding="utf-8"), spec.student_file)
    try:
        outcome = program.call(f"{spec.extra['class_name']}.play", instance={"init": []}, stdin=answers,
                               seed=seed, timeout=10)
    finally:
        program.close()
    if outcome.status != "input_exhausted":
        raise RuntimeError(f"the reference did not play the sample: {outcome.status} {outcome.message}")
    return "\n".join(line.rstrip() for line in outcome.stdout.rstrip().splitlines())


def render(text: str) -> str:
    """TEXT with every sample block filled from the reference."""
    def fill(match: re.Match) -> str:
        body = transcript(int(match["seed"]), json.loads(match["answers"]))
        return f"{match.group(1)}```text\n{body}\n```\n{match.group(5)}"
    return SAMPLE.sub(fill, text)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    handout = load_assignment("swe3006").handout
    text = handout.read_text(encoding="utf-8")
    wanted = render(text)
    if "--check" in argv:
        if wanted != text:
            print(f"{handout}: the sample game drifted from the reference; run "
                  "python -m autograder.assignments.swe3006.sample", file=sys.stderr)
            return 1
        return 0
    if wanted != text:
        handout.write_text(wanted, encoding="utf-8")
        print(f"wrote the sample game into {handout}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
