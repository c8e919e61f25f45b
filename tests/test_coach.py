"""The coach: advice in positions worked by hand, the review of a recorded game, the CLI interface."""

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from autograder.coach import advice, review, solver
from autograder.engine.program import Program

REPO = Path(__file__).resolve().parent.parent
m = solver.kit()
ZEROS = np.zeros(solver.SHAPE)        # one box open: the next state is the end of the game (worth 0)


def card_with_open(*open_boxes: str, **filled: int) -> dict:
    card = m.new_scorecard()
    for category in m.CATEGORIES:
        if category not in open_boxes:
            card[category] = 0
    for name, points in filled.items():
        card[name.replace("_", " ")] = points
    return card


def test_last_box_chance_with_one_reroll_keeps_the_dice_above_3_5():
    card = card_with_open("Chance")
    options = advice.advise(card, [6, 5, 4, 3, 1], 1, table=ZEROS)
    best = options[0]
    assert best.keep == (4, 5, 6) and best.positions == (1, 2, 3)
    assert best.value == pytest.approx(15 + 2 * 3.5)               # 6+5+4 and two fresh dice
    stop = next(o for o in options if o.label == "keep all (score now)")
    assert stop.value == 19 and stop.regret == pytest.approx(3.0)


def test_last_box_yahtzee_keeps_the_three_of_a_kind():
    options = advice.advise(card_with_open("Yahtzee"), [2, 5, 2, 6, 2], 1, table=ZEROS)
    assert options[0].keep == (2, 2, 2) and options[0].positions == (1, 3, 5)
    assert options[0].value == pytest.approx(50 / 36)              # both fresh dice show a 2


def test_scoring_lists_every_open_box_with_its_points():
    card = card_with_open("Chance", "Sixes", "Full House")
    options = advice.advise(card, [6, 6, 6, 2, 2], 0, table=ZEROS)
    assert [(o.category, o.points) for o in options] == [("Full House", 25), ("Chance", 22), ("Sixes", 18)]
    assert [o.regret for o in options] == [0, 3, 7]


def test_forced_joker_goes_to_the_matching_upper_box_with_the_bonus():
    card = card_with_open("Fours", "Chance", "Large Straight", Yahtzee=50)
    options = advice.advise(card, [4, 4, 4, 4, 4], 0, table=ZEROS)
    assert [(o.category, o.points, o.value) for o in options] == [("Fours", 20, 50 + 20 + 100)]


def test_forced_joker_with_the_upper_box_filled_takes_a_lower_box_at_full_value():
    card = card_with_open("Ones", "Chance", "Large Straight", Yahtzee=50, Fours=12)
    options = advice.advise(card, [4, 4, 4, 4, 4], 0, table=ZEROS)
    assert [(o.category, o.points) for o in options] == [("Large Straight", 40), ("Chance", 20)]
    free = advice.advise(card, [4, 4, 4, 4, 4], 0, solver.Rules("free"), table=ZEROS)
    assert [(o.category, o.points) for o in free] == [("Large Straight", 40), ("Chance", 20), ("Ones", 0)]


@pytest.fixture(scope="module")
def recorded_game() -> str:
    """A whole game of the reference as the grader records it (sandbox stdout, input echoed)."""
    program = Program((REPO / "solution" / "yahtzee.py").read_text(encoding="utf-8"), "yahtzee.py")
    script = [answer for category in reversed(m.CATEGORIES) for answer in ("1 2", "", category)]
    outcome = program.call("play_game", stdin=script, seed=2026, timeout=10)
    program.close()
    assert outcome.status == "ok", outcome.message
    return outcome.stdout


def test_review_of_a_recorded_game(recorded_game, tmp_path):
    result = review.review_game(recorded_game)
    printed_total = int(recorded_game.rsplit("Final score:", 1)[1].split()[0])
    assert result.final_score == printed_total
    assert len(result.decisions) == 13 * 3                         # keep 1 2, keep all, a box: each round
    assert all(d.loss >= 0 for d in result.decisions) and not any(d.inferred for d in result.decisions)
    assert result.decisions[-1].loss == 0                          # the last box has no alternative
    assert result.total_loss == pytest.approx(sum(d.loss for d in result.decisions))
    worst = result.costliest()
    assert len(worst) == 3 and worst[0].loss == max(d.loss for d in result.decisions)
    text = review.format_review(result)
    assert "the three costliest decisions" in text and f"final score {printed_total}" in text
    png = review.plot_review(result, tmp_path / "game.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_review_without_echoed_answers_infers_the_keeps(recorded_game):
    # input not echoed (piped stdin): each prompt runs into the next output line
    silent = re.sub(r"\? (.*)\n", "? ", recorded_game)
    result = review.review_game(silent)
    echoed = review.review_game(recorded_game)
    assert result.final_score == echoed.final_score
    assert any(d.inferred for d in result.decisions)
    # Pass 22: the last roll's stop (keep all with a re-roll left) counts without its answer too;
    # it was left out (26 decisions, not 39), so a player who stops early was told of no loss for it
    assert len(result.decisions) == len(echoed.decisions) == 13 * 3
    stops = [(d.round, d.roll, d.chosen, d.loss) for d in result.decisions if d.chosen.startswith("keep all")]
    assert stops == [(d.round, d.roll, d.chosen, d.loss) for d in echoed.decisions if d.chosen.startswith("keep all")]
    assert len(stops) == 13 and all(d.inferred for d in result.decisions if d.chosen.startswith("keep all"))


def test_review_of_something_else_is_a_clear_error(tmp_path):
    with pytest.raises(review.GameTextError, match="no round found"):
        review.review_game("hello\nworld\n")
    bad = tmp_path / "notes.txt"
    bad.write_text("just notes\n")
    result = coach("--review", str(bad))
    assert result.returncode == 2 and "no round found" in result.stderr


def coach(*args: str, cache: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if cache is not None:
        env["YAHTZEE_KIT_CACHE"] = str(cache)
    return subprocess.run([sys.executable, "-m", "autograder", "coach", *args], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=300)


def test_coach_position_and_bad_input():
    result = coach("--card", "Ones=3, Fours=12, Yahtzee=50", "--dice", "4 4 4 4 4", "--rolls-left", "0")
    assert result.returncode == 0, result.stderr
    assert "best: Large Straight for 40 points" in result.stdout and "regret" in result.stdout
    for args, message in [(("--dice", "1 2 3"), "must be a list of 5 dice"),
                          (("--dice", "1 2 3 4 5", "--card", "Fullhouse25"), "expected NAME=POINTS"),
                          (("--dice", "1 2 3 4 5", "--card", "Fives=x"), "whole number"),
                          (("--dice", "1 2 3 4 5", "--card", "Sevens=7"), "unknown box 'Sevens'")]:
        result = coach(*args)
        assert result.returncode == 2 and message in result.stderr, (args, result.stderr)


@pytest.mark.slow      # three fresh float64 tables (about 20 s of CPU), then the CLI reads them back
@pytest.mark.parametrize("args, rules, published", [
    ((), solver.Rules("forced", True), 254.58772873),                # the kit's official rules
    (("--joker", "free"), solver.Rules("free", True), 254.58960948),   # Verhoeff 1999, Glenn 2006
    (("--no-bonus",), solver.Rules("none", False), 245.87077451),      # no Yahtzee bonus, no Joker
])
def test_optimum_interface_from_fresh_tables(tmp_path, args, rules, published):
    """The CLI's optimum from a fresh table, and the table it solved (solver.solve through
    load_table, kept in the empty cache folder) is the published optimum to 1e-7 (the solver's
    check of test_coach_solver.py, moved here: one solve per rule set, not two)."""
    result = coach("--optimum", *args, cache=tmp_path)
    assert result.returncode == 0, result.stderr
    last = result.stdout.strip().splitlines()[-1]
    assert f"{float(last):.4f}" == f"{published:.4f}" and len(last.split(".")[1]) >= 4
    table = np.load(tmp_path / solver.table_path(rules, np.float64).name, allow_pickle=False)
    assert table.shape == solver.SHAPE and table.dtype == np.float64
    assert round(float(table[0, 0, 0]), 4) == round(published, 4)
    assert float(table[0, 0, 0]) == pytest.approx(published, abs=1e-7)
