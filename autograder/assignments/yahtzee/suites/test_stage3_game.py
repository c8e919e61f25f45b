"""Stage 3: the full game.  A new scorecard, the final score, the scorecard text, play_game.

play_game is replayed on seeded games with scripted answers (scenarios/games.toml, stage 3:
no bonus and no Joker can happen in them).  Each game is run once per student; its checks:
    finishes  the game ends without asking for more input than the script holds
    dice      every roll and every Dice: line matches the reference (the RNG contract)
    rounds    as many rounds as asked (one `Scored ...` line each, every script line read)
    points    each round's category and points (a wrong `score` costs points once, in stage 1)
    final     `Final score: N` last, the returned total, the final scorecard
The checks after `finishes` depend on it (skipped, not failed again, when the game stops early).
"""

from __future__ import annotations

import pytest

from autograder.assignments.yahtzee.suites import game as g
from autograder.assignments.yahtzee.suites import round_checks as r
from autograder.assignments.yahtzee.suites.common import (
    BONUS_KEY,
    CATEGORIES,
    GAME_TIMEOUT,
    SUITE,
    describe,
    scorecard,
)
from autograder.engine.charge import stopped_aspect
from autograder.engine.checks import could_pass_by_doing_nothing, none_hint, reference_ok
from autograder.engine.feedback import Fail
from autograder.engine.suite import returned_value

CARDS = SUITE.load("scorecard")
GAMES = g.game_cases(SUITE.load("games"), 3)
FULL = [game for game in GAMES if game.rounds == 13]
SHORT = [game for game in GAMES if game.rounds != 13]

# Problem 16: 1 point for the import check, 1 for the integration check (a whole game with the
# student's own stage 1-2 functions), 0.25 for each num_rounds check; the rest is shared over the
# game checks (five per full game, four per short game: its points and final checks are one),
# which run with the reference's stage 1-2 functions in place of the student's (a bug costs
# points once, in its own stage).
ROUNDS_ARG = [{"rounds": 0, "why": "0 rounds is refused"}, {"rounds": 14, "why": "14 rounds is refused"},
              {"rounds": 1, "why": "1 round is played"}]
for _case in ROUNDS_ARG:
    _case["points"] = 0.25      # the handout: a num_rounds outside 1 to 13 raises ValueError, nothing rolled or asked


def game_params(games=GAMES, depends: str | None = None) -> list:
    return SUITE.cases(games, problem=16, depends=depends)


# --- Problem 13 --------------------------------------------------------------------------------

def _new_card(student) -> dict:
    got = returned_value(student.call_or_skip("new_scorecard"), "new_scorecard()", short="new_scorecard()")
    if not isinstance(got, dict):
        raise Fail(f"new_scorecard() returned {got!r}; expected a dict.", ran="new_scorecard()",
                   show_values=False, hint="Return a dict: each category -> None, plus \"Yahtzee Bonus\" -> 0.")
    return got


@pytest.mark.problem(13)
def test_new_scorecard_open(student):
    """new_scorecard: every category open (None)"""
    card = _new_card(student)
    missing = [c for c in CATEGORIES if c not in card]
    if missing:
        raise Fail(f"new_scorecard() has no key {missing[0]!r}.", ran="new_scorecard()", show_values=False,
                   hint="Use the names in CATEGORIES, spelled exactly.")
    filled = [c for c in CATEGORIES if card[c] is not None]
    if filled:
        raise Fail(f"new_scorecard() starts {filled[0]} at {card[filled[0]]!r}; an open box is None.",
                   ran="new_scorecard()", show_values=False,
                   hint="Open boxes hold None (0 would mean a scratched box).")


@pytest.mark.problem(13)
@pytest.mark.visibility("hidden")
def test_new_scorecard_bonus(student):
    """new_scorecard: the Yahtzee bonus starts at 0"""
    card = _new_card(student)
    if card.get(BONUS_KEY) != 0 or type(card.get(BONUS_KEY)) is not int:
        raise Fail("new_scorecard() must hold \"Yahtzee Bonus\": 0.", ran="new_scorecard()", show_values=False,
                   hint="The key is YAHTZEE_BONUS_KEY (\"Yahtzee Bonus\"), and it starts at 0.")


@pytest.mark.problem(13)
@pytest.mark.visibility("hidden")
def test_new_scorecard_keys(student, reference):
    """new_scorecard: the 13 categories and the bonus, nothing else"""
    card = _new_card(student)
    expected = reference_ok(reference.call("new_scorecard"), "new_scorecard()").value
    # Only what no other check of P13 reads: a missing or wrong category is test_new_scorecard_open's,
    # a missing or wrong bonus test_new_scorecard_bonus's (one bug, one check: pass 25).
    extra = sorted(map(str, set(card) - set(expected)))
    if extra:
        raise Fail(f"new_scorecard() must have exactly 14 keys: the 13 categories and \"Yahtzee Bonus\" "
                   f"(it has extra keys {extra}).", ran="new_scorecard()", expected=expected, got=card)


# --- Problem 14 --------------------------------------------------------------------------------

@pytest.mark.parametrize("case", SUITE.cases(CARDS["final_score"], problem=14))
def test_final_score(student, reference, case):
    """final_score"""
    card = scorecard(case.get("filled"))
    ran = describe("final_score", [card])
    expected = reference_ok(reference.call("final_score", card), ran).value
    could_pass_by_doing_nothing(expected)
    has_open = any(card[c] is None for c in CATEGORIES)
    hint = "Open boxes (None) count 0." if has_open else None
    outcome = student.call_or_skip("final_score", card)
    try:
        got = returned_value(outcome, ran, short="final_score(...)", hint=hint)
    except Fail as stopped:
        stopped.aspect = stopped_aspect(outcome)
        raise
    if got != expected:
        raise Fail(f"Called {ran}. Returned {got!r}, but expected {expected!r} ({case['why']}).",
                   hidden=f"final_score returned the wrong total: {case['why']}.",
                   ran=ran, expected=expected, got=got, hint=none_hint(got, expected, outcome) or hint,
                   aspect="final_score: the total of the boxes")     # stage 4's FINAL_SCORE_ASPECT


# --- Problem 15 --------------------------------------------------------------------------------

@pytest.mark.parametrize("case", SUITE.cases(CARDS["format_scorecard"], problem=15))
def test_format_scorecard(student, reference, case):
    """format_scorecard"""
    r.check_scorecard_text(student, reference, case, bonus_lines=False)


# --- Problem 16 --------------------------------------------------------------------------------

@pytest.mark.parametrize("case", game_params())
def test_game_finishes(student, reference, case):
    """The game finishes"""
    g.check_finishes(g.play(student, reference, case))


@pytest.mark.problem(16)
@pytest.mark.points(1)
@pytest.mark.depends(f"test_game_finishes[{GAMES[0].name}]")     # no point for a game never written
def test_import_does_not_start_a_game(student, reference):
    """Importing the file does not start a game, and a game leaves nothing for the next one"""
    outcome = student.call("new_scorecard")
    prompted = outcome.import_prompted
    if prompted:
        where = f" (line {prompted.get('line')})" if prompted.get("line") else ""
        raise Fail(f"Importing your file starts a game: it asked for input while being imported{where}.",
                   show_values=False,
                   hint="Start the game only under `if __name__ == \"__main__\":` at the bottom of the file.")
    _second_game_on_a_new_card(student, 1, ["", "Chance"])


@pytest.mark.parametrize("case", game_params(depends="test_game_finishes"))
def test_game_dice(student, reference, case):
    """The dice follow the RNG contract"""
    g.check_dice(g.play(student, reference, case))


@pytest.mark.parametrize("case", game_params(depends="test_game_finishes"))
def test_game_rounds(student, reference, case):
    """The right number of rounds"""
    g.check_rounds(g.play(student, reference, case))


@pytest.mark.parametrize("case", game_params(FULL, depends="test_game_finishes"))
def test_game_points(student, reference, case):
    """Each round's category and points"""
    g.check_points(g.play(student, reference, case), student, reference)


@pytest.mark.parametrize("case", game_params(depends="test_game_finishes"))
def test_game_final(student, reference, case):
    """The final scorecard, the final score, the returned total"""
    played = g.play(student, reference, case)
    points = g.check_points(played, student, reference)
    g.check_final(played, student, reference, points, returned=True, scorecard=True)


@pytest.mark.problem(16)
@pytest.mark.points(1)
@pytest.mark.visibility("hidden")
@pytest.mark.own_functions
def test_game_own_functions(student, reference):
    """Integration: a whole game with your own stage 1 and 2 functions"""
    case = FULL[-1]
    played = g.play(student, reference, case)
    g.check_finishes(played)        # (the RNG contract is graded once, by test_game_dice)
    g.check_rounds(played)
    g.check_final(played, student, reference, g.check_points(played, student, reference),
                  returned=True, scorecard=True)


@pytest.mark.parametrize("case", SUITE.cases(ROUNDS_ARG, problem=16))
def test_num_rounds_checked(student, reference, case):
    """play_game checks num_rounds"""
    rounds = case["rounds"]
    script = ["", "Chance"] * rounds
    ran = f"play_game({rounds}) with the script {script}"
    ref = reference.call("play_game", rounds, stdin=script, seed=5)
    outcome = student.call_or_skip("play_game", rounds, stdin=script, seed=5, timeout=GAME_TIMEOUT)
    acted = any(event[0] in ("roll", "in") for event in outcome.events or ())
    if ref.status == "exception":        # the reference refuses: ValueError, before anything happens
        could_pass_by_doing_nothing(raises=True)
        if outcome.status == "exception" and (outcome.error or {}).get("type") == "ValueError" and not acted:
            return
        if outcome.status == "exception" and (outcome.error or {}).get("type") == "NotImplementedError":
            returned_value(outcome, ran, short=f"play_game({rounds})")     # a stub: "not written yet"
        raise Fail(f"play_game({rounds}) must raise ValueError before rolling or asking anything "
                   "(num_rounds is 1 to 13).", ran=ran, show_values=False,
                   hint="Check num_rounds first: `if not 1 <= num_rounds <= 13: raise ValueError(...)`.")
    reference_ok(ref, ran)
    if outcome.status != "ok" or outcome.value != ref.value or outcome.inputs_asked != ref.inputs_asked:
        returned_value(outcome, ran, short=f"play_game({rounds})")
        # a game that stops a round early (the loop's range one short): the games' sole difference
        # "round: missing", charged once with them (charge.excuse_same_difference)
        short = outcome.inputs_asked == ref.inputs_asked - len(script) // rounds and \
            not any(event[0] == "roll" for event in outcome.events or ())
        raise Fail(f"play_game({rounds}) must play exactly one round and return its final score"
                   + (" (it played none)." if short else "."), ran=ran,
                   show_values=False, hint="play_game(n) plays n rounds, 1 to 13: check the loop's range.",
                   sole="round: missing" if short else None)


def _second_game_on_a_new_card(student, rounds: int, script: list[str]) -> None:
    """The handout: play_game plays its rounds "on a new scorecard".  A card made once (a global, a
    default argument) shows in a second game of the same run only: two calls in the student's shared
    worker (one module, as check.py and a notebook play them), the second must do what the first did."""
    first = student.call("play_game", rounds, stdin=script, seed=5, fresh=False, timeout=GAME_TIMEOUT)
    if first.status != "ok":
        return      # (a game that does not finish is charged by the games' own checks)
    second = student.call("play_game", rounds, stdin=script, seed=5, fresh=False, timeout=GAME_TIMEOUT)
    if first.worker is None or second.worker is None or first.worker[1] != second.worker[0]:
        return      # (not one module's two calls: the worker was replaced between them; nothing to compare)
    if (second.status, second.value, second.inputs_asked) != (first.status, first.value, first.inputs_asked):
        said = (f"returned {second.value!r} (the first returned {first.value!r})" if second.status == "ok"
                else second.message or second.status)
        raise Fail(f"play_game({rounds}) played twice in one run: the second game {said}; every game starts on "
                   "a new scorecard.", ran=f"play_game({rounds}) twice in one run, each with the script {script}",
                   hidden="play_game played twice in one run: the second game did not play as the first did "
                          "(every game starts on a new scorecard).", show_values=False,
                   hint="Make the scorecard inside play_game (`scorecard = new_scorecard()`), not once at the top "
                        "of the file or as a default argument.", aspect="play_game: the same scorecard again")
