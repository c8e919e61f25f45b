"""Whole games of Yatzy for the stage 3 and 4 suites: scripted stdin, a seed (or chosen dice),
the transcript read with the protocol and compared line by line with the reference's game."""

from __future__ import annotations

from dataclasses import dataclass

from autograder.assignments.yatzy.suites.common import (
    ASSIGNMENT,
    CATEGORIES,
    GAME_TIMEOUT,
    HINTS,
    RULES,
    SUITE,
    call,
    divergence,
    not_returned,
    read_lines,
    reference_ok,
    rng_calls,
)
from autograder.engine.checks import could_pass_by_doing_nothing
from autograder.engine.divergence import first_divergence, sole_difference
from autograder.engine.feedback import Fail
from autograder.engine.replay import Protocol, read_reference, read_transcript, shown_calls

START = "start"


@dataclass
class Game:
    why: str
    names: list[str]
    seed: int
    answers: list[str]
    dice: list[int] | None = None
    public: bool = False

    def stdin(self) -> list[str]:
        return [*self.names, START, *self.answers]

    def describe(self) -> str:
        text = f"play_game() after random.seed({self.seed}), the names {self.names} then {START!r}"
        cycle = self.answers[:4]
        text += f", the keep answers {cycle}{' ...' if len(self.answers) > 4 else ''}"
        if self.dice is not None:
            text += " and chosen dice"
        return text


def seeded_game(case: dict) -> Game:
    """A seeded game: the answers repeat as long as any game can ask (leftovers are unused)."""
    asked = len(CATEGORIES) * len(case["names"]) * (RULES["rolls_per_turn"] - 1)
    answers = (list(case["answers"]) * (2 * asked // len(case["answers"]) + 1))[:2 * asked]
    return Game(case["why"], list(case["names"]), case["seed"], answers, public=bool(case.get("public")))


def dice_game(case: dict, first: dict) -> Game:
    """A game of chosen dice: one roll a turn (every answer "all"); PLAYERS lists each playing
    position's fifteen rolls (or indexes into FIRST's lists)."""
    players = [first["players"][p] if isinstance(p, int) else p for p in case["players"]]
    dice = [face for turn in range(len(CATEGORIES)) for rolls in players for face in rolls[turn]]
    answers = ["all"] * (len(CATEGORIES) * len(players))
    return Game(case["why"], list(case["names"]), case["seed"], answers, dice, bool(case.get("public")))


def play(program, game: Game):
    """Play GAME on PROGRAM; a timeout is remembered against play_game only when it is the
    program's own (a stage-4 check plays the reference's play_game)."""
    sub = program.substitute
    own = sub is None or "play_game" in (sub.get("keep") or ())
    return call(program, "play_game", stdin=game.stdin(), seed=game.seed, dice=game.dice,
                timeout=GAME_TIMEOUT, under=("play_game",) if own else ("play_game (with your stage 4)",))


def reference_game(reference, game: Game):
    return reference_ok(reference.call("play_game", stdin=game.stdin(), seed=game.seed, dice=game.dice,
                                       timeout=GAME_TIMEOUT), game.describe())


GAME_HINT = ("Print the protocol lines exactly as the handout shows them: 'Order: ...', 'Round N: CATEGORY', "
             "'Player: NAME', 'Dice: ...', 'Scored N points in CATEGORY.', 'Results:', 'N. NAME: TOTAL'.")


def check_game(student, reference, game: Game, *, kinds: tuple[str, ...] | None = None) -> None:
    """Fail unless the student's game prints the reference's protocol lines (of KINDS, or all).
    The feedback names where the game first went another way: the round, the category, the
    player and the roll (a hidden check: the player's place in the order, and no line's data)."""
    expected = reference_game(reference, game)
    outcome = play(student, game)
    want = [line for line in read_lines(expected.stdout) if kinds is None or line.kind in kinds]
    got = [line for line in read_lines(outcome.stdout) if kinds is None or line.kind in kinds]
    could_pass_by_doing_nothing(len(want))
    found = divergence(got, want, hidden=False)
    if found is None and outcome.status == "ok":
        return
    text, kind = found if found else (None, None)
    hidden_text = divergence(got, want, hidden=True)[0] if found else None
    if outcome.status != "ok" and (text is None or not got or outcome.status != "input_exhausted"):
        fail = not_returned(outcome, game.describe(), "play_game()")
        if (outcome.error or {}).get("type") == "NotImplementedError":
            fail.summary = fail.hidden = "play_game() stopped: a function it calls is not written yet."
        if text and got:
            fail.summary, fail.hidden = f"{text} {fail.summary}", f"{hidden_text} {fail.hidden}"
        fail.args = (fail.summary,)
        raise fail
    hint = HINTS.get(kind, GAME_HINT)
    if kind == "dice":                 # the engine's replay says why the dice differ (kept dice re-rolled ...)
        found_cause = dice_cause(expected, outcome)
        if found_cause is not None:
            text, hidden_text = f"{text} Likely cause: {found_cause[0]}.", f"{hidden_text} Likely cause: {found_cause[0]}."
            hint = found_cause[1] or hint
    # a finished game that differs in one kind of line only, one way (a wrong Order: line): the
    # problem's other games with that same difference are charged once (charge.excuse_same_difference)
    sole = sole_difference(got, want) if outcome.status == "ok" else None
    raise Fail(text, hidden=hidden_text, ran=game.describe(), show_values=False, hint=hint, output=outcome.stdout,
               sole=sole)


def dice_cause(expected, outcome) -> tuple[str, str] | None:
    """The engine replay's data-free cause and hint of the first differing roll of two runs of the
    same script, or None (it reads rounds and rolls; the turn and the player come from our lines)."""
    try:
        protocol = Protocol.of(ASSIGNMENT)
        found = first_divergence(read_reference(expected, protocol), read_transcript(outcome, protocol),
                                 complete=outcome.status == "ok")
    except Exception:                  # noqa: BLE001 -- a second opinion only: never a grader fault
        return None
    return (found.cause, found.hint) if found is not None and found.cause else None


def check_rng(student, reference, game: Game) -> None:
    """The RNG contract: one random.shuffle right after start, then only dice, as many as the reference."""
    expected = reference_game(reference, game)
    outcome = play(student, game)
    if outcome.status != "ok":
        raise not_returned(outcome, game.describe(), "play_game()")
    shuffles, rolls, others, early = rng_calls(outcome)
    _, want_rolls, _, _ = rng_calls(expected)
    problems, hidden = [], []
    if shuffles != 1:
        problems.append(f"called random.shuffle {shuffles} times (the contract: once, right after start)")
        hidden.append("did not call random.shuffle exactly once")
    elif early:
        problems.append("rolled dice before shuffling the players")
        hidden.append(problems[-1])
    if others:
        problems.append(f"called {shown_calls(others)} (only random.shuffle once and "
                        "random.randint(1, 6) for the dice)")
        hidden.append(problems[-1])        # names of the random module's functions: no scenario data
    if rolls != want_rolls:
        problems.append(f"rolled {'fewer' if rolls < want_rolls else 'more'} dice than the reference "
                        "on the same answers")
        hidden.append(problems[-1])
    if problems:
        raise Fail("Your game broke the RNG contract: it " + "; it ".join(problems) + ".",
                   hidden="Your game broke the RNG contract: it " + "; it ".join(hidden) + ".",
                   ran=game.describe(), show_values=False,
                   hint="Shuffle the list of players with one random.shuffle(players) right after start; "
                        "roll every die with next() on its die generator.")


def public_game(key: str, case: dict) -> dict | None:
    """A public case of games.toml as check.py and the notebooks play it (assignment.toml
    [public_scenarios.game] script; notebooks.checks): the stdin, seed and dice of the hidden check
    of the same case (the keep answers the reference reads: `trim`).  A game of chosen dice gives
    both: its seed shuffles the players, its dice are every roll."""
    if key == "game":
        game = seeded_game(case)
    elif key == "dice_game":
        game = dice_game(case, SUITE.load("games")["dice_game"][0])
    else:
        return None
    return {"call": "play_game()", "answers": game.stdin(), "seed": game.seed, "dice": game.dice, "trim": True}
