"""Round twelve of the hostile corpus (redteam12, pass 25): excuses granted without a proof.
Cases and predictions: tests/corpus/round12/expected.toml (committed before each case was graded;
`main_points` is what main 5e8a6a8 gives).  Each [[excuse]] case is appended to the reference and
graded once, in one `grade-all` batch per stage (tests/helpers/corpus.grade_class).

Part A: charge.py's within-stage crash rule excused a check stopped by a crash in ANOTHER problem's
function whenever that problem's check stopped on the same line: a stub calling a helper that
crashes once per process got the stub's problem in full.  The rule is gone; instage's retry with
the reference's function is the excuse's proof.
Part B: format_scorecard's `Total: None`, agreeing with the program's own final_score (asked after
it), passed with no proof and RETURNED before the stage-4 bonus lines were read.
Part C: a game that plays one round of thirteen had the sole difference "round: missing" in every
game (charged once), and its dice, points and final checks passed on that one round: 24.125 of 25.
Part D (what stays, pinned): across stages a crash bought with one stage-2 round excuses the Joker rule.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.batch import SOLUTION
from helpers.corpus import grade_class, lost_by_problem

from autograder import toml as tomllib  # the one TOML shim
from autograder.engine.divergence import sole_run_difference
from autograder.engine.grammar import Line

FOLDER = Path(__file__).resolve().parent / "corpus" / "round12"
EXPECTED = tomllib.loads((FOLDER / "expected.toml").read_text(encoding="utf-8"))
CASES = {case["name"]: case for case in EXPECTED["excuse"]}
STAYS = {case["name"]: case for case in EXPECTED["stays"]}


@pytest.fixture(scope="module")
def rows(tmp_path_factory) -> dict:
    """Every [[excuse]] case graded once: one grade-all batch per stage."""
    found = {}
    every = {**CASES, **STAYS}
    for stage in sorted({str(case["stage"]) for case in every.values()}):
        files = {name: ("yahtzee.py", SOLUTION.rstrip("\n") + "\n\n\n" + (FOLDER / f"{name}.py").read_text(encoding="utf-8"))
                 for name, case in every.items() if str(case["stage"]) == stage}
        found.update(grade_class(tmp_path_factory.mktemp(f"round12-stage{stage}"), "yahtzee", files, stage=str(stage)))
    return found


def _points(row, problem: int) -> float:
    return round(sum(t["score"] for t in row.tests if t["problem"] == problem), 4)


def _notes(row, problem: int) -> list[str]:
    return [t["output"] for t in row.tests if t["problem"] == problem and t["output"].startswith("Not charged")]


@pytest.mark.parametrize("name", list(CASES))
def test_round12_exact_score(rows, name):
    row, case = rows[name], CASES[name]
    assert not row.error and not [t["name"] for t in row.tests if t["status"] == "error"], name
    assert row.score == pytest.approx(case["points"], abs=1e-3), (name, row.score, lost_by_problem(row))


@pytest.mark.parametrize("name", [n for n, c in CASES.items() if "aim" in c and "round_game" not in n])
def test_round12_no_point_of_the_aimed_problem_beyond_its_control(rows, name):
    """Parts A and B: what the case aims at gets no point its control (the same program without the
    trick) does not get, and no check of it is excused."""
    case = CASES[name]
    aim, control = case["aim"], rows[case["control"]]
    assert _points(rows[name], aim) <= _points(control, aim), (name, _points(rows[name], aim))
    assert not _notes(rows[name], aim), _notes(rows[name], aim)


def test_round12_a_card_without_bonus_lines_is_read_whole(rows):
    """Part B: the honest slip (final_score prints its total) keeps its Total line excused, proven
    with the reference's final_score, and its missing Upper Bonus line is charged."""
    said = [t["output"] for t in rows["printed_total_skips_the_bonus_lines"].tests
            if t["problem"] == 20 and "format_scorecard" in t["name"]]
    assert said and all("no `Upper Bonus: N` line" in text for text in said), said
    control = [t for t in rows["printed_total_control"].tests if t["problem"] == 20 and "format_scorecard" in t["name"]]
    assert control and all(t["status"] == "passed" for t in control)


@pytest.mark.parametrize("name, played", [("one_round_game", 1), ("three_round_game", 3)])
def test_round12_a_game_that_leaves_out_rounds_is_not_one_slip(rows, name, played):
    """Part C: no game check of P16 excused, each 13-round game's rounds check says how many it left
    out, and its other checks wait on its rounds."""
    row = rows[name]
    assert not _notes(row, 16), _notes(row, 16)
    said = "\n".join(t["output"] for t in row.tests if t["problem"] == 16)
    assert f"played {played} rounds" in said and f"{13 - played} rounds too few" in said
    assert f"until it plays its rounds (it played {played} of 13)" in said
    # the 4-round game (hidden): a loop's slip by one for three rounds, charged as before
    assert ("one round too few" in said) == (played == 3)


def test_round12_a_units_sole_difference_is_one_unit():
    """The rule on lines: rounds missing (or extra) are a sole difference for ONE round; other kinds
    (a card's lines) whatever their count, as before."""
    card = [Line("card", (n,)) for n in range(5)]
    rounds = [Line("round", (n, 10, "Chance")) for n in range(1, 6)]
    final = [Line("final", (50,))]
    want = rounds + card + final
    assert sole_run_difference(rounds[:4] + card + final, want, "ok", unit="round") == "round: missing"
    assert sole_run_difference(rounds[:3] + card + final, want, "ok", unit="round") is None
    assert sole_run_difference(rounds[:1] + card + final, want, "ok", unit="round") is None
    assert sole_run_difference(rounds + rounds[:1] + card + final, want, "ok", unit="round") == "round: extra"
    assert sole_run_difference(rounds + final, want, "ok", unit="round") == "card: missing"
    assert sole_run_difference(rounds[:3] + card + final, want, "ok") == "round: missing"    # (no unit: as before)


def test_round12_a_crash_bought_across_stages_stays(rows):
    """Part D, what stays (docs/threat-model.md, "Buying an excuse"): a play_round with no Joker rule
    that stops on one line whenever a Yahtzee is rolled pays one stage-2 round and has P19's Joker
    rounds excused (their crash is on that line): pinned, so that a fix shows."""
    bought, control = rows["crash_on_a_yahtzee_buys_the_joker_rule"], rows["joker_rule_missing_control"]
    assert bought.score == pytest.approx(STAYS["crash_on_a_yahtzee_buys_the_joker_rule"]["points"], abs=1e-3)
    assert control.score == pytest.approx(STAYS["joker_rule_missing_control"]["points"], abs=1e-3)
    assert lost_by_problem(bought) == {12: 0.625, 19: 0.3335} and _points(control, 19) == 0
    assert len(_notes(bought, 19)) == 12 and all("stems from P12" in note for note in _notes(bought, 19))
