"""Stage 4: the upper bonus, the Yahtzee bonus and the Joker rule.

Pure helpers are called directly; the Joker rule in play_round is played with injected dice
and a script; the seeded games of scenarios/games.toml (stage 4) each hold a Joker, a second
Yahtzee or an upper total right at the threshold.  Expected values come from the reference.
"""

from __future__ import annotations

import functools
import json

import pytest

from autograder.assignments.yahtzee.suites import game as g
from autograder.assignments.yahtzee.suites import round_checks as r
from autograder.assignments.yahtzee.suites.common import (
    BONUS_KEY,
    SUITE,
    describe,
    scorecard,
)
from autograder.engine.charge import skip, stopped_aspect
from autograder.engine.checks import (
    could_pass_by_doing_nothing,
    none_hint,
    reference_ok,
    right_with_reference,
)
from autograder.engine.feedback import Fail, show
from autograder.engine.suite import hint_for, returned_value

DATA = SUITE.load("bonus")
UPPER = DATA["upper_bonus"]
HELPERS = ([dict(case, func="is_joker") for case in DATA["is_joker"]]
           + [dict(case, func="yahtzee_bonus") for case in DATA["yahtzee_bonus"]]
           + [dict(case, func="joker_categories") for case in DATA["joker_categories"]]
           + [dict(case, func="joker_score") for case in DATA["joker_score"]])
ROUNDS = [case for case in DATA["play_round"] if case.get("problem") == 19]
FINAL = DATA["final_score"]
CARD_TEXT = DATA["format_scorecard"]
GAMES = g.game_cases(SUITE.load("games"), 4)
FULL_VALUE = ("Full House", "Small Straight", "Large Straight")
FINAL_SCORE_ASPECT = "final_score: the total of the boxes"      # test_stage3_game.py's too

# Problem 19: half a point per play_round case, the rest shared over the games and one integration
# check (a bonus game with the student's own stage 1-3 functions; every other check runs with the
# reference's functions of stages 1-3 in place of the student's: a bug costs points once).
# Problem 20: final_score, format_scorecard and the games' final scores, a share each, and one
# integration check (a bonus game's final score from the student's own play_game: a play_game that
# totals the boxes itself, without final_score, shows it only there).
ROUNDS = [dict(case, points=0.5) for case in ROUNDS]


def _args(case: dict) -> list:
    card = scorecard(case.get("filled"), case.get("bonus", 0))
    func = case["func"]
    if func == "joker_score":
        return [case["category"], case["dice"]]
    if func == "yahtzee_bonus":
        return [card]
    return [case["dice"], card]


def _compare(student, reference, case: dict, func: str, args: list, also=None, aspect=None) -> None:
    """Fail unless FUNC(*ARGS) returns the reference's value (or ALSO(got), a value that a bug
    checked elsewhere explains: a bug costs points once).  ASPECT(got, expected): what differed,
    when an earlier stage's failure may explain it (engine/charge.py)."""
    ran = functools.partial(describe, func, args)   # (the call's text only where a failure shows it)
    expected = reference_ok(reference.call(func, *args), ran).value
    could_pass_by_doing_nothing(expected)
    outcome = student.call_or_skip(func, *args)
    try:
        got = returned_value(outcome, ran, short=f"{func}(...)")
    except Fail as stopped:
        stopped.aspect = stopped_aspect(outcome)
        raise
    if (got != expected or type(got) is not type(expected)) and also is not None and also(got):
        return
    if got != expected or type(got) is not type(expected):
        ran = ran()
        raise Fail(f"Called {ran}. Returned {show(got)}, but expected {show(expected)} ({case['why']}).",
                   hidden=f"{func} returned the wrong value: {case['why']}.",
                   ran=ran, expected=expected, got=got, hint=hint_for(case, got) or none_hint(got, expected, outcome),
                   aspect=aspect(got, expected) if aspect is not None else None)


# --- Problem 17 --------------------------------------------------------------------------------

@pytest.mark.parametrize("case", SUITE.cases(UPPER, problem=17))
def test_upper_bonus(student, reference, case):
    """upper_bonus"""
    _compare(student, reference, case, "upper_bonus", [scorecard(case.get("filled"))])


# --- Problem 18 --------------------------------------------------------------------------------

@pytest.mark.parametrize("case", SUITE.cases(HELPERS, problem=18, id=lambda case: f"{case['func']}: {case['why']}"))
def test_joker_helpers(student, reference, case):
    """Joker helpers"""
    also = None
    if case["func"] == "joker_score" and case["category"] not in FULL_VALUE:
        def also(got):   # joker_score defers to score here: a wrong score already cost points
            return got == r.own_value(student, "score", case["category"], case["dice"])
    _compare(student, reference, case, case["func"], _args(case), also=also)


# --- Problem 19 --------------------------------------------------------------------------------

@pytest.mark.parametrize("case", SUITE.cases(ROUNDS, problem=19))
def test_joker_round(student, reference, case):
    """The Joker rule in play_round"""
    _joker_round(student, reference, case)


def _joker_round(student, reference, case) -> None:
    """check_round on a Joker round, once per submission and case (its verdict is asked again by
    the seeded games below; a grade never runs the same request twice)."""
    def compute():
        try:
            r.check_round(student, reference, case)
        except (Fail, pytest.skip.Exception) as error:
            return error
        return None
    error = student.memo(("yahtzee", "joker round", json.dumps(case, sort_keys=True, default=str)), compute)
    if error is not None:
        raise error


@pytest.mark.parametrize("case", SUITE.cases(GAMES, problem=19))
def test_bonus_game_rounds(student, reference, case):
    """A seeded game with bonuses: each round's points and the Yahtzee bonus"""
    played = g.play(student, reference, case)
    g.check_finishes(played)
    g.check_dice(played)
    g.check_rounds(played)
    g.check_points(played, student, reference)
    g.check_bonus(played, student)
    if not g.shows_stage4(played, student, reference) and not _joker_rounds_work(student, reference):
        could_pass_by_doing_nothing()   # played as a program without stage 4 would: no points for nothing


def _joker_rounds_work(student, reference) -> bool:
    """Whether the student's play_round passes one of problem 19's Joker rounds (once per
    submission): stage 4 written, so a seeded game that shows nothing of it still counts.  A round
    whose only fault is the pair it returns (a stage-2 bug, charged by problem 12) plays the Joker
    rule all the same: asked again without comparing what it returns."""
    def compute() -> bool:
        for case in ROUNDS:
            try:
                _joker_round(student, reference, case)
            except Fail as failed:
                if failed.aspect != r.NO_PAIR_ASPECT:
                    continue
                try:
                    r.check_round(student, reference, case, returned=False)
                except (Fail, pytest.skip.Exception):
                    continue
            except pytest.skip.Exception:
                continue
            return True
        return False
    return student.memo(("yahtzee", "joker rounds work"), compute)


@pytest.mark.problem(19)
@pytest.mark.visibility("hidden")
@pytest.mark.own_functions
def test_bonus_game_own_functions(student, reference):
    """Integration: a seeded game with bonuses, with your own stage 1-3 functions"""
    test_bonus_game_rounds(student, reference, GAMES[-1])


# --- Problem 20 --------------------------------------------------------------------------------

@pytest.mark.parametrize("case", SUITE.cases(FINAL, problem=20))
def test_final_score_bonuses(student, reference, case):
    """final_score with the bonuses"""
    card = scorecard(case.get("filled"), case.get("bonus", 0))

    def also(got):   # a wrong upper_bonus already cost points in problem 17
        own = r.own_value(student, "upper_bonus", card)
        ref_total = reference.call("final_score", card).value
        ref_upper = reference.call("upper_bonus", card).value
        # (upper_bonus was asked after final_score, in the same life: a program that remembers the
        # total can make its bonus agree once, round 11; so the total proves itself with the
        # reference's upper_bonus too)
        return (isinstance(own, int) and got == ref_total - ref_upper + own
                and right_with_reference(student, ["upper_bonus"], "final_score", card, expected=ref_total))

    def aspect(got, expected):
        """The stage-3 difference when it reproduces without the Yahtzee bonus: the same error on
        the same boxes with no bonus (a bug of the bonuses alone does not reproduce there, or
        stage 3's checks of final_score pass)."""
        plain = scorecard(case.get("filled"))
        own = r.own_value(student, "final_score", plain)
        ref_plain = reference.call("final_score", plain).value
        if isinstance(got, int) and isinstance(own, int) and own != ref_plain and \
                got - expected == own - ref_plain:
            return FINAL_SCORE_ASPECT
        if not isinstance(got, int) and type(own) is type(got):     # the same non-number (None) either way
            return FINAL_SCORE_ASPECT
        return None

    _compare(student, reference, case, "final_score", [card], also=also, aspect=aspect)


@pytest.mark.parametrize("case", SUITE.cases(CARD_TEXT, problem=20))
def test_format_scorecard_bonuses(student, reference, case):
    """format_scorecard with the bonus lines"""
    r.check_scorecard_text(student, reference, case, bonus_lines=True)


@pytest.mark.parametrize("case", SUITE.cases(GAMES, problem=20))
def test_bonus_game_final(student, reference, case):
    """A seeded game with bonuses: the final score adds them"""
    played = g.play(student, reference, case)
    if not played.finished:
        try:
            g.check_finishes(played)
        except Fail as stopped:     # a stage-2 bug that stops the game was charged there (the aspect)
            skip("can't check the final score until the game finishes", stopped.aspect, stopped.sole, stopped.run)
        pytest.skip("can't check the final score until the game finishes")
    if not played.mine.scored:      # no points for a game that scored nothing
        pytest.skip("can't check the final score: the game printed no `Scored N points in CATEGORY.` line")
    bonuses = g.check_final(played, student, reference, g.recorded_card(played), returned=False, scorecard=False)
    if not bonuses and not _final_score_adds_bonuses(student, reference):
        could_pass_by_doing_nothing()   # a total without bonuses, from a final_score that adds none


@pytest.mark.problem(20)
@pytest.mark.visibility("hidden")
@pytest.mark.own_functions
def test_bonus_game_final_own_functions(student, reference):
    """Integration: a seeded game's final score with the bonuses, with your own stage 1-3 functions"""
    test_bonus_game_final(student, reference, GAMES[-1])


def _final_score_adds_bonuses(student, reference) -> bool:
    """Whether the student's final_score adds the bonuses on one of problem 20's cards that has
    some (the reference's total exceeds the boxes' sum): stage 4 written, so a game whose total
    holds no bonus (its dice went elsewhere: a stage-2 bug charged there) still counts.  Asked
    once per submission (every game case may ask; a grade never runs the same request twice)."""
    return student.memo(("yahtzee", "final_score adds bonuses"), lambda: _adds_bonuses(student, reference))


def _adds_bonuses(student, reference) -> bool:
    for case in FINAL:
        card = scorecard(case.get("filled"), case.get("bonus", 0))
        expected = reference.call("final_score", card).value
        own = r.own_value(student, "final_score", card)
        if isinstance(expected, int) and expected > sum(card[category] or 0 for category in g.CATEGORIES) \
                and own == expected:
            return True
        if card[BONUS_KEY]:     # the Yahtzee bonus added as the reference adds it (a stage-3 bug aside)
            plain = dict(card, **{BONUS_KEY: 0})
            own_plain = r.own_value(student, "final_score", plain)
            if isinstance(own, int) and isinstance(own_plain, int) and \
                    own - own_plain == expected - reference.call("final_score", plain).value:
                return True
    return False
