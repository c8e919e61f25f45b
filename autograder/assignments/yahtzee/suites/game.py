"""Yahtzee's seeded games: each is run once per student and read by several checks.

The reading of a run (the timeline, the rolls, the rounds, the first roll that differs from the
reference's) is the engine's (engine/replay.py), with Yahtzee's line grammar from assignment.toml
[protocol]; what is checked of a game, and how it is explained, is here:
    Dice: 4 6 4 6 2                     after every roll
    Round 3                             at the start of a round (counted from 1: check_round_lines)
    Scored 25 points in Full House.     at the end of a round
    Ones: 5 ... Total: 516              the final scorecard
    Final score: 516                    the last line
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from autograder.assignments.yahtzee.suites.common import (
    CATEGORIES,
    GAME_TIMEOUT,
    PROTOCOL,
    flat,
)
from autograder.engine import replay
from autograder.engine.charge import skip, stopped_aspect, written
from autograder.engine.checks import reference_helpers
from autograder.engine.divergence import (
    EXTRA_QUESTION,
    Replayed,
    asked_in_round,
    asked_prompt,
    divergence_gap,
    first_question_difference,
    replay_game,
)
from autograder.engine.feedback import Fail
from autograder.engine.replay import RefGame, Transcript

NUM_DICE = PROTOCOL.num_dice
YAHTZEE_BONUS = 100          # a further Yahtzee's bonus (the handout's rule; only the hint's arithmetic reads it)
FINAL_LINE = PROTOCOL.final


def read_game(outcome) -> Transcript:
    return replay.read_transcript(outcome, PROTOCOL)


def read_reference(outcome) -> RefGame:
    return replay.read_reference(outcome, PROTOCOL)


@dataclass(frozen=True)
class GameCase:
    name: str
    stage: int
    public: bool
    seed: int
    rounds: int
    script: tuple[str, ...]
    covers: tuple[str, ...] = ()

    @property
    def hidden(self) -> bool:
        return not self.public

    @property
    def ran(self) -> str:
        return (f"random.seed({self.seed}); play_game({self.rounds}) with the {len(self.script)} script lines "
                f"{list(self.script)}")

    @property
    def call(self) -> str:
        return f"play_game({self.rounds})"


def game_cases(data: dict, stage: int) -> list[GameCase]:
    out = []
    for game in data.get("game", []):
        if game["stage"] != stage:
            continue
        out.append(GameCase(game["name"], game["stage"], bool(game.get("public")), int(game["seed"]),
                            int(game["rounds"]), tuple(str(s) for s in flat(game["script"])),
                            tuple(game.get("covers", ()))))
    return out


@dataclass
class Played(Replayed):
    """A seeded game of the suites, run on both programs (engine/divergence.py replay_game)."""

    case: GameCase | None = None
    student: Any = None
    reference: Any = None

    @property
    def run(self) -> str:
        """The run its checks read (Fail(run=)): the case, with the student's own functions or not."""
        own = self.student is not None and not self.student.substitute
        return f"{self.case.name}{' (your own functions)' if own else ''}"


def play(student, reference, case: GameCase) -> Played:
    """Run CASE on both programs (each once per grading: memoised on the student's Program)."""
    played = replay_game(student, reference, PROTOCOL, "play_game", case.rounds, stdin=list(case.script),
                         seed=case.seed, timeout=GAME_TIMEOUT, label=f"game {case.name}")
    return Played(played.ref, played.outcome, played.mine, played.divergence, case, student, reference)


def _fail(played: Played, public: str, hidden: str, *, hint: str | None = None, expected=None, got=None,
          show_values: bool = False, aspect: str | None = None):
    """Fail a game check.  ASPECT: what differed, in the words play_round's checks use for the
    same difference (round_checks.py), so a stage-2 bug of play_round that stops a stage-4 game
    is charged once (engine/charge.py).  The game's sole difference (game_sole.py), with its run: the
    problem's later games with the same one are charged once (charge.excuse_same_difference)."""
    from autograder.assignments.yahtzee.suites.game_sole import game_sole  # (it reads this module's helpers)

    case = played.case
    raise Fail(public, hidden=hidden, ran=case.ran, expected=expected, got=got, hint=hint, show_values=show_values,
               output=played.outcome.stdout, aspect=aspect, sole=game_sole(played), run=played.run)


def divergence_aspect(divergence) -> str:
    """A first divergence from the reference's game, as an aspect (engine/charge.py): its kind."""
    return f"divergence: {divergence.kind}"


def question_aspect(question: tuple[int, str] | None) -> str:
    """Asking for more input than the script holds, as an aspect: the likely cause, if known."""
    return f"asked for more input: {question[1]}" if question else "asked for more input"


def _refused_answer(played: Played) -> int | None:
    """The first script line the student's game asked about again where the reference moved on."""
    asks = [i for i in played.mine.items if i.kind == "in"]
    for index in range(min(len(asks) - 1, len(played.ref.answer_kind) - 1)):
        ref_moved_on = not played.ref.rejected[index]
        same_prompt = asks[index + 1].text == asks[index].text and asks[index].text.strip()
        rolled = any(r.gap == index + 1 for r in played.mine.rolls)
        if ref_moved_on and same_prompt and not rolled and \
                played.ref.answer_kind[index + 1] != played.ref.answer_kind[index]:
            return index
    return None


def check_finishes(played: Played) -> None:
    """The game ends normally, without asking for more input than the script holds."""
    from autograder.engine.checks import explain

    outcome, case = played.outcome, played.case
    if played.finished and not outcome.inputs_asked and not played.mine.rolls:
        # returning without playing must not pass the checks that compare what was played
        _fail(played, f"{case.call} returned {outcome.value!r} without playing: it asked for no input "
                      "and rolled no dice.",
              "The game returned without playing: it asked for no input and rolled no dice.",
              hint="play_game(n) plays n rounds: roll, ask which dice to keep, ask for a category.",
              aspect="the game did not play")
    if played.finished:
        return
    div = played.divergence
    question = first_question_difference(played.ref, played.mine)
    too_many = (len(played.mine.scored) >= case.rounds
                or (div is not None and div.kind == "after_last_round"))
    if outcome.status == "input_exhausted":
        if too_many:
            reason, detail = "it plays one round too many", f"it scored {len(played.mine.scored)} rounds and asked on"
            hint = f"play_game({case.rounds}) plays exactly {case.rounds} rounds: check the loop's range."
            aspect = "one round too many"
        elif question is not None and (div is None or question[0] < divergence_gap(played.ref, played.mine)
                                       or question[1] == EXTRA_QUESTION       # (read where the roll was due)
                                       and question[0] == divergence_gap(played.ref, played.mine)):
            reason, detail = question[1], f"script line {question[0] + 1} ({case.script[question[0]]!r})"
            hint = "A round asks at most two keep questions, then the category."
            if question[1] == EXTRA_QUESTION:       # (named: its prompt and round, not a roll it then missed)
                detail = (f"the prompt {asked_prompt(played.mine, question[0])!r} in round "
                          f"{asked_in_round(played.mine, question[0])} read {detail}")
                hint = ("A round asks only which dice to keep (at most twice) and the category: no other "
                        "input, not even a pause (print a message instead).")
            aspect = question_aspect(question)
        elif div is not None:
            reason, detail = f"the first difference from the reference: {div.cause}", f"at {div.where}: {div.detail}"
            hint = div.hint
            aspect = divergence_aspect(div)
        else:
            aspect = question_aspect(None)
            refused = _refused_answer(played)
            if refused is not None:
                reason = "it refused an answer the reference accepts"
                detail = f"it asked again after script line {refused + 1} ({case.script[refused]!r})"
            else:
                reason, detail = "it asked more questions than the reference", ""
            hint = "Each round asks at most two keep questions and one category question (plus re-prompts)."
        public = (f"The game did not finish: it {outcome.message}. Likely cause: {reason}"
                  + (f" ({detail})." if detail else "."))
        hidden = f"The game did not finish: it asked for more input than the script holds; likely cause: {reason}."
        _fail(played, public, hidden, hint=hint, aspect=aspect)
    if outcome.status == "timeout":
        _fail(played, f"The game did not finish: {outcome.message} (an endless loop?).",
              "The game did not finish in time (an endless loop?).", aspect=stopped_aspect(outcome))
    text = explain(outcome, case.call)
    error = outcome.error or {}
    hidden_text = (f"{case.call} is not written yet." if error.get("type") == "NotImplementedError"
                   else f"The game stopped: {case.call} {outcome.hidden_message or outcome.status}.")
    hint = div.hint if div is not None else None
    _fail(played, f"The game did not finish: {text}", hidden_text, hint=hint, aspect=stopped_aspect(outcome))


def check_dice(played: Played) -> None:
    """Every roll matches the reference's on the same seed and script, and so does every Dice: line."""
    check_plays_its_rounds(played)
    div = played.divergence
    if div is None:
        return
    _fail(played, f"The dice stopped following the RNG contract at {div.where}: {div.cause} ({div.detail}).",
          f"The dice stopped following the RNG contract: {div.cause}.", hint=div.hint, aspect=divergence_aspect(div))


def check_rounds(played: Played) -> None:
    """As many rounds as asked: one Scored line each, every script line read."""
    case, mine, outcome = played.case, played.mine, played.outcome
    scored = len(mine.scored)
    if scored == 0:
        _fail(played, "No `Scored N points in CATEGORY.` line in the game's output.",
              "No `Scored N points in CATEGORY.` line in the game's output.",
              hint="Print `Scored N points in CATEGORY.` at the end of every round (the grader counts them).",
              aspect="the Scored line")
    if scored > case.rounds:
        _fail(played, f"play_game({case.rounds}) played {scored} rounds: one round too many.",
              "The game played one round too many.", hint="play_game(n) plays exactly n rounds.",
              aspect="one round too many")
    if case.rounds - 1 > scored:        # (more than a loop's slip by one: check_plays_its_rounds)
        _fail(played, f"play_game({case.rounds}) played {scored} rounds (read {outcome.inputs_asked} of the "
                      f"{outcome.stdin_lines} script lines): {case.rounds - scored} rounds too few.",
              "The game left out rounds it was asked to play.",
              hint="play_game(n) plays exactly n rounds: loop over every one of them.", aspect="rounds left out")
    if scored < case.rounds or (outcome.inputs_asked or 0) < (outcome.stdin_lines or 0):
        _fail(played, f"play_game({case.rounds}) played {scored} rounds (read {outcome.inputs_asked} of the "
                      f"{outcome.stdin_lines} script lines): one round too few.",
              "The game played one round too few (it left script lines unread).",
              hint="play_game(n) plays exactly n rounds: check the loop's range.", aspect="one round too few")
    check_round_lines(played)


def check_plays_its_rounds(played: Played) -> None:
    """A finished game that left out more than one of the rounds it was asked to play (not a loop's
    slip by one) is checked no further (skipped with its run, charged as check_rounds is): what it
    printed of the few rounds it played vouches for nothing of the rest (round 12: a game of one
    round in thirteen, its card and total its own, passed its dice, points and final checks)."""
    scored = len(played.mine.scored) if played.finished else 0
    if 0 < scored < played.case.rounds - 1:
        from autograder.assignments.yahtzee.suites.game_sole import game_sole
        skip(f"can't check the game until it plays its rounds (it played {scored} of {played.case.rounds})",
             "rounds left out", game_sole(played), played.run)


def check_round_lines(played: Played) -> None:
    """`Round N` starts each round, counting from 1 (the handout's protocol): the first such line
    after the previous round's Scored line (before the first, from the start) names N.  Without
    one, a decorated line or prompt that names round N (`=== Round 3 ===`) will do.  The
    reference's own Round lines are what the grader's reading of it relies on."""
    mine = played.mine
    for index, at in enumerate(mine.scored_at):
        start = mine.scored_at[index - 1] + 1 if index else 0
        lines = [item.text for item in mine.items[start:at] if item.kind == "line"]
        shown = next(((text, _round_number(text)) for text in lines if _round_number(text) is not None), None)
        if shown is not None and shown[1] == index + 1:
            continue
        texts = [item.text for item in mine.items[start:at] if item.kind in ("line", "in")]
        if shown is None and any(_names_round(text, index + 1) for text in texts):
            continue
        got = f"its first round line is {shown[0].strip()!r}" if shown else "no `Round N` line came before it"
        _fail(played, f"Round {index + 1} should start with the line `Round {index + 1}`; {got}.",
              "A round did not start with its `Round N` line (rounds count from 1).",
              hint="Print `Round N` at the start of each round, counting from 1: `Round 1` to `Round 13`.",
              aspect="the Round line")


def _names_round(text: str, number: int) -> bool:
    """Whether TEXT names round NUMBER anywhere (`**** Round 3 ****`, `Round 3 of 13`)."""
    return (any(replay.number(found) == number for found in _ROUND_ANYWHERE.findall(text))
            and not PROTOCOL.scored.search(text))


# (its digits read by bounds.number: `round 999...` with 5000 digits was int()'s ValueError in the
# grader on main 44bdcdc, an "internal error" on every game check, redteam6)
_ROUND_ANYWHERE = re.compile(r"\bround\s*#?\s*(\d+)\b", re.IGNORECASE)


def _round_number(text: str) -> int | None:
    """N of a `Round N` line (not a Scored line that happens to start so), else None."""
    match = PROTOCOL.round.match(text)
    if match is None or PROTOCOL.scored.search(text):
        return None
    return replay.number(replay.group(match, "round", "number"))


@dataclass
class Points:
    card: dict                     # the expected final scorecard (categories + Yahtzee Bonus)
    notes: list[str]


def _round_dice(mine: Transcript, index: int) -> list[int] | None:
    """The dice the student's game showed last before its INDEX-th Scored line."""
    if index >= len(mine.scored):
        return None
    start = mine.scored_at[index - 1] if index else -1
    shown = None
    for item in mine.items[start + 1:mine.scored_at[index]]:
        if item.kind == "line":
            dice = PROTOCOL.dice_in(item.text)
            if dice is not None:
                shown = dice
    return shown


def check_points(played: Played, student, reference) -> Points:
    """Each round records the reference's category and points.  A bug costs points once: a round
    whose points match the student's OWN score (or joker_score) on those dice is accepted."""
    check_plays_its_rounds(played)
    import pytest

    from autograder.engine.checks import explain

    mine, ref = played.mine, played.ref
    card: dict = {}
    notes: list[str] = []
    for index, ref_round in enumerate(ref.rounds):
        if index >= len(mine.scored) or ref_round.scored is None:
            break
        want_points, want_category = ref_round.scored
        points, category, line, _ = mine.scored[index]
        number = index + 1
        joker = " in a Joker round" if "joker" in ref_round.marks else ""
        if category is None:
            _fail(played, f"Round {number}: the line {line!r} names no category.",
                  "A `Scored N points in CATEGORY.` line names no category.",
                  hint="Use the official names, e.g. `Scored 25 points in Full House.`", aspect="the Scored line")
        if category != want_category and category in card:
            _fail(played, f"Round {number}: the game scored in {category} again, but that box was already filled "
                          f"(the script chose {want_category}).",
                  "The game accepted a box that was already filled.",
                  hint="A box that is already filled cannot be used again: print a message and ask again.",
                  aspect=f"accepted a filled box{joker}")
        if category != want_category:
            _fail(played, f"Round {number}: the game scored in {category}, but the script chose {want_category}.",
                  "A round was scored in another category than the script chose.",
                  hint="Check that refused answers (filled boxes, boxes the Joker rule forbids) are asked again.",
                  aspect=f"returned the wrong (category, points){joker}")
        if points != want_points:
            dice = _round_dice(mine, index)
            func = "joker_score" if "joker" in ref_round.marks else "score"
            accepted = False
            if dice is not None and dice != ref_round.final_dice and len(dice) == NUM_DICE:
                alt = reference.call(func, category, dice)
                accepted = alt.status == "ok" and alt.value == points    # the dice check already counts
            if not accepted and dice is not None:
                own = student.call_or_skip(func, category, dice)
                if own.status != "ok":
                    pytest.skip(f"can't check the game's points until {func} works: "
                                f"{explain(own, f'{func}(...)')}")
                accepted = own.value == points
                if accepted:
                    notes.append(f"round {number}: {points} points, as your {func} gives")
            if not accepted:
                hint = None
                if "joker" in ref_round.marks:
                    hint = ("A Joker scores Full House 25, Small Straight 30 and Large Straight 40 "
                            "(full value), and the matching upper box when it is open.")
                _fail(played, f"Round {number}: the game recorded {points} points in {category}; "
                              f"expected {want_points}.",
                      "A round recorded the wrong points.", hint=hint,
                      aspect=f"returned the wrong (category, points){joker}")
        card[category] = points
    card["Yahtzee Bonus"] = ref_bonus(ref)
    return Points(card, notes)


def check_bonus(played: Played, student=None) -> None:
    """The Yahtzee bonus the final scorecard shows is the reference's (when the card shows one), or
    what the student's OWN yahtzee_bonus gives on the game's Jokers (its bug is charged once, in
    its own checks)."""
    want = ref_bonus(played.ref)
    got = played.mine.card_value("Yahtzee Bonus")
    if not isinstance(got, int) or got == want:
        return
    if student is not None and got == _own_bonus(played.ref, student):
        return
    first, scratched = _yahtzee_rounds(played.ref)
    where = ""
    if 0 < got < want:
        hint = "The Yahtzee bonus is earned for every further Yahtzee, not only the first."
    elif got > want and first and (not scratched or got - want == YAHTZEE_BONUS * len(first)):
        hint = ("The Yahtzee that goes into the open Yahtzee box scores 50 and earns no bonus; "
                "only a further Yahtzee, with 50 already in the box, earns +100.")
        where = f" (round {first[0]} put a Yahtzee into the open Yahtzee box: no bonus for that one)"
    elif got > want:
        hint = "No Yahtzee bonus when the Yahtzee box holds 0 (it was scratched)."
        if scratched:
            where = f" (round {scratched[0]} rolled a Yahtzee with the Yahtzee box at 0: no bonus)"
    else:
        hint = "A further Yahtzee, with 50 in the Yahtzee box, earns +100 (Joker rule)."
    _fail(played, f"The final scorecard shows Yahtzee Bonus: {got}; expected {want}{where}.",
          "The Yahtzee bonus at the end of the game is wrong.", hint=hint, aspect="the Yahtzee bonus after the round")


def _own_bonus(ref: RefGame, student) -> int | None:
    """The Yahtzee bonus of the reference's game, each Joker's share from the student's own
    yahtzee_bonus on the scorecard before it (None when it does not answer, or is a constant or
    not written: never excused)."""
    if not written(getattr(student, "source", None) or "", ["yahtzee_bonus"]):
        return None
    card: dict = {category: None for category in CATEGORIES}
    card["Yahtzee Bonus"] = 0
    for rnd in ref.rounds:
        if rnd.scored is None:
            return None
        points, category = rnd.scored
        dice = rnd.final_dice
        if dice and len(dice) == NUM_DICE and len(set(dice)) == 1 and card.get("Yahtzee") is not None:
            own = student.call_or_skip("yahtzee_bonus", dict(card))
            if own.status != "ok" or not isinstance(own.value, int) or isinstance(own.value, bool):
                return None
            card["Yahtzee Bonus"] += own.value
        if category in card:
            card[category] = points
    return card["Yahtzee Bonus"]


def _yahtzee_rounds(ref: RefGame) -> tuple[list[int], list[int]]:
    """The reference game's rounds that earn no Yahtzee bonus though they roll five alike: the one
    that fills the open Yahtzee box, and the Jokers while the box holds 0."""
    first, scratched, box = [], [], None
    for rnd in ref.rounds:
        dice = rnd.final_dice
        if rnd.scored is None:
            continue
        points, category = rnd.scored
        if dice and len(dice) == NUM_DICE and len(set(dice)) == 1:
            if box is None and category == "Yahtzee":
                first.append(rnd.number)
            elif box == 0:
                scratched.append(rnd.number)
        if category == "Yahtzee":
            box = points
    return first, scratched


def shows_stage4(played: Played, student, reference) -> bool:
    """Whether the student's game did something only stage 4 does (its rounds and Yahtzee bonus
    passed the checks already): the reference's Yahtzee bonus, shown the same, or a Joker round
    whose points differ from the plain score of its dice (full value), recorded as the reference
    or the student's own joker_score (a joker_score bug is charged in problem 18) gives them.
    A game where a program without stage-4 code plays exactly like the reference (a Joker forced
    into an upper box, an upper total at the threshold) observes nothing of the stage."""
    want = ref_bonus(played.ref)
    if want and played.mine.card_value("Yahtzee Bonus") == want:
        return True
    for index, ref_round in enumerate(played.ref.rounds):
        if "joker" not in ref_round.marks or ref_round.scored is None or index >= len(played.mine.scored):
            continue
        points, category = ref_round.scored
        dice = ref_round.final_dice
        plain = reference.call("score", category, dice)
        mine = played.mine.scored[index]
        if plain.status != "ok" or mine.category != category or mine.points == plain.value:
            continue
        if mine.points == points or mine.points == student.call_or_skip("joker_score", category, dice).value:
            return True
    return False


def recorded_card(played: Played) -> Points:
    """The scorecard the student's game says it recorded (its Scored lines and its Yahtzee bonus)."""
    card: dict = {}
    for points, category, _, _ in played.mine.scored:
        if category is not None:
            card[category] = points
    shown = played.mine.card_value("Yahtzee Bonus")
    card["Yahtzee Bonus"] = shown if isinstance(shown, int) else ref_bonus(played.ref)
    return Points(card, [])


def ref_bonus(ref: RefGame) -> int:
    shown = ref.game.card_value("Yahtzee Bonus")
    return shown if isinstance(shown, int) else 0


def _total_with_reference(played: Played, expected: int) -> bool:
    """Whether the game, played again with the reference's final_score, prints EXPECTED as its
    final score: the proof that its total is final_score's (the student's own final_score was
    asked after the game, in the same life, and the work folder carries what the game printed to
    it: round 11, checks.reference_helpers).  Once per game and substitution."""
    student, case = played.student, played.case

    def again() -> bool:
        with reference_helpers(student, ["final_score"], "play_game"):
            outcome = student.call_or_skip("play_game", case.rounds, stdin=list(case.script), seed=case.seed,
                                           timeout=GAME_TIMEOUT)
        finals = replay.read_transcript(outcome, PROTOCOL).finals
        return bool(finals) and finals[-1] == expected
    return student.memo(("yahtzee", "total with the reference's final_score", case.name,
                         repr(student.substitute)), again)


def check_final(played: Played, student, reference, points: Points, *, returned: bool, scorecard: bool) -> int:
    """`Final score: N` is printed (last), N is the expected total; play_game returns it; the final
    scorecard shows each round's points.  A wrong final_score costs points once (in its own checks).
    Returns the bonuses the printed total holds as the reference's (the total less the boxes' sum),
    0 when it was accepted as the student's own final_score gives it."""
    check_plays_its_rounds(played)
    import pytest

    from autograder.engine.checks import GraderFault

    case, mine, outcome = played.case, played.mine, played.outcome
    card = {category: points.card.get(category) for category in CATEGORIES}
    card["Yahtzee Bonus"] = points.card.get("Yahtzee Bonus", 0)
    total = reference.call("final_score", card)
    if total.status != "ok":
        raise GraderFault(f"the reference's final_score failed: {total.message}")
    expected = total.value
    if not mine.finals:
        # final_score's bug: its aspect (charge.py), once the game proves it (round 12: an agreement's proof)
        if _shows_own_non_number(mine.last_line, student, card) and _total_with_reference(played, expected):
            _fail(played, f"The game printed `{mine.last_line.strip()}`; expected `Final score: {expected}`.",
                  "The game printed a final score that is not a number.",
                  hint="final_score must return the total (a number): printing it inside final_score "
                       "returns None.", aspect="final_score: the total of the boxes")
        _fail(played, "No `Final score: N` line at the end of the game.",
              "No `Final score: N` line at the end of the game.",
              hint="The very last line of the game is `Final score: N`.")
    shown = mine.finals[-1]
    if shown != expected:
        own = student.call_or_skip("final_score", card)
        if own.status != "ok":
            pytest.skip("can't check the game's final score until final_score works")
        if own.value != shown or not _total_with_reference(played, expected):
            boxes = sum(card[category] or 0 for category in CATEGORIES)
            hint = ("The printed total leaves out the bonuses: print (and return) what final_score(scorecard) "
                    "gives, which adds the upper bonus and the Yahtzee bonus." if shown == boxes < expected
                    else "Print (and return) what final_score(scorecard) gives for the game's scorecard.")
            _fail(played, f"The game printed `Final score: {shown}`; expected {expected}.",
                  "The final score printed at the end of the game is wrong.", hint=hint, expected=expected, got=shown)
    bonuses = expected - sum(card[category] or 0 for category in CATEGORIES) if shown == expected else 0
    if not FINAL_LINE.match(mine.last_line):
        _fail(played, f"The last line of the game is {mine.last_line!r}; it should be `Final score: {shown}`.",
              "The last line of the game is not `Final score: N`.",
              hint="Print the final scorecard first, then `Final score: N` as the very last line.")
    if returned and outcome.value != shown:
        _fail(played, f"play_game({case.rounds}) returned {outcome.value!r}; it should return the final "
                      f"score, {shown}.",
              "play_game does not return the final score.",
              hint="play_game must return the final score (not only print it).")
    if scorecard:
        for category in CATEGORIES:
            if card[category] is None:
                continue
            value = mine.card_value(category)
            if value is None:
                _fail(played, f"The final scorecard has no `{category}: N` line.",
                      "The final scorecard lacks a `Category: points` line.",
                      hint="Print format_scorecard(scorecard) at the end of the game, before the final score.")
            if value != card[category]:
                _fail(played, f"The final scorecard shows `{category}: {value}`; the game recorded "
                              f"{card[category]} points there.",
                      "The final scorecard does not show the points the game recorded.")
    return bonuses


def _shows_own_non_number(last_line: str, student, card: dict) -> bool:
    """Whether LAST_LINE is `Final score: X` with X what the student's own final_score shows on CARD
    (own_non_number_shown): the game shows final_score's value as asked, so the failure names
    final_score's aspect, and final_score's bug is charged once, in its own checks (P14's; stage 4
    via charge.py)."""
    head, colon, value = (last_line or "").partition(":")
    return bool(colon) and head.strip().lower() == "final score" and own_non_number_shown(student, card, value)


def own_non_number_shown(student, card: dict, value: str) -> bool:
    """Whether VALUE (a line's text after its label) is what the student's own written final_score
    returns on CARD when that is not a number (None, from a final_score that prints its total
    instead of returning it): a game's `Final score:` line, a scorecard's `Total:` line."""
    if not written(getattr(student, "source", None) or "", ["final_score"]):
        return False
    own = student.call_or_skip("final_score", card)
    return own.status == "ok" and not isinstance(own.value, int) and value.strip() == str(own.value)
