"""Pass 23 (`leftovers23`): the self-check says where a failure may stem from another problem's bug.

The self-check (check.py, `grade --public`, the notebooks' check cells) runs the student's own
functions throughout; the hidden grade charges a bug once, in its own problem (a stage's retry with
the reference's version of the other problem, or another stage's substitution).  So an upper bonus
at `> 63` failed P17 and P20 in the self-check and P17 only in the grade, and nothing said why.  Now a
failing problem that calls another failing problem (the reference's call graph: Assignment.calls)
says so on its line, in every path.  Cases: the named one (P17 -> P20), a stage-2 bug in
parse_keep (P8 -> P10, P12, P16, P19: a chain and a later stage), and the negative cases (a failing
problem calling only passing ones; one failing problem alone).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from autograder.assignment import load_assignment
from autograder.authoring.release import build_release
from autograder.engine import selfcheck
from autograder.grading.grade import grade

ROOT = Path(__file__).resolve().parents[1]
SPEC = load_assignment("yahtzee")
SOLUTION = SPEC.solution.read_text(encoding="utf-8")
BUGS = {
    "bonus-over-63": ("if upper_total >= UPPER_BONUS_THRESHOLD:", "if upper_total > UPPER_BONUS_THRESHOLD:"),
    "enter-keeps-none": ('    if text in ("", "all"):', '    if text in ("all",):'),
    "exactly-three": ("if max(face_counts(dice).values()) >= n:", "if max(face_counts(dice).values()) == n:"),
}
TAIL = ", and this one may pass (the grade charges a bug once, in its own problem)."


def note(*called: int) -> str:
    named = ", ".join(f"Problem {n} {SPEC.problem(n).title}" for n in called)
    one = len(called) == 1
    return f"      Note: this problem calls {named}, which fail{'s' if one else ''} too: fix {'that' if one else 'those'} first" + TAIL


@pytest.fixture(scope="module")
def programs(tmp_path_factory) -> dict[str, Path]:
    home = tmp_path_factory.mktemp("calls")
    out = {}
    for label, (old, new) in BUGS.items():
        assert SOLUTION.count(old) == 1, label
        (home / label).mkdir()
        out[label] = home / label / "yahtzee.py"
        out[label].write_text(SOLUTION.replace(old, new), encoding="utf-8")
    return out


@pytest.fixture(scope="module")
def check_py(tmp_path_factory) -> Path:
    out, _ = build_release(tmp_path_factory.mktemp("bundle") / "release", stage=4)
    return out / "yahtzee" / "check.py"


def both(check_py: Path, path: Path) -> list[str]:
    """What check.py and `grade --public` print for PATH (the same engine, two processes)."""
    by_script = subprocess.run([sys.executable, str(check_py), str(path)], capture_output=True, text=True,
                               timeout=600).stdout
    by_grader = subprocess.run([sys.executable, "-m", "autograder", "grade", str(path), "--public"],
                               capture_output=True, text=True, timeout=600, cwd=str(ROOT)).stdout
    return [by_script, by_grader]


def test_the_reference_call_graph():
    calls = SPEC.calls()
    assert calls[10] == (8,)
    # pass 24: a problem's checks' own code counts (final_score's docstring and P17's checks build a
    # card with new_scorecard, P13), and so does an earlier problem grading the same function (P20's
    # final_score and format_scorecard are P14's and P15's too; P19's play_round is P12's)
    assert calls[14] == (13, 17) and calls[17] == (13,) and calls[20] == (13, 14, 15, 17)
    assert 12 in calls[19] and 14 in calls[16] and 14 in calls[15]
    # pass 25: a problem's `[[problems.N.check]]` tables count too (P19's build a card with new_scorecard;
    # P19 (1, ..., 12, 18) and P15 (14, 17, 20) before: check.py failed P19 for P13's bug without a note)
    assert 13 in calls[19] and 13 in calls[15]
    # and a function named as a value counts (a dispatch table: yatzy's score, cs21's slotScore had none)
    yatzy, cs21 = load_assignment("yatzy").calls(), load_assignment("cs21").calls()
    assert yatzy[6] == (1, 2, 3, 4, 5) and cs21[11] == (1, 2, 3, 4, 5, 6)     # (none, (1,) before pass 25)
    assert yatzy[11] == (1, 2, 3, 4, 5, 6, 7, 8, 9, 10)     # (6, 9, 10) before: try_turn's player, score's table
    assert 1 not in calls and 13 not in calls           # (calls no other problem's function)
    assert load_assignment("swe3006").calls()[5] == (3, 4)     # methods, by `self.name(...)`; get_valid_input is P3's and P4's ((4,) before pass 24)


def test_an_upper_bonus_over_63_fails_p20_here_and_says_why(check_py, programs):
    for out in both(check_py, programs["bonus-over-63"]):
        assert ("  Problem 20 Bonuses in the final score and the scorecard: failed (1/4 checks pass)\n"
                + note(17) + "\n") in out, out
        assert "  Problem 17 Upper bonus: failed (6/8 checks pass)\n  Problem 18" in out   # (its own: no note)
        assert out.count("Note: this problem calls") == 1
        assert "First problem to fix: Problem 17 Upper bonus" in out


def test_the_hidden_grade_charges_that_bug_once_in_p17(programs):
    """What the note promises: the grade takes P17's points and none of P20's."""
    report = grade(programs["bonus-over-63"], "yahtzee", stage="4")
    scores = report.problem_scores()
    assert round(scores[17][0], 2) == 2.67 and round(scores[20][0], 4) == round(scores[20][1], 4) == 4


def test_a_stage_two_bug_is_named_by_each_problem_that_calls_it(check_py, programs):
    for out in both(check_py, programs["enter-keeps-none"]):
        assert ("  Problem 10 Asking to keep; naming a category: failed (10/11 checks pass)\n" + note(8)) in out
        assert ("  Problem 12 Playing one round: failed (3/5 checks pass)\n" + note(8, 10)) in out
        assert ("  Problem 19 Yahtzee bonus and the Joker rule in a round: failed (0/5 checks pass)\n"
                + note(8, 10, 12)) in out       # (note(8, 10) before pass 24: P12 shares play_round)
        # (12/14 before pass 25: P8's prints-nothing check)
        assert "  Problem 8 Reading which dice to keep: failed (13/15 checks pass)\n  Problem 9" in out
        assert out.count("Note: this problem calls") == 4


def test_a_failing_problem_alone_has_no_note(check_py, programs):
    for out in both(check_py, programs["exactly-three"]):
        assert "Problem 2 Three and Four of a Kind: failed" in out and "Note: this problem calls" not in out


def test_the_runtime_alone():
    """calls_note: only a failing problem, only failing callees, in CALLS' order; none without CALLS."""
    ok, bad = [("a", "passed", "")], [("a", "failed", "x")]
    results = {1: bad, 2: ok, 3: bad, 4: bad}
    titles = {1: "One", 2: "Two", 3: "Three"}
    calls = {3: (1, 2), 4: (2,), 2: (1,)}
    assert selfcheck.calls_note(3, results, titles, calls) == (
        "    Note: this problem calls Problem 1 One, which fails too: fix that first" + TAIL)
    assert selfcheck.calls_note(4, results, titles, calls) == ""      # calls a passing one only
    assert selfcheck.calls_note(2, results, titles, calls) == ""      # passes itself
    assert selfcheck.calls_note(3, results, titles) == ""             # the module's CALLS: empty here
    assert selfcheck.with_note("line\nrest", "N") == "line\nN\nrest" and selfcheck.with_note("line", "N") == "line\nN"
