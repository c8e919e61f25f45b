"""Stage 5, the strategy contest: strategies of different strength get the right, exact scores;
stage 5 stays out of `--stage all` and the 100 points of stages 1-4."""

import re
from pathlib import Path

import pytest

from autograder.assignment import load_assignment
from autograder.grading.grade import grade

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


def stage5(tmp_path: Path, keep: str | None = None, box: str | None = None):
    source = SOLUTION
    if keep is not None:
        source = with_region(source, 22, keep)
    if box is not None:
        source = with_region(source, 21, box)
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "yahtzee.py"
    path.write_text(source, encoding="utf-8")
    report = grade(path, "yahtzee", stage="5")
    return report, {re.sub(r"^P\d+ ", "", t.name).split(": ", 1)[-1]: t.status for t in report.tests}


STRATEGY_FILES: list[Path] = []


@pytest.fixture(scope="module")
def strategies(tmp_path_factory):
    """Four strategies graded once: the reference, greedy dice with the reference's boxes, the kit's
    greedy baseline itself, and a player that never re-rolls."""
    folder = tmp_path_factory.mktemp("stage5")
    STRATEGY_FILES.extend([folder / "a" / "yahtzee.py", folder / "b" / "yahtzee.py"])
    return {
        "reference": stage5(folder / "a"),
        "mid": stage5(folder / "b", keep=GREEDY_KEEP),
        "greedy": stage5(folder / "c", keep=GREEDY_KEEP, box=GREEDY_BOX),
        "lazy": stage5(folder / "d", keep=NEVER_REROLL, box=GREEDY_BOX),
    }


def _mean(report) -> float:
    return float(re.search(r"mean: (\d+\.\d+)", next(t.output for t in report.tests if "Your strategy" in t.output))[1])


def test_strategies_of_different_strength_in_the_right_order_with_exact_scores(strategies):
    (reference, ref_status), (mid, mid_status), (greedy, greedy_status), (lazy, lazy_status) = strategies.values()
    assert (reference.score, mid.score, greedy.score, lazy.score) == (20, 12, 8, 8)
    assert reference.max_score == 20 and all(s == "passed" for s in ref_status.values())
    assert mid_status["within 40 points of optimal play"] == "failed"
    assert mid_status["beats the greedy player"] == "passed"
    # exactly the kit's greedy baseline: the same games, the same mean, so it does not beat it
    assert greedy_status["beats the greedy player"] == "failed"
    assert greedy_status["beats the always-Chance player"] == "passed"
    assert lazy_status["beats the greedy player"] == "failed"
    means = [_mean(report) for report, _ in strategies.values()]
    assert means == sorted(means, reverse=True)


def test_leaderboard_and_feedback_plot(strategies, tmp_path):
    from types import SimpleNamespace

    from autograder.coach import leaderboard

    rows = [SimpleNamespace(submission_id=name, tests=[t.__dict__ for t in report.tests])
            for name, (report, _) in strategies.items()]
    rows.append(SimpleNamespace(submission_id="no-stage-5", tests=[]))
    board = leaderboard.leaderboard_rows(rows)
    assert [e["id"] for e in board] == ["reference", "mid", "greedy", "lazy"]
    assert [e["points"] for e in board] == [20, 12, 8, 8] and board[0]["mean"] == _mean(strategies["reference"][0])
    page = leaderboard.leaderboard_html(rows, ceiling=254.59)
    assert page.index("reference") < page.index("mid") < page.index("lazy") and "no-stage-5" not in page
    assert leaderboard.leaderboard_html(rows[-1:]) == ""
    for row in (rows[0], rows[3]):        # full marks, and failing two tiers: both get their plot
        png = leaderboard.feedback_plot(row.tests, tmp_path / f"{row.submission_id}-strategy.png")
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert leaderboard.feedback_plot([], tmp_path / "none.png") is None


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


def test_in_one_batch_session_each_student_gets_their_own_feedback(strategies):
    from autograder.grading.grade import grade_stream

    reports = []
    grade_stream(iter(STRATEGY_FILES), reports.append, "yahtzee", stage="5")
    assert [_mean(r) for r in reports] == [_mean(strategies["reference"][0]), _mean(strategies["mid"][0])]
    passed = [t.output for t in reports[1].tests if t.status == "passed" and "Your strategy" in t.output]
    assert passed and all(text.count("Your strategy's mean") == 1 for text in passed)
