"""Stage 5, the strategy contest: strategies of different strength get the right, exact scores;
stage 5 stays out of `--stage all` and the 100 points of stages 1-4."""

import re
from pathlib import Path

import pytest

from autograder.assignment import load_assignment
from autograder.grade import grade

REPO = Path(__file__).resolve().parent.parent
SOLUTION = (REPO / "solution" / "yahtzee.py").read_text(encoding="utf-8")
SPEC = load_assignment("yahtzee")

# Strategy bodies swapped into the reference's stage-5 fences (the rest of the file is the reference).
GREEDY_KEEP = '''    face = max(set(dice), key=lambda f: (dice.count(f), f))
    return [i for i, d in enumerate(dice, 1) if d == face]
'''
GREEDY_BOX = '''    joker = is_joker(dice, scorecard)
    allowed = allowed_categories(dice, scorecard)
    return max(reversed(allowed), key=lambda c: joker_score(c, dice) if joker else score(c, dice))
'''
NEVER_REROLL = '''    return [1, 2, 3, 4, 5]
'''
ILLEGAL_BOX = '''    return "Chance"          # even when Chance is filled: illegal from round 2 on
'''


def with_region(source: str, number: int, body: str) -> str:
    """SOURCE with the outer region of PROBLEM NUMBER replaced by BODY (nested fences go with it)."""
    pattern = re.compile(rf"(    # BEGIN PROBLEM {number}\n).*?(    # END PROBLEM {number}\n)", re.DOTALL)
    replaced, count = pattern.subn(lambda m: m.group(1) + body + m.group(2), source)
    assert count == 1, number
    return replaced


def stage5(tmp_path, keep: str | None = None, box: str | None = None):
    source = SOLUTION
    if keep is not None:
        source = with_region(source, 22, keep)
    if box is not None:
        source = with_region(source, 21, box)
    path = tmp_path / "yahtzee.py"
    path.write_text(source, encoding="utf-8")
    report = grade(path, "yahtzee", stage="5")
    return report, {re.sub(r"^P\d+ ", "", t.name).split(": ", 1)[-1]: t.status for t in report.tests}


def test_three_strategies_in_the_right_order_with_exact_scores(tmp_path):
    reference, ref_status = stage5(tmp_path)
    mid, mid_status = stage5(tmp_path, keep=GREEDY_KEEP)                 # greedy dice, the reference's boxes
    greedy, greedy_status = stage5(tmp_path, keep=GREEDY_KEEP, box=GREEDY_BOX)
    lazy, lazy_status = stage5(tmp_path, keep=NEVER_REROLL, box=GREEDY_BOX)
    assert (reference.score, mid.score, greedy.score, lazy.score) == (20, 12, 8, 8)
    assert reference.max_score == 20 and all(s == "passed" for s in ref_status.values())
    assert mid_status["within 40 points of optimal play"] == "failed"
    assert mid_status["beats the greedy player"] == "passed"
    # exactly the kit's greedy baseline: the same games, the same mean, so it does not beat it
    assert greedy_status["beats the greedy player"] == "failed"
    assert greedy_status["beats the always-Chance player"] == "passed"
    assert lazy_status["beats the greedy player"] == "failed"
    means = [float(re.search(r"mean: (\d+\.\d+)", next(t.output for t in r.tests if "Your strategy" in t.output)).group(1))
             for r in (reference, mid, greedy, lazy)]
    assert means == sorted(means, reverse=True)


def test_illegal_choices_cost_their_problem_and_are_reported(tmp_path):
    report, status = stage5(tmp_path, box=ILLEGAL_BOX)
    assert status["choose_category is legal in every game"] == "failed"
    assert status["choose_keep is legal in every game"] == "passed"
    failed = next(t for t in report.tests if t.name.endswith("legal in every game") and t.status == "failed")
    assert "12000 illegal choice(s)" in failed.output and "returned Chance" in failed.output
    assert "[" not in failed.output            # hidden: no dice of the games in the message


def test_the_starter_scores_nothing_on_stage_5():
    report = grade(SPEC.starter, "yahtzee", stage="5")
    assert report.score == 0 and report.max_score == 20


def test_stage_5_is_optional_and_outside_the_100():
    assert SPEC.total_points == 100 and SPEC.stage_points(5) == 20
    assert [s.number for s in SPEC.core_stages] == [1, 2, 3, 4] and SPEC.is_optional(5)
    assert not any("stage5" in f.name for f in SPEC.suite_files("all"))
    assert [f.name for f in SPEC.suite_files(5)] == ["test_stage5_strategy.py"]


@pytest.mark.parametrize("stage", ["all"])
def test_reference_still_gets_full_marks_on_stages_1_to_4(stage):
    report = grade(SPEC.solution, "yahtzee", stage=stage)
    assert report.score == 100 and report.max_score == 100
    assert {t.stage for t in report.tests} == {1, 2, 3, 4}
