"""Helpers of the Pytzee suites: the games, playing one on a program, reading its final score.

Students print free-form text, so a game is compared through its final score only: the
first integer after "score"/"total" on the last line that mentions a final score, or the
value play_game returns when it is an int.  Every game is played on the student's program
as the handout asks (import the file, call play_game(num_rounds)); when that does not give
the expected score, the file is also run as a script (`python pytzee.py`: the number of
rounds, then the seed, then the answers on stdin), so a game loop kept under
``if __name__ == "__main__":`` is graded too.  Only the checks of problem 14 insist on one way.
"""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass, field, replace

from autograder.engine import grammar
from autograder.engine.checks import GraderFault, could_pass_by_doing_nothing, explain
from autograder.engine.divergence import sole_run_difference
from autograder.engine.feedback import Fail, ordinal
from autograder.engine.grammar import Line, Score
from autograder.engine.replay import dice_rolled, random_calls, roll_values, shown_calls
from autograder.engine.suite import Suite, reference_versions  # noqa: F401 (the suites import it from here)

SUITE = Suite(__file__)
ASSIGNMENT = SUITE.assignment
PROTOCOL = SUITE.protocol   # free-form output: only the slots and the spare dice
GAME_TIMEOUT = 1.5          # seconds per game; the reference plays any of them in milliseconds
SHORT_TIMEOUT = 0.5         # ... once a program has run out of time in SLOW_RUNS_ALLOWED games
SLOW_RUNS_ALLOWED = 6       # (so a program that hangs everywhere is graded in about 30 s)
NUM_DICE = 5
ENTRY = "play_game"
read_final_score = functools.partial(grammar.read_final_score, entry=ENTRY)   # free-form output


# ---------------------------------------------------------------------------------------
# Games
# ---------------------------------------------------------------------------------------

@dataclass
class Game:
    why: str
    rounds: int
    commands: list[str]
    dice: list[int] | None = None          # flat: 5 per turn, injected in order
    seed: int | None = None
    mode: str = "either"                   # "call", "script", or "either" (call, then script)
    rolls: list[list[int]] = field(default_factory=list)   # the rolls, for the feedback

    def stdin(self, mode: str) -> list[str]:
        if mode == "script":
            return [str(self.rounds), str(self.seed or 0), *self.commands]
        return list(self.commands)

    def describe(self, mode: str) -> str:
        answers = ", ".join(repr(c) for c in self.commands)
        if mode == "script":
            ran = f"python pytzee.py with the input {self.rounds}, {self.seed or 0}, {answers}"
        else:
            ran = f"{ENTRY}({self.rounds})" + (f" with random.seed({self.seed})" if self.seed is not None else "")
            ran += f" and the answers {answers}"
        if self.dice is not None:
            ran += "; the dice: " + ", ".join(str(r) for r in self.rolls)
        return ran


def game_from_case(case: dict) -> Game:
    rolls = [list(roll) for roll in case["dice"]]
    return Game(case["why"], len(rolls), list(case["commands"]), [d for roll in rolls for d in roll],
                mode=case.get("mode", "either"), rolls=rolls)


def run(program, game: Game, mode: str, timeout: float = GAME_TIMEOUT, own: bool = False):
    """GAME played on PROGRAM as MODE says.  A script game (the sample run) is the check's own
    subject: it runs with the check's substitution (the reference's functions of the other stages,
    from the file's main guard on: harness targets.script_parts), unless OWN.  The script after a
    failed call (an "either" game) is the way in for a program whose game does not follow the
    handout's functions (all inline): it runs the student's own file as it is."""
    if mode == "script" and game.mode == "script" and not own:
        return program.script(stdin=game.stdin(mode), dice=game.dice, timeout=timeout)
    if mode == "script":
        with program.substituting(None):
            return program.script(stdin=game.stdin(mode), dice=game.dice, timeout=timeout)
    seed = game.seed if game.dice is None else None
    return program.call(ENTRY, game.rounds, stdin=game.stdin(mode), seed=seed, dice=game.dice,
                        timeout=timeout)


def _modes(game: Game) -> list[str]:
    return ["call", "script"] if game.mode == "either" else [game.mode]


def reference_score(reference, game: Game) -> int:
    mode = _modes(game)[0]
    outcome = run(reference, game, mode)
    score = read_final_score(outcome, finished=outcome.status == "ok")
    if outcome.status != "ok" or score.value is None:
        raise GraderFault(f"the reference failed on {game.describe(mode)}: {outcome.status} "
                          f"{outcome.message} {outcome.error}")
    return score.value


@dataclass
class Attempt:
    mode: str
    outcome: object
    score: Score

    @property
    def finished(self) -> bool:
        return self.outcome.status == "ok"


def attempt(student, game: Game, mode: str, own: bool = False) -> Attempt:
    slow = student.memo("games out of time", lambda: [0])      # a one-item counter per submission
    timeout = SHORT_TIMEOUT if slow[0] >= SLOW_RUNS_ALLOWED else GAME_TIMEOUT
    outcome = run(student, game, mode, timeout, own)
    if outcome.status == "timeout" or (outcome.elapsed or 0) >= 0.8 * timeout:
        slow[0] += 1
    finished = outcome.status == "ok"
    return Attempt(mode, outcome, read_final_score(outcome, finished=finished))


def timed_out(att: Attempt) -> bool:
    return att.outcome.status == "timeout"


def _sentence(text: str) -> str:
    text = text.rstrip()
    return text if text.endswith((".", "?", "!")) else text + "."


def how_run(mode: str, game: Game) -> str:
    return "python pytzee.py" if mode == "script" else f"{ENTRY}({game.rounds})"


def short_game(att: Attempt, game: Game) -> str | None:
    """Why ATT did not play every turn of GAME (one roll and at least one answer per turn),
    or None.  A right final score from a game that was not played is no pass: a program that
    plays no round at all scores 0 too."""
    rolled = dice_rolled(att.outcome)
    answered = (att.outcome.inputs_asked or 0) - (2 if att.mode == "script" else 0)
    if rolled < NUM_DICE * game.rounds:
        return f"it rolled {rolled} dice, not {NUM_DICE * game.rounds} ({game.rounds} turn(s) of {NUM_DICE})"
    if answered < game.rounds:
        return f"it asked for {max(answered, 0)} answer(s) in {game.rounds} turn(s)"
    return None




def rolls_twice(student, game: Game, att: Attempt, expected: int | None = None) -> Attempt | None:
    """When ATT ran out of dice, GAME played again: first with spare dice after the game's own
    (an extra roll_dice() call after the last turn), then with each turn's roll given twice
    (two calls per turn: show one roll, score another).  Both break the RNG contract, which
    problem 14 grades; the other checks grade their rule on the dice the game meant.  Returns
    the first replay that ends with EXPECTED (when given), else the last one that finished."""
    if att.outcome.status != "dice_exhausted" or game.dice is None:
        return None
    found = None
    for dice in (PROTOCOL.with_spare_dice(game.dice), [d for roll in game.rolls for d in roll + roll]):
        again = attempt(student, replace(game, dice=dice), att.mode)
        if again.outcome.status != "dice_exhausted":
            found = again
            if expected is None or again.score.value == expected:
                return again
    return found


def _accepted_answers(outcome, offset: int) -> list[tuple[int, list[int]]]:
    """(answer index, dice) of the answer that ended each turn of OUTCOME: the last one read
    before the next roll (OFFSET: the inputs read before the game's answers)."""
    rolls: list[int] = []
    accepted: dict[int, int] = {}
    asked = 0
    for event in outcome.events or ():
        if event and event[0] == "roll":
            value = event[1] if len(event) > 1 else None
            rolls.extend(value if isinstance(value, (list, tuple)) else [value])
        elif event and event[0] == "in":
            asked += 1
            if asked > offset and len(rolls) >= NUM_DICE:
                accepted[len(rolls) // NUM_DICE - 1] = asked - offset - 1
    return [(index, rolls[turn * NUM_DICE:(turn + 1) * NUM_DICE]) for turn, index in sorted(accepted.items())]


def spared(reference, game: Game) -> tuple[Game, int] | None:
    """The handout's spare answers, derived from the reference's own run (so no game can forget
    one): for a program that refuses an answer its roll does not fit and asks again, GAME with a
    spare `skip` right after every such answer the reference accepted, and the final score it
    must end with (the reference's, with those answers made `skip`: the turn scores 0 there and
    uses no slot).  None when every accepted answer fits its roll."""
    def compute():
        mode = _modes(game)[0]
        outcome = run(reference, game, mode)
        skip = reference.call("parse_command", "skip").value
        misfits = []
        for index, dice in _accepted_answers(outcome, 2 if mode == "script" else 0):
            slot = reference.call("parse_command", game.commands[index]).value
            if slot is not None and slot != skip and reference.call("score_slot", slot, dice).value == 0:
                misfits.append(index)
        if not misfits:
            return None
        with_spares, as_skips = [], []
        for index, command in enumerate(game.commands):
            with_spares.append(command)
            as_skips.append("skip" if index in misfits else command)
            if index in misfits:
                with_spares.append("skip")
        return replace(game, commands=with_spares), reference_score(reference, replace(game, commands=as_skips))
    key = ("spared", game.rounds, tuple(game.commands), tuple(game.dice or ()), game.seed, game.mode)
    return reference.memo(key, compute)


def _explain(outcome, how: str, hidden: bool) -> str:
    return f"{how}: your program {outcome.hidden_message or outcome.status}" if hidden else explain(outcome, how)


def why_not(att: Attempt, game: Game, expected: int, hidden: bool) -> str:
    """One sentence: what went wrong in ATT."""
    outcome = att.outcome
    how = how_run(att.mode, game)
    status = outcome.status
    answers = len(game.stdin(att.mode))
    if att.score.value == expected:
        short = short_game(att, game)
        return f"{how}: the final score is right, but the game was not played: {short}"
    # Hidden checks say nothing the program chose (a number it printed, a count, an exception's
    # name or text): those could carry the hidden game out.
    if status == "dice_exhausted":
        used = getattr(outcome, "dice_used", None) or NUM_DICE * game.rounds
        asked = "" if hidden else f"; it asked for die number {used + 1}"
        return (f"{how}: your program rolled more dice than the game has "
                f"({NUM_DICE * game.rounds} for {game.rounds} turn(s){asked})")
    if att.score.value is not None and att.score.value != expected:
        if hidden:
            text = f"{how}: your final score was wrong"
        else:
            text = f"{how}: your final score was {att.score.value}, expected {expected} (read from {att.score.source})"
        if status != "ok" and status != "input_exhausted":
            text += f"; then {_explain(outcome, how, hidden)}"
        short = short_game(att, game)
        if short:
            text += f"; and {short}, so it does not play every round asked for"
        return text
    if status == "input_exhausted":
        asked = outcome.inputs_asked or answers + 1
        if hidden:
            return (f"{how}: your program asked for more input than the game's {answers} answers "
                    f"(does it accept every answer given? does it play more rounds than asked?)")
        return (f"{how}: your program asked for input a {ordinal(asked)} time, but the game has "
                f"only {answers} answers (does it accept every answer given? does it play more "
                f"rounds than asked?)")
    if status == "timeout":
        return f"{how}: your program ran past the time limit (an endless loop?)"
    if status != "ok":
        if hidden and (outcome.error or {}).get("type") == "NotImplementedError":
            return f"{how} is not written yet"      # (its message is the program's own text: not repeated)
        return _explain(outcome, how, hidden)
    return (f"{how}: no line of your output gives the final score; print one such as "
            f"'Your final score was 92'")


def _passes_as_own(student, game: Game, mode: str, att: Attempt, expected: int) -> bool:
    """Whether a script game that failed with its check's substitution (ATT) ends with EXPECTED when
    the student's own file runs as it is: the program is right, its functions only differ from the
    handout's (their parameters, say) so that the reference's do not fit it.  Never more than the
    check gave before scripts substituted: the own run is what it judged then."""
    if mode != "script" or game.mode != "script" or student.substitute is None or timed_out(att) \
            or att.outcome.status in ("syntax_error", "import_error"):
        return False
    own = attempt(student, game, mode, own=True)
    return own.score.value == expected and not short_game(own, game)


# The words of the slots, for a twin's control game (_same_as_twin): the first whose game the
# reference scores otherwise than the checked one.
SLOT_WORDS = ("chance", "count 1", "count 2", "count 3", "count 4", "count 5", "count 6", "full house",
              "small straight", "large straight", "pytzee", "three of a kind", "four of a kind")


def _same_as_twin(student, reference, game: Game, mode: str, att: Attempt, same_as: list[str],
                  expected: int) -> bool:
    """Whether ATT's game (its first word a synonym, scored wrong) ends with the score the same game
    with the canonical words SAME_AS ends with, on the student's program: its synonym is read as
    the canonical word, and the score's mistake is graded elsewhere.  Both are played apart
    (Program.apart, round 11: a life that ran neither the first game nor anything that could leave
    it a note): the twin, and a control game with another slot's word, which the reference scores
    otherwise, that must end otherwise (a program whose every game ends the same, whatever the
    words, reads no synonym)."""
    other = next((word for word in SLOT_WORDS if word != same_as[0] and word != game.commands[0]
                  and reference_score(reference, replace(game, commands=[word, *same_as[1:]])) != expected), None)
    with student.apart():
        twin = attempt(student, replace(game, commands=list(same_as)), mode)
        if twin.score.value != att.score.value:
            return False
        if other is None:
            return True
        control = attempt(student, replace(game, commands=[other, *same_as[1:]]), mode)
    return control.score.value != att.score.value


def play_and_check(student, reference, game: Game, *, hint: str | None = None,
                   hint_when: list[int] | None = None, same_as: list[str] | None = None,
                   run_name: str | None = None) -> None:
    """Fail unless STUDENT ends GAME with the reference's final score.

    SAME_AS (other answers for the same dice, e.g. "three of a kind" for "3 of a kind"): also
    pass when the student's score equals the student's own, non-zero score with those answers,
    so a check of a spelling does not fail again for a scoring mistake graded elsewhere.
    RUN_NAME: a whole game (problem 14's), charged once with the problem's other games that have
    the same sole difference (game_sole)."""
    expected = reference_score(reference, game)
    could_pass_by_doing_nothing(expected)       # a final score of 0: no point unless a real one passes
    spares = spared(reference, game)
    attempts = []
    for mode in _modes(game):
        att = attempt(student, game, mode)
        if att.score.value == expected and not short_game(att, game):
            return
        if same_as and att.score.value and not short_game(att, game) \
                and _same_as_twin(student, reference, game, mode, att, same_as, expected):
            return
        again = rolls_twice(student, game, att, expected)
        if again is not None and again.score.value == expected:
            return
        if spares and not timed_out(att) and att.outcome.status not in ("syntax_error", "import_error"):
            refusing = attempt(student, spares[0], mode)       # it refuses what does not fit, and asks again
            if refusing.score.value == spares[1] and not short_game(refusing, spares[0]):
                return
        if _passes_as_own(student, game, mode, att, expected):
            return
        attempts.append(att)
        if att.outcome.status in ("syntax_error", "import_error") or timed_out(att):
            break                   # the script would fail (or hang) the same way
    first = attempts[0]
    # Report the attempt that got furthest: one with a score, else the first one.
    shown = next((a for a in attempts if a.score.value is not None), first)
    if shown.outcome.status == "no_function" and len(attempts) > 1:
        shown = attempts[1]

    def summary(hidden: bool) -> str:
        text = _sentence(why_not(shown, game, expected, hidden))
        for other in attempts:
            if other is not shown:
                same = (other.outcome.status, other.score.value) == (shown.outcome.status, shown.score.value)
                text += (" Run as a script, it did the same." if same and other.mode == "script" else
                         " Also " + _sentence(why_not(other, game, expected, hidden)))
        return text

    expected_rolls = NUM_DICE * game.rounds
    rolled = dice_rolled(shown.outcome)
    notes = []
    if shown.outcome.status == "dice_exhausted":
        notes.append("Your program rolled more dice than the game has turns: call roll_dice() exactly "
                     "once per turn.")
    elif rolled > expected_rolls:
        notes.append(f"Your program rolled {rolled} dice in {game.rounds} turn(s), not {expected_rolls}: "
                     f"call roll_dice() exactly once per turn.")
    others = random_calls(shown.outcome)
    if others and game.dice is None:
        notes.append(f"Your program calls {shown_calls(others)}: only roll_dice() may use random, "
                     f"or a seeded game rolls other dice.")
    if hint and (not hint_when or shown.score.value in hint_when):
        notes.append(hint)
    sole = game_sole(reference, game, attempts, scored=True) if run_name else None
    raise Fail(summary(False), hidden=summary(True), ran=game.describe(shown.mode),
               hint=" ".join(notes) or None, output=shown.outcome.stdout, show_values=False,
               sole=sole, run=run_name)


def game_sole(reference, game: Game, attempts: list[Attempt], scored: bool) -> str | None:
    """The only difference from the reference's of every failed attempt of a whole GAME (the same
    in each, engine/divergence.sole_run_difference), or None.  What a game shows, aspect by aspect:
    each roll of five dice, how many answers it read, and its final score (SCORED: the score
    compared; else only that there is one, as check_rolls reads it).  "roll: extra" (a roll_dice()
    call too many, every roll of the game's still rolled in order), "score: field 1 off by +35".
    A game that did not end, shows no final score (or 0), or was not played as short_game counts
    it (fewer dice rolled through roll_dice than its turns need: dice drawn another way) has none:
    its score and its rolls are what a game shows, so a program that shows none is never excused."""
    mode = _modes(game)[0]              # (the reference's run the check made: either way, one game)
    theirs = run(reference, game, mode)
    want = read_final_score(theirs, finished=theirs.status == "ok").value
    expected = _aspects(theirs, want if scored else True, 2 if mode == "script" else 0)
    found = set()
    for att in attempts:
        mine, value = att.outcome, att.score.value
        if mine.status != "ok" or not value or not want or short_game(att, game):
            return None             # (a game the grader does not count as played: no dice rolled by the contract)
        got = _aspects(mine, value if scored else True, 2 if att.mode == "script" else 0)
        found.add(sole_run_difference(got, expected, mine.status))
    return found.pop() if len(found) == 1 else None


def _aspects(outcome, score, offset: int) -> list[Line]:
    values = roll_values(outcome)
    lines = [Line("roll", tuple(values[i:i + NUM_DICE])) for i in range(0, len(values), NUM_DICE)]
    return [*lines, Line("answers", ((outcome.inputs_asked or 0) - offset,)), Line("score", (score,))]


def check_rolls(student, reference, game: Game, *, hint: str | None = None, run_name: str | None = None) -> None:
    """Fail unless STUDENT plays seeded GAME to the end rolling the very dice the reference
    rolls (the RNG contract), asking one answer per turn and printing a final score.  The
    score itself is not compared: the rules are graded by their own checks.  RUN_NAME: as
    play_and_check's."""
    mode = _modes(game)[0]
    ref = run(reference, game, mode)
    wanted = roll_values(ref)
    if ref.status != "ok" or len(wanted) != NUM_DICE * game.rounds:
        raise GraderFault(f"the reference failed on {game.describe(mode)}: {ref.status} {ref.message}")
    reasons, shown, failed = [], None, []
    for mode in _modes(game):
        att = attempt(student, game, mode)
        how = how_run(mode, game)
        got = roll_values(att.outcome)
        answered = (att.outcome.inputs_asked or 0) - (2 if mode == "script" else 0)
        if got == wanted and att.score.value is not None and answered == game.rounds:
            return
        shown = shown or att
        failed.append(att)
        if timed_out(att):
            reasons.append(lambda hidden, att=att: why_not(att, game, -1, hidden))
            break
        if att.outcome.status not in ("ok", "input_exhausted") and len(got) < len(wanted):
            reasons.append(lambda hidden, att=att: why_not(att, game, -1, hidden))
        elif got != wanted:
            if len(got) != len(wanted):
                text = (f"{how}: your program rolled {len(got)} dice in {game.rounds} turns, not "
                        f"{len(wanted)} ({NUM_DICE} per turn)")
            else:
                turn = next(i for i, (a, b) in enumerate(zip(got, wanted)) if a != b) // NUM_DICE + 1
                text = (f"{how}: from turn {turn} on, your program rolled other dice than the seeded game "
                        f"(does it call random or random.seed itself?)")
            others = random_calls(att.outcome)
            if others:
                text += f"; it also calls {shown_calls(others)}, which the game never does"
            reasons.append(lambda hidden, att=att, text=text: text if att.outcome.status == "ok"
                           else f"{text} ({why_not(att, game, -1, hidden)})")
        elif att.score.value is None:
            reasons.append(lambda hidden, att=att: why_not(att, game, -1, hidden))
        else:
            text = (f"{how}: your program asked for {answered} answers in {game.rounds} turns "
                    f"(every answer fits its roll: one answer per turn)")
            reasons.append(lambda hidden, text=text: text)

    def summary(hidden: bool) -> str:
        first = reasons[0](hidden)
        text = _sentence(first)
        if len(reasons) > 1:
            second = reasons[1](hidden)
            same = second.replace(how_run("script", game), how_run("call", game)) == first
            text += " Run as a script, it did the same." if same else " Also " + _sentence(second)
        return text

    sole = game_sole(reference, game, failed, scored=False) if run_name else None
    raise Fail(summary(False), hidden=summary(True), ran=game.describe(shown.mode),
               hint=hint, output=shown.outcome.stdout, show_values=False, sole=sole, run=run_name)


# ---------------------------------------------------------------------------------------
# Seeded games: the dice come from the seed, the answers are chosen from the dice
# ---------------------------------------------------------------------------------------

_SLOTS = PROTOCOL.categories      # [rules] categories: the slots, in handout order


def _fit(slot: str, dice: list[int]) -> int:
    """What DICE would be worth in SLOT (only to choose answers; expected scores come from
    the reference)."""
    counts = [dice.count(face) for face in range(7)]
    faces = {face for face in dice}
    if slot.startswith("count "):
        face = int(slot[-1])
        return face * counts[face]
    if slot == "three of a kind":
        return sum(dice) if max(counts) >= 3 else 0
    if slot == "four of a kind":
        return sum(dice) if max(counts) >= 4 else 0
    if slot == "full house":
        return 25 if sorted(c for c in counts if c) == [2, 3] else 0
    if slot == "small straight":
        return 30 if any(set(run) <= faces for run in ((1, 2, 3, 4), (2, 3, 4, 5), (3, 4, 5, 6))) else 0
    if slot == "large straight":
        return 40 if faces in ({1, 2, 3, 4, 5}, {2, 3, 4, 5, 6}) else 0
    if slot == "pytzee":
        return 50 if max(counts) == 5 else 0
    return sum(dice)  # chance


def plan_commands(rolls: list[list[int]]) -> list[str]:
    """A greedy player: each roll goes to the open slot it is worth most in (ties: the first
    in handout order), or `skip` when it is worth nothing anywhere.  Every answer fits its
    roll, so programs that refuse non-fitting answers play the same game."""
    open_slots = list(_SLOTS)
    commands = []
    for dice in rolls:
        best, value = None, 0
        for slot in open_slots:
            worth = _fit(slot, dice)
            if worth > value:
                best, value = slot, worth
        if best is None:
            commands.append("skip")
        else:
            commands.append(best)
            open_slots.remove(best)
    return commands


def seeded_rolls(reference, seed: int, rounds: int, mode: str) -> list[list[int]]:
    """The rolls of a seeded game, as the reference rolls them (it skips every turn)."""
    probe = Game("probe", rounds, ["skip"] * rounds, seed=seed, mode=mode)
    outcome = run(reference, probe, "script" if mode == "script" else "call")
    values = roll_values(outcome)
    if len(values) != NUM_DICE * rounds:        # no roll events: replay the seed here
        rng = random.Random(seed)
        values = [rng.randint(1, 6) for _ in range(NUM_DICE * rounds)]
    return [values[i:i + NUM_DICE] for i in range(0, len(values), NUM_DICE)]


def seeded_game(reference, case: dict) -> Game:
    mode = case.get("mode", "either")
    commands = case.get("commands")
    if commands is None:
        commands = plan_commands(seeded_rolls(reference, case["seed"], case["rounds"], mode))
    return Game(case["why"], case["rounds"], list(commands), seed=case["seed"], mode=mode)


def stage_cases(kind: str, stage: int) -> list[dict]:
    return [case for case in SUITE.load("games").get(kind, [])
            if ASSIGNMENT.problem(case["problem"]).stage == stage]
