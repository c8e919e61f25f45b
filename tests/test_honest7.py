"""Struggling students of the other courses (tests/corpus/honest7/, pass 25): yatzy, cs21 and swe3006
programs with a beginner's mistakes of THAT course's rules (Yatzy's pairs, straights, sums and
bonus; CS21's predicates, letters and a list changed in place; SWE3006's input loop, sheet and two
players), eight with two bugs in two stages.  Each course's programs are graded in one grade-all
(helpers/corpus.py): each gets the exact score expected.toml gives it, loses points only in the
problems listed, says each problem's phrase, and its other appearances of a bug say "Not charged"
where listed.  The bundle's check.py (the student's own functions throughout) fails exactly the
problems recorded, and every one it fails that the grade does not charge says which failing
problem it calls ("fix that first").
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.corpus import (
    assert_well_formed,
    chained_text,
    failed_feedback,
    grade_corpus,
    graded_exactly,
    program_id,
)

from autograder import toml as tomllib
from autograder.assignment import load_assignment

CORPUS = Path(__file__).resolve().parent / "corpus" / "honest7"
PROGRAMS = tomllib.loads((CORPUS / "expected.toml").read_text(encoding="utf-8"))["program"]
LINE = re.compile(r"^  Problem (\d+) .*: (passed|failed|not started)")


@pytest.fixture(scope="module")
def rows(tmp_path_factory) -> dict:
    return grade_corpus(tmp_path_factory, CORPUS, PROGRAMS)


@pytest.fixture(scope="module")
def selfcheck(tmp_path_factory) -> dict[str, str]:
    """Each program's check.py text (the bundle of stage 4, as a student gets it): run once each."""
    from autograder.authoring.release import build_release

    out, _ = build_release(tmp_path_factory.mktemp("bundle") / "release", stage=4,
                           names=sorted({p["assignment"] for p in PROGRAMS}))
    home = tmp_path_factory.mktemp("honest7-selfcheck")
    found = {}
    for program in PROGRAMS:
        course = program["assignment"]
        path = home / program_id(program) / f"{course}.py"
        path.parent.mkdir()
        path.write_text(chained_text(CORPUS, PROGRAMS, program), encoding="utf-8")
        found[program_id(program)] = subprocess.run([sys.executable, str(out / course / "check.py"), str(path)],
                                                    capture_output=True, text=True, timeout=600).stdout
    return found


def test_the_corpus_is_well_formed():
    assert_well_formed(CORPUS, PROGRAMS, at_least=12)
    stage_of = {course: {p.number: p.stage for p in load_assignment(course).problems}
                for course in {p["assignment"] for p in PROGRAMS}}
    assert {p["assignment"] for p in PROGRAMS} == {"yatzy", "cs21", "swe3006"}
    assert sum(len(p["stages"]) == 2 for p in PROGRAMS) >= 3                 # two bugs in two stages
    for program in PROGRAMS:
        assert {"predicted_score", "lines", "not_charged", "selfcheck_failed"} <= set(program), program["name"]
        stages = stage_of[program["assignment"]]
        assert sorted({stages[n] for n in program["problems"]}) == sorted(program["stages"]), program["name"]
        assert set(program["phrase"]) == {str(n) for n in program["problems"]}, program["name"]


@pytest.mark.parametrize("program", PROGRAMS, ids=program_id)
def test_struggling_program(program, rows):
    row = rows[program_id(program)]
    _, summary = graded_exactly(row, program["name"], program["score"], program["problems"])
    for number, words in program["phrase"].items():
        said = failed_feedback(row, [int(number)])
        assert words.lower() in said.lower(), f"{summary}: P{number}'s feedback never says {words!r}"
        assert "Traceback" not in said and "autograder/" not in said, f"{summary}: grader internals shown"
    excused = sorted({t["problem"] for t in row.tests if t["output"].startswith("Not charged")})
    assert excused == sorted(program["not_charged"]), f"{summary}: not charged in {excused}"


@pytest.mark.parametrize("program", PROGRAMS, ids=program_id)
def test_selfcheck_agrees_or_says_why(program, selfcheck):
    """check.py fails exactly the problems recorded; one the grade does not charge names the failing
    problem it calls (the note), so a student reads where to fix it."""
    lines = selfcheck[program_id(program)].splitlines()
    status = {int(m[1]): (m[2], i) for i, line in enumerate(lines) if (m := LINE.match(line))}
    assert status, lines[:20]
    failed = sorted(n for n, (s, _) in status.items() if s == "failed")
    assert failed == sorted(program["selfcheck_failed"]), f"{program['name']}: check.py failed {failed}"
    for number in sorted(set(failed) - set(program["problems"])):
        note = lines[status[number][1] + 1]
        assert "which fail" in note and "fix th" in note, f"{program['name']}: check.py fails P{number} silently"


def test_a_quiet_check_refuses_a_print_and_allows_a_debug_line():
    """A public check with `quiet` (pass 25): the rendered code passes a call that prints nothing or only
    `DEBUG:` lines, and fails one that prints anything else, saying what it printed; a reference that
    prints is refused at build time."""
    from autograder.notebooks.checks import Check
    from autograder.notebooks.common import NotebookError
    from autograder.notebooks.render import render_check
    from autograder.notebooks.runtime import TOOLS

    def namespace(body: str) -> dict:
        found: dict = {}
        exec(TOOLS + "\n\ndef total(hand):\n" + body + "    return sum(hand)\n", found)
        return found

    check = Check(1, setup=["hand = [3, 1, 2]"], call="total(hand)", dice=[], quiet=True, after=["hand"],
                  origin="content")          # (as notebooks.toml gives it: `after` always compared)
    code = render_check(check, namespace(""), "test")
    exec(code, namespace("    print('DEBUG:', hand)\n"))                     # a debug line is fine
    with pytest.raises(AssertionError, match=r"Expected: nothing printed.*\n.*\nsorting"):
        exec(code, namespace("    print('sorting')\n"))
    with pytest.raises(AssertionError, match=r"after total\(hand\), hand"):
        exec(code, namespace("    hand.sort()\n"))                           # its list changed
    with pytest.raises(NotebookError):
        render_check(check, namespace("    print('x')\n"), "test")
