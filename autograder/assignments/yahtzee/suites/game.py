"""Yahtzee-specific reading of a sandboxed run: the transcript, the rolls, the rounds.

A run's events (["out", text], ["in", prompt, answer], ["roll", die], ["random", name, args],
["seed", args]) become a timeline of items.  Each item knows its *gap*: how many answers of the
script had been read before it.  The script is the same for the student and the reference, so
the gap is what lines the two games up: the dice rolled between answer g and answer g+1 must be
the same in both.  That makes the first difference easy to name ("round 3, roll 2") and to
explain (kept dice re-rolled, an extra roll_dice call, a re-prompt that rolled, ...).

The grader reads only these lines (case-insensitive, lines starting with DEBUG: ignored):
    Dice: 4 6 4 6 2                     after every roll
    Round 3                             at the start of a round (used for the reference only)
    Scored 25 points in Full House.     at the end of a round
    Ones: 5 ... Total: 516              the final scorecard
    Final score: 516                    the last line
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from autograder.assignments.yahtzee.suites.common import (
    BONUS_KEY,
    GAME_TIMEOUT,
    ROUND_TIMEOUT,
    SPARE_DICE,
    describe,
    flat,
    reference_ok,
    scorecard,
)
from autograder.engine.bounds import number
from autograder.engine.feedback import Fail, ordinal
from autograder.engine.suite import returned_value

CATEGORIES = ["Ones", "Twos", "Threes", "Fours", "Fives", "Sixes", "Three of a Kind", "Four of a Kind",
              "Full House", "Small Straight", "Large Straight", "Yahtzee", "Chance"]
UPPER = CATEGORIES[:6]
NUM_DICE = 5

DICE_LINE = re.compile(r"^\s*dice\s*:\s*(.*)$", re.IGNORECASE)
ROUND_LINE = re.compile(r"^\s*round\s+(\d+)\b", re.IGNORECASE)
SCORED_LINE = re.compile(r"scored\s+(-?\d+)\s+points?\s+in\s+(?:the\s+)?(.+?)[\s.!]*$", re.IGNORECASE)
FINAL_LINE = re.compile(r"^\s*final\s+score\s*[:=]?\s*(-?\d+)\s*\.?\s*$", re.IGNORECASE)
CARD_LINE = re.compile(r"^\s*([A-Za-z][A-Za-z _-]*?)\s*[:=]\s*(-|-?\d+)\s*$")


def normalize(text: str) -> str:
    return "".join(ch for ch in str(text).lower() if ch not in " _-\t.")


_BY_NORMAL = {normalize(c): c for c in CATEGORIES}


def category_named(text: str) -> str | None:
    return _BY_NORMAL.get(normalize(text))


def is_debug(line: str) -> bool:
    return line.lstrip().startswith("DEBUG:")


# ---------------------------------------------------------------------------------------------
# The timeline
# ---------------------------------------------------------------------------------------------

@dataclass
class Item:
    kind: str                 # "line" | "roll" | "in" | "random" | "seed"
    gap: int                  # answers read before this item
    text: str = ""            # the line, the prompt, or the random function's name
    value: Any = None         # the die, the answer, or the random call's arguments


def timeline(outcome) -> list[Item]:
    """The run as items; printed text split into lines, DEBUG: lines dropped."""
    items: list[Item] = []
    gap, buf = 0, ""

    def flush(partial: bool) -> None:
        nonlocal buf
        parts = buf.split("\n")
        buf = "" if partial else parts.pop()
        for line in parts:
            line = line.rstrip("\r")
            if not is_debug(line):
                items.append(Item("line", gap, line))

    for event in outcome.events or ():
        kind = event[0]
        if kind == "out":
            buf += str(event[1])
            flush(partial=False)
            continue
        if buf:
            flush(partial=True)
        if kind == "roll":
            items.append(Item("roll", gap, value=event[1]))
        elif kind == "in":
            items.append(Item("in", gap, text=str(event[1]), value=event[2] if len(event) > 2 else None))
            gap += 1
        elif kind == "random":
            items.append(Item("random", gap, text=str(event[1]), value=event[2] if len(event) > 2 else None))
        elif kind == "seed":
            items.append(Item("seed", gap, value=event[1] if len(event) > 1 else None))
    if buf:
        flush(partial=True)
    return items


def dice_in(line: str) -> list[int] | None:
    """The dice a `Dice:` line shows (any separators), or None when the line is not one."""
    match = DICE_LINE.match(line)
    if not match:
        return None
    return [number(v) for v in re.findall(r"\d+", match.group(1))]


@dataclass
class Roll:
    gap: int
    dice: list[int]
    start: int = 0            # index of its first die in the timeline
    round: int = 0            # reference only: the round and the roll number in it
    number: int = 0


@dataclass
class Round:
    number: int
    rolls: list[Roll] = field(default_factory=list)
    dice_lines: list[list[int]] = field(default_factory=list)
    answers: list[int] = field(default_factory=list)      # indexes of the script lines read
    scored: tuple[int, str] | None = None                 # (points, category)
    joker: bool = False

    @property
    def final_dice(self) -> list[int] | None:
        return self.dice_lines[-1] if self.dice_lines else None


@dataclass
class Game:
    """What a run of a game (or of one round) shows."""

    outcome: Any
    items: list[Item]
    rolls: list[Roll]                         # consecutive dice between two answers form one roll
    dice_lines: list[tuple[int, list[int]]]   # (gap, dice)
    scored: list[tuple[int, str | None, str, int]]   # (points, category, line, gap)
    scored_at: list[int]                      # the timeline index of each Scored line
    finals: list[int]
    randoms: list[Item]
    seeds: list[Item]
    last_line: str
    card_lines: dict[str, str]                # the final scorecard: name -> shown value

    @property
    def dice_by_gap(self) -> dict[int, list[int]]:
        out: dict[int, list[int]] = {}
        for roll in self.rolls:
            out.setdefault(roll.gap, []).extend(roll.dice)
        return out


def read_game(outcome) -> Game:
    items = timeline(outcome)
    rolls: list[Roll] = []
    dice_lines, scored, finals, randoms, seeds, scored_at = [], [], [], [], [], []
    last_kind = None
    for index, item in enumerate(items):
        if item.kind == "roll":
            if last_kind == "roll" and rolls and rolls[-1].gap == item.gap:
                rolls[-1].dice.append(item.value)
            else:
                rolls.append(Roll(item.gap, [item.value], index))
        elif item.kind == "line":
            dice = dice_in(item.text)
            if dice is not None:
                dice_lines.append((item.gap, dice))
            match = SCORED_LINE.search(item.text)
            if match:
                scored.append((number(match.group(1)), category_named(match.group(2)), item.text.strip(), item.gap))
                scored_at.append(index)
            match = FINAL_LINE.match(item.text)
            if match:
                finals.append(number(match.group(1)))
        elif item.kind == "random":
            randoms.append(item)
        elif item.kind == "seed":
            seeds.append(item)
        if item.kind != "line" or item.text.strip():
            last_kind = item.kind
    lines = [i.text for i in items if i.kind == "line" and i.text.strip()]
    # the final scorecard: Category: value lines after the last Scored line
    after = 0
    for index, item in enumerate(items):
        if item.kind == "line" and SCORED_LINE.search(item.text):
            after = index + 1
    card: dict[str, str] = {}
    for item in items[after:]:
        if item.kind != "line":
            continue
        match = CARD_LINE.match(item.text)
        if match:
            card[normalize(match.group(1))] = match.group(2)
    return Game(outcome, items, rolls, dice_lines, scored, scored_at, finals, randoms, seeds,
                lines[-1].strip() if lines else "", card)


def card_value(game: Game, name: str) -> int | None | str:
    """The value the final scorecard shows for NAME: an int, "-" or None when there is no line."""
    shown = game.card_lines.get(normalize(name))
    if shown is None or shown == "-":
        return shown
    return number(shown)


# ---------------------------------------------------------------------------------------------
# The reference's rounds
# ---------------------------------------------------------------------------------------------

@dataclass
class RefGame:
    """The reference run, split into rounds (it prints "Round N" and "Scored ..." exactly)."""

    game: Game
    rounds: list[Round]
    answer_kind: list[str]            # per script line: "keep" | "category"
    rejected: list[bool]              # per script line: the reference asked the same question again
    keep_all: list[bool]              # per script line: a keep answer that kept all five dice
    round_at_gap: dict[int, int]
    total: int | None


def read_reference(outcome) -> RefGame:
    game = read_game(outcome)
    rounds: list[Round] = []
    current: Round | None = None
    answer_kind: list[str] = []
    round_at_gap: dict[int, int] = {}
    starts = {roll.start: roll for roll in game.rolls}
    for index, item in enumerate(game.items):
        if item.kind == "line":
            match = ROUND_LINE.match(item.text)
            if match and not SCORED_LINE.search(item.text):
                current = Round(number(match.group(1)))
                rounds.append(current)
                continue
            if not item.text.strip():
                continue
            if current is None:
                current = Round(1)
                rounds.append(current)
            dice = dice_in(item.text)
            if dice is not None:
                current.dice_lines.append(dice)
            match = SCORED_LINE.search(item.text)
            if match:
                current.scored = (number(match.group(1)), category_named(match.group(2)) or match.group(2))
            if item.text.startswith("Joker rule"):
                current.joker = True
        elif item.kind == "roll":
            if current is None:
                current = Round(1)
                rounds.append(current)
            roll = starts.get(index)
            if roll is not None:
                roll.round = current.number
                roll.number = len(current.rolls) + 1
                current.rolls.append(roll)
        elif item.kind == "in":
            if current is None:
                current = Round(1)
                rounds.append(current)
            current.answers.append(item.gap)
            round_at_gap.setdefault(item.gap, current.number)
            answer_kind.append("category" if "categor" in item.text.lower() or "score" in item.text.lower()
                               else "keep")
    # was answer g refused?  the next question is of the same kind, with no roll in between
    rejected, keep_all = [], []
    asks = [i for i in game.items if i.kind == "in"]
    for index in range(len(asks)):
        nxt = asks[index + 1] if index + 1 < len(asks) else None
        rolled_between = any(r.gap == index + 1 for r in game.rolls)
        same_again = (nxt is not None and answer_kind[index + 1] == answer_kind[index] and not rolled_between
                      and _same_round(rounds, index))
        rejected.append(same_again)
        keep_all.append(answer_kind[index] == "keep" and not same_again and not rolled_between)
    total = outcome.value if isinstance(outcome.value, int) else (game.finals[-1] if game.finals else None)
    return RefGame(game, rounds, answer_kind, rejected, keep_all, round_at_gap, total)


def _same_round(rounds: list[Round], answer: int) -> bool:
    for rnd in rounds:
        if answer in rnd.answers:
            return answer + 1 in rnd.answers
    return False


# ---------------------------------------------------------------------------------------------
# The first roll that differs
# ---------------------------------------------------------------------------------------------

@dataclass
class Divergence:
    where: str               # "round 3, roll 2"
    cause: str               # data-free: "kept dice were re-rolled"
    detail: str              # with the numbers: "rolled 5 dice where 3 were expected"
    hint: str = ""


def _where(ref: RefGame, gap: int, rolls_before: int = 0) -> str:
    for roll in ref.game.rolls:
        if roll.gap == gap:
            return f"round {roll.round}, roll {roll.number}"
    rnd_number = ref.round_at_gap.get(gap)
    if rnd_number is None:
        # after the reference's last answer: the game should be over
        last = ref.rounds[-1].number if ref.rounds else 0
        if gap >= len(ref.answer_kind):
            return f"after the last round (round {last + 1}?)"
        rnd_number = last
    rnd = next((r for r in ref.rounds if r.number == rnd_number), None)
    before = sum(1 for r in rnd.rolls if r.gap < gap) if rnd else 0
    return f"round {rnd_number}, roll {before + 1 + rolls_before}"


def _random_cause(game: Game) -> tuple[str, str] | None:
    if game.seeds:
        return ("random.seed was called (the grader seeds the game; your program must not)",
                "Remove the call to random.seed: the grader seeds the game itself.")
    if game.randoms:
        name = game.randoms[0].text
        return (f"random.{name} was called outside roll_dice",
                "Every die must come from roll_dice, and nothing else may call random (RNG contract rule 3).")
    return None


def first_divergence(ref: RefGame, student: Game, complete: bool = True) -> Divergence | None:
    """The first roll (or Dice: line) where STUDENT differs from the reference, with a likely cause.

    COMPLETE: the student's run ended normally.  When it stopped early (a crash, the script ran
    out), only what it did before stopping is compared."""
    ref_by_gap, stu_by_gap = ref.game.dice_by_gap, student.dice_by_gap
    last_gap = max((item.gap for item in student.items), default=0)
    for gap in sorted(set(ref_by_gap) | set(stu_by_gap)):
        want, got = ref_by_gap.get(gap, []), stu_by_gap.get(gap, [])
        if not complete:
            if gap > last_gap:
                break
            if gap == last_gap and len(got) <= len(want) and want[:len(got)] == got:
                continue
        if want == got:
            continue
        if len(got) == len(want):
            random_cause = _random_cause(student)
            if random_cause:
                cause, hint = random_cause
                return Divergence(_where(ref, gap), cause, f"rolled {got} where {want} were expected", hint)
            return Divergence(_where(ref, gap), "the dice differ from the seeded random numbers",
                              f"rolled {got} where {want} were expected",
                              "Every die must come from roll_dice, which calls random.randint(1, 6) once per die.")
        if len(got) > len(want):
            random_cause = _random_cause(student)
            extra = len(got) - len(want)
            if want and len(got) == NUM_DICE and len(want) < NUM_DICE:
                return Divergence(_where(ref, gap), "kept dice were re-rolled",
                                  f"rolled {len(got)} dice where {len(want)} were expected",
                                  "reroll must roll only the dice that are not kept: roll_dice(number of unkept dice).")
            if not want:
                answer = gap - 1
                if answer >= len(ref.answer_kind):
                    return Divergence(_where(ref, gap), "dice were rolled after the last round (one round too many?)",
                                      f"rolled {len(got)} dice after the game should have ended",
                                      "play_game(n) plays exactly n rounds.")
                if answer >= 0 and ref.rejected[answer]:
                    if ref.answer_kind[answer] == "category" and any(s[3] == gap for s in student.scored):
                        return Divergence(_where(ref, gap), "a category answer that must be refused was accepted",
                                          f"script line {answer + 1} was scored; the reference refuses it and "
                                          "asks again",
                                          "Refuse a box that is filled, or that the Joker rule does not allow, "
                                          "and ask again.")
                    return Divergence(_where(ref, gap), "dice were rolled after an invalid answer "
                                      "(a re-prompt must not roll dice)",
                                      f"rolled {len(got)} dice after script line {answer + 1}, which is invalid",
                                      "A re-prompt must not roll dice: ask the same question again, roll nothing.")
                if answer >= 0 and ref.keep_all[answer]:
                    return Divergence(_where(ref, gap), "dice were rolled after the player kept all five",
                                      f"rolled {len(got)} dice after a keep-all answer",
                                      "Keeping all five dice ends the rolling for this round.")
            if random_cause and len(got) < len(want) + NUM_DICE and not want:
                cause, hint = random_cause
                return Divergence(_where(ref, gap), cause, f"rolled {len(got)} dice where {len(want)} were expected",
                                  hint)
            return Divergence(_where(ref, gap), "an extra roll_dice call",
                              f"rolled {len(got)} dice where {len(want)} were expected ({extra} too many)",
                              "Call roll_dice() once at the start of a round and reroll once per re-roll, "
                              "nothing more.")
        # fewer dice than expected
        if not got:
            return Divergence(_where(ref, gap), "a missing roll_dice call",
                              f"rolled no dice where {len(want)} were expected",
                              "After each keep answer that does not keep all five, re-roll the other dice.")
        return Divergence(_where(ref, gap), "too few dice were rolled",
                          f"rolled {len(got)} dice where {len(want)} were expected",
                          "reroll rolls every die that is not kept: roll_dice(number of unkept dice).")
    # the rolls agree: compare what the Dice: lines show
    ref_lines, stu_lines = ref.game.dice_lines, student.dice_lines
    ref_rolls = ref.game.rolls
    for index, (gap, want) in enumerate(ref_lines):
        where = (f"round {ref_rolls[index].round}, roll {ref_rolls[index].number}" if index < len(ref_rolls)
                 else _where(ref, gap))
        if index >= len(stu_lines):
            if not complete:
                return None
            return Divergence(where, "a Dice: line is missing after a roll",
                              "no `Dice: ...` line after this roll",
                              "Print the Dice: line (format_dice) after every roll, the first roll and each re-roll.")
        got = stu_lines[index][1]
        if got != want:
            if sorted(got) == sorted(want):
                return Divergence(where, "re-rolled values were placed in the wrong positions",
                                  f"the Dice: line shows {got} where {want} were expected "
                                  "(same values, different order)",
                                  "The first new value goes to the leftmost re-rolled position (RNG contract rule 2).")
            return Divergence(where, "the Dice: line does not show the dice rolled",
                              f"the Dice: line shows {got} where {want} were expected",
                              "Show the five dice in position order: `Dice: 4 6 4 6 2`.")
    return None


def first_question_difference(ref: RefGame, student: Game) -> tuple[int, str] | None:
    """(script line index, cause) where the student asked the other kind of question than the
    reference (which dice to keep / which category), judged by the student's own prompts: only
    when it uses different prompts for the two questions, and before anything else went wrong."""
    kind_of: dict[str, str] = {}
    shown_since_scored = 0          # Dice: lines since the last Scored line (rolls this round)
    index = -1
    for item in student.items:
        if item.kind == "line":
            if SCORED_LINE.search(item.text):
                shown_since_scored = 0
            elif dice_in(item.text) is not None:
                shown_since_scored += 1
            continue
        if item.kind != "in":
            continue
        index += 1
        if index >= len(ref.answer_kind):
            break
        want, prompt = ref.answer_kind[index], item.text.strip()
        if not prompt:
            continue
        known = kind_of.setdefault(prompt, want)
        if known == want:
            continue
        third_roll = known == "keep" and shown_since_scored >= 3
        if set(kind_of.values()) != {"keep", "category"} and not third_roll:
            return None             # one prompt for both questions: nothing to tell them apart by
        if known == "keep":
            return index, ("it asked which dice to keep where the reference asks for the category "
                           "(a keep question too many: at most two re-rolls per round)")
        return index, ("it asked for the category where the reference asks which dice to keep "
                       "(a re-roll too few?)")
    return None


# ---------------------------------------------------------------------------------------------
# Input accounting
# ---------------------------------------------------------------------------------------------

def input_message(outcome, what: str = "this game's script") -> str:
    asked = outcome.inputs_asked or 0
    lines = outcome.stdin_lines or 0
    return f"asked for input a {ordinal(asked)} time; {what} has {lines} lines"


# ---------------------------------------------------------------------------------------------
# Seeded games: running them once per student, and the checks the suites share
# ---------------------------------------------------------------------------------------------

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
class Played:
    case: GameCase
    ref: RefGame
    outcome: Any
    mine: Game
    divergence: Divergence | None

    @property
    def finished(self) -> bool:
        return self.outcome.status == "ok"


def play(student, reference, case: GameCase) -> Played:
    """Run CASE on both programs (each once per grading: cached on the Program objects)."""
    from autograder.engine.checks import GraderFault

    script = list(case.script)
    ref_outcome = reference.call("play_game", case.rounds, stdin=script, seed=case.seed)
    if ref_outcome.status != "ok":
        raise GraderFault(f"the reference failed on game {case.name}: {ref_outcome.status} {ref_outcome.message}")

    def played() -> Played:
        outcome = student.call_or_skip("play_game", case.rounds, stdin=script, seed=case.seed, timeout=GAME_TIMEOUT)
        ref = read_reference(ref_outcome)
        mine = read_game(outcome)
        complete = outcome.status == "ok" and (outcome.inputs_asked or 0) >= len(script)
        return Played(case, ref, outcome, mine, first_divergence(ref, mine, complete=complete))

    return student.memo(("game", case.seed, case.rounds, case.script, repr(student.substitute)), played)


def _fail(played: Played, public: str, hidden: str, *, hint: str | None = None, expected=None, got=None,
          show_values: bool = False):
    case = played.case
    raise Fail(public, hidden=hidden, ran=case.ran, expected=expected, got=got, hint=hint, show_values=show_values,
               output=played.outcome.stdout)


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


def _divergence_gap(played: Played) -> int:
    """The script line index before which the first differing roll happened (a large number if none)."""
    ref_by_gap, stu_by_gap = played.ref.game.dice_by_gap, played.mine.dice_by_gap
    for gap in sorted(set(ref_by_gap) | set(stu_by_gap)):
        if ref_by_gap.get(gap, []) != stu_by_gap.get(gap, []):
            return gap
    return 1 << 30


def check_finishes(played: Played) -> None:
    """The game ends normally, without asking for more input than the script holds."""
    from autograder.engine.checks import explain

    outcome, case = played.outcome, played.case
    if played.finished and not outcome.inputs_asked and not played.mine.rolls:
        # returning without playing must not pass the checks that compare what was played
        _fail(played, f"{case.call} returned {outcome.value!r} without playing: it asked for no input "
                      "and rolled no dice.",
              "The game returned without playing: it asked for no input and rolled no dice.",
              hint="play_game(n) plays n rounds: roll, ask which dice to keep, ask for a category.")
    if played.finished:
        return
    div = played.divergence
    question = first_question_difference(played.ref, played.mine)
    too_many = (len(played.mine.scored) >= case.rounds
                or (div is not None and "after the last round" in div.cause))
    if outcome.status == "input_exhausted":
        if too_many:
            reason, detail = "it plays one round too many", f"it scored {len(played.mine.scored)} rounds and asked on"
            hint = f"play_game({case.rounds}) plays exactly {case.rounds} rounds: check the loop's range."
        elif question is not None and (div is None or question[0] < _divergence_gap(played)):
            reason, detail = question[1], f"script line {question[0] + 1} ({case.script[question[0]]!r})"
            hint = "A round asks at most two keep questions, then the category."
        elif div is not None:
            reason, detail = f"the first difference from the reference: {div.cause}", f"at {div.where}: {div.detail}"
            hint = div.hint
        else:
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
        _fail(played, public, hidden, hint=hint)
    if outcome.status == "timeout":
        _fail(played, f"The game did not finish: {outcome.message} (an endless loop?).",
              "The game did not finish in time (an endless loop?).")
    text = explain(outcome, case.call)
    error = outcome.error or {}
    hidden_text = (f"{case.call} is not written yet." if error.get("type") == "NotImplementedError"
                   else f"The game stopped: {case.call} {outcome.hidden_message or outcome.status}.")
    hint = div.hint if div is not None else None
    _fail(played, f"The game did not finish: {text}", hidden_text, hint=hint)


def check_dice(played: Played) -> None:
    """Every roll matches the reference's on the same seed and script, and so does every Dice: line."""
    div = played.divergence
    if div is None:
        return
    _fail(played, f"The dice stopped following the RNG contract at {div.where}: {div.cause} ({div.detail}).",
          f"The dice stopped following the RNG contract: {div.cause}.", hint=div.hint)


def check_rounds(played: Played) -> None:
    """As many rounds as asked: one Scored line each, every script line read."""
    case, mine, outcome = played.case, played.mine, played.outcome
    scored = len(mine.scored)
    if scored == 0:
        _fail(played, "No `Scored N points in CATEGORY.` line in the game's output.",
              "No `Scored N points in CATEGORY.` line in the game's output.",
              hint="Print `Scored N points in CATEGORY.` at the end of every round (the grader counts them).")
    if scored > case.rounds:
        _fail(played, f"play_game({case.rounds}) played {scored} rounds: one round too many.",
              "The game played one round too many.", hint="play_game(n) plays exactly n rounds.")
    if scored < case.rounds or (outcome.inputs_asked or 0) < (outcome.stdin_lines or 0):
        _fail(played, f"play_game({case.rounds}) played {scored} rounds (read {outcome.inputs_asked} of the "
                      f"{outcome.stdin_lines} script lines): one round too few.",
              "The game played one round too few (it left script lines unread).",
              hint="play_game(n) plays exactly n rounds: check the loop's range.")


@dataclass
class Points:
    card: dict                     # the expected final scorecard (categories + Yahtzee Bonus)
    notes: list[str]


def _round_dice(mine: Game, index: int) -> list[int] | None:
    """The dice the student's game showed last before its INDEX-th Scored line."""
    if index >= len(mine.scored):
        return None
    start = mine.scored_at[index - 1] if index else -1
    shown = None
    for item in mine.items[start + 1:mine.scored_at[index]]:
        if item.kind == "line":
            dice = dice_in(item.text)
            if dice is not None:
                shown = dice
    return shown


def check_points(played: Played, student, reference) -> Points:
    """Each round records the reference's category and points.  A bug costs points once: a round
    whose points match the student's OWN score (or joker_score) on those dice is accepted."""
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
        if category is None:
            _fail(played, f"Round {number}: the line {line!r} names no category.",
                  "A `Scored N points in CATEGORY.` line names no category.",
                  hint="Use the official names, e.g. `Scored 25 points in Full House.`")
        if category != want_category and category in card:
            _fail(played, f"Round {number}: the game scored in {category} again, but that box was already filled "
                          f"(the script chose {want_category}).",
                  "The game accepted a box that was already filled.",
                  hint="A box that is already filled cannot be used again: print a message and ask again.")
        if category != want_category:
            _fail(played, f"Round {number}: the game scored in {category}, but the script chose {want_category}.",
                  "A round was scored in another category than the script chose.",
                  hint="Check that refused answers (filled boxes, boxes the Joker rule forbids) are asked again.")
        if points != want_points:
            dice = _round_dice(mine, index)
            func = "joker_score" if ref_round.joker else "score"
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
                if ref_round.joker:
                    hint = ("A Joker scores Full House 25, Small Straight 30 and Large Straight 40 "
                            "(full value), and the matching upper box when it is open.")
                _fail(played, f"Round {number}: the game recorded {points} points in {category}; "
                              f"expected {want_points}.",
                      "A round recorded the wrong points.", hint=hint)
        card[category] = points
    card["Yahtzee Bonus"] = ref_bonus(ref)
    return Points(card, notes)


def check_bonus(played: Played) -> None:
    """The Yahtzee bonus the final scorecard shows is the reference's (when the card shows one)."""
    want = ref_bonus(played.ref)
    got = card_value(played.mine, "Yahtzee Bonus")
    if not isinstance(got, int) or got == want:
        return
    if 0 < got < want:
        hint = "The Yahtzee bonus is earned for every further Yahtzee, not only the first."
    elif got > want:
        hint = "No Yahtzee bonus when the Yahtzee box holds 0 (it was scratched)."
    else:
        hint = "A further Yahtzee, with 50 in the Yahtzee box, earns +100 (Joker rule)."
    _fail(played, f"The final scorecard shows Yahtzee Bonus: {got}; expected {want}.",
          "The Yahtzee bonus at the end of the game is wrong.", hint=hint)


def recorded_card(played: Played) -> Points:
    """The scorecard the student's game says it recorded (its Scored lines and its Yahtzee bonus)."""
    card: dict = {}
    for points, category, _, _ in played.mine.scored:
        if category is not None:
            card[category] = points
    shown = card_value(played.mine, "Yahtzee Bonus")
    card["Yahtzee Bonus"] = shown if isinstance(shown, int) else ref_bonus(played.ref)
    return Points(card, [])


def ref_bonus(ref: RefGame) -> int:
    shown = card_value(ref.game, "Yahtzee Bonus")
    return shown if isinstance(shown, int) else 0


def check_final(played: Played, student, reference, points: Points, *, returned: bool, scorecard: bool) -> None:
    """`Final score: N` is printed (last), N is the expected total; play_game returns it; the final
    scorecard shows each round's points.  A wrong final_score costs points once (in its own checks)."""
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
        _fail(played, "No `Final score: N` line at the end of the game.",
              "No `Final score: N` line at the end of the game.",
              hint="The very last line of the game is `Final score: N`.")
    shown = mine.finals[-1]
    if shown != expected:
        own = student.call_or_skip("final_score", card)
        if own.status != "ok":
            pytest.skip("can't check the game's final score until final_score works")
        if own.value != shown:
            _fail(played, f"The game printed `Final score: {shown}`; expected {expected}.",
                  "The final score printed at the end of the game is wrong.", expected=expected, got=shown)
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
            value = card_value(mine, category)
            if value is None:
                _fail(played, f"The final scorecard has no `{category}: N` line.",
                      "The final scorecard lacks a `Category: points` line.",
                      hint="Print format_scorecard(scorecard) at the end of the game, before the final score.")
            if value != card[category]:
                _fail(played, f"The final scorecard shows `{category}: {value}`; the game recorded "
                              f"{card[category]} points there.",
                      "The final scorecard does not show the points the game recorded.")


# ---------------------------------------------------------------------------------------------
# One round with injected dice (stages 2 and 4), the scorecard text (stages 3 and 4)
# ---------------------------------------------------------------------------------------------

def own_points(student, func: str, category: str, dice: list[int]):
    """What the student's own FUNC (score / joker_score) gives: (value, None) or (None, why not)."""
    from autograder.engine.checks import explain

    outcome = student.call_or_skip(func, category, dice)
    if outcome.status != "ok":
        return None, explain(outcome, f"{func}(...)")
    return outcome.value, None


def check_round(student, reference, case: dict) -> None:
    """Play one round with injected dice and a script; compare rolls, result, scorecard, output.

    A bug costs points once: points that differ from the reference's but equal what the
    student's own score (joker_score for a Joker) gives on the round's dice are accepted."""
    import pytest

    card = scorecard(case.get("filled"), case.get("bonus", 0))
    stdin = list(case["stdin"])
    rolls = [list(r) for r in case["rolls"]]
    injected = flat(rolls) + SPARE_DICE
    ran = f"{describe('play_round', [card])}; the answers {stdin}; the dice rolled {rolls}"
    ref_outcome = reference_ok(reference.call("play_round", card, stdin=stdin, dice=injected), ran)
    outcome = student.call_or_skip("play_round", card, stdin=stdin, dice=injected, timeout=ROUND_TIMEOUT)
    why = case["why"]
    ref = read_reference(ref_outcome)
    mine = read_game(outcome)
    complete = outcome.status == "ok"
    divergence = first_divergence(ref, mine, complete=complete)

    def fail(public: str, secret: str, hint: str | None = None, **values):
        raise Fail(f"play_round ({why}): {public}.", hidden=f"play_round: {secret} ({why}).", ran=ran, hint=hint,
                   output=outcome.stdout, show_values=bool(values), **values)

    if outcome.status not in ("ok", "input_exhausted"):
        returned_value(outcome, ran, short="play_round(...)",
                      hint=divergence.hint if divergence else None)
    if divergence is not None and divergence.cause != "a Dice: line is missing after a roll":
        where = divergence.where.split(", ")[-1]
        fail(f"at {where}, {divergence.cause}: {divergence.detail}", divergence.cause,
             hint=divergence.hint or case.get("hint"))
    if outcome.status == "input_exhausted":
        question = first_question_difference(ref, mine)
        cause = f"; likely cause: {question[1]}" if question else ""
        fail(f"it {outcome.message}{cause}", f"it asked for more input than the answers given{cause}",
             hint=case.get("hint") or "Does it refuse a valid answer, or ask a keep question too many?")
    got = outcome.value
    want = list(ref_outcome.value)
    want_after = dict((ref_outcome.args_after or [None])[0] or {})
    if (isinstance(got, list) and len(got) == 2 and got[0] == want[0] and got[1] != want[1]
            and ref.rounds and ref.rounds[-1].final_dice):
        func = "joker_score" if ref.rounds[-1].joker else "score"
        value, problem = own_points(student, func, want[0], ref.rounds[-1].final_dice)
        if problem:
            pytest.skip(f"can't check play_round's points until {func} works: {problem}")
        if value == got[1]:                  # the bug already cost points in the checks of FUNC
            want[1] = got[1]
            want_after[want[0]] = got[1]
    if got != want:
        hint = case.get("hint")
        if isinstance(got, list) and got and isinstance(got[0], str) and card.get(got[0]) is not None:
            fail(f"returned {got!r}: it accepted {got[0]}, which was already filled; expected {tuple(want)!r}",
                 "it accepted a box that was already filled",
                 hint="A box that is already filled cannot be used again: print a message and ask again.")
        fail(f"returned {got!r}; expected {tuple(want)!r}", "it returned the wrong (category, points)",
             hint=hint, expected=tuple(want), got=got)
    if outcome.inputs_asked != ref_outcome.inputs_asked:
        fail(f"read {outcome.inputs_asked} answers; expected {ref_outcome.inputs_asked}",
             "it did not read every answer", hint=case.get("hint"))
    after = (outcome.args_after or [None])[0]
    if after != want_after:
        hint = "Write the points into the scorecard passed in (scorecard[category] = points)."
        if isinstance(after, dict) and after.get("Yahtzee Bonus") != want_after.get("Yahtzee Bonus"):
            hint = case.get("hint") or "A further Yahtzee with 50 in the Yahtzee box adds 100 to " \
                                        "scorecard[\"Yahtzee Bonus\"]."
        if isinstance(after, dict):
            wrong = [k for k in want_after if after.get(k) != want_after[k]] + [k for k in after if k not in want_after]
            shown = "; ".join(f"scorecard[{k!r}] is {after.get(k)!r}, expected {want_after.get(k)!r}"
                              for k in wrong[:3])
        else:
            shown = f"the scorecard became {after!r}"
        fail(f"after the round, {shown}", "the scorecard after the round is wrong", hint=hint)
    if divergence is not None:
        fail(f"at {divergence.where.split(', ')[-1]}, {divergence.cause}: {divergence.detail}", divergence.cause,
             hint=divergence.hint)
    if not any(points == want[1] and category == want[0] for points, category, _, _ in mine.scored):
        fail(f"expected the line `Scored {want[1]} points in {want[0]}.`",
             "no `Scored N points in CATEGORY.` line for the round",
             hint="Print `Scored N points in CATEGORY.` at the end of the round.")


def card_lines(text: str) -> list[tuple[str, str]]:
    """(name, shown value) for each `Name: value` line of TEXT."""
    out = []
    for line in text.split("\n"):
        match = CARD_LINE.match(line)
        if match:
            out.append((match.group(1).strip(), match.group(2)))
    return out


def _own(student, func: str, *args):
    """The student's own FUNC(*ARGS) value, or None when it does not return."""
    outcome = student.call_or_skip(func, *args)
    return outcome.value if outcome.status == "ok" else None


def check_scorecard_text(student, reference, case: dict, *, bonus_lines: bool) -> None:
    """format_scorecard: a `Category: points` line per box in order ("-" when open), `Total: N` last.
    BONUS_LINES (stage 4): the `Upper Bonus` line right after Sixes, `Yahtzee Bonus` after Chance;
    then the box lines themselves are stage 3's business and not checked again.  A wrong
    final_score or upper_bonus costs points once: their own values are accepted in the text."""
    card = scorecard(case.get("filled"), case.get("bonus", 0))
    ran = describe("format_scorecard", [card])
    reference_ok(reference.call("format_scorecard", card), ran)
    total = reference_ok(reference.call("final_score", card), ran).value
    outcome = student.call_or_skip("format_scorecard", card)
    got = returned_value(outcome, ran, short="format_scorecard(...)")

    def fail(public: str, secret: str, hint: str | None = None):
        raise Fail(public, hidden=secret, ran=ran, got=got, show_values=False, hint=hint,
                   output=got if isinstance(got, str) else None)

    if not isinstance(got, str):
        fail(f"format_scorecard returned {got!r}; it must return the text (a str).",
             "format_scorecard must return the text (a str).",
             hint="Return the lines joined with newlines; don't print them." if got is None else None)
    lines = card_lines(got)
    shown = [(category_named(name), value) for name, value in lines if category_named(name)]
    names = [name for name, _ in shown]
    if names != CATEGORIES:
        missing = [c for c in CATEGORIES if c not in names]
        fail("format_scorecard: expected one `Category: points` line per box, in scorecard order"
             + (f"; no line for {missing[0]}." if missing else f"; got the order {names}."),
             "format_scorecard: one `Category: points` line per box, in scorecard order, is expected.",
             hint="Write the boxes in CATEGORIES order: Ones ... Sixes, then Three of a Kind ... Chance.")
    if not bonus_lines:
        for category, value in shown:
            want = "-" if card[category] is None else str(card[category])
            if value != want:
                hint = ('An open box shows "-" (not 0 or None).' if card[category] is None else None)
                fail(f"format_scorecard: the line for {category} shows {value!r}; expected {want!r}.",
                     "format_scorecard: a box shows the wrong value"
                     + (" (an open box)." if card[category] is None else "."), hint=hint)
    text_lines = [line for line in got.split("\n") if line.strip()]
    last = CARD_LINE.match(text_lines[-1]) if text_lines else None
    if not last or normalize(last.group(1)) != "total":
        fail(f"format_scorecard: the last line should be `Total: {total}`.",
             "format_scorecard: the last line should be `Total: N` with the final score.",
             hint="End the scorecard with a `Total: N` line (N = final_score(scorecard)).")
    if last.group(2) != str(total) and last.group(2) != str(_own(student, "final_score", card)):
        fail(f"format_scorecard: `Total: {last.group(2)}`; expected {total}.",
             "format_scorecard: the Total line shows the wrong total.",
             hint="The Total line shows final_score(scorecard).")
    if bonus_lines:
        order = [normalize(name) for name, _ in lines]
        values = {normalize(name): value for name, value in lines}
        upper = reference_ok(reference.call("upper_bonus", card), ran).value
        own_upper = _own(student, "upper_bonus", card)
        for key, want, after in (("upperbonus", upper, "sixes"), ("yahtzeebonus", card[BONUS_KEY], "chance")):
            label = "Upper Bonus" if key == "upperbonus" else "Yahtzee Bonus"
            if key not in values:
                fail(f"format_scorecard: no `{label}: N` line.", f"format_scorecard: no `{label}: N` line.",
                     hint="Stage 4: add `Upper Bonus: N` right after Sixes and `Yahtzee Bonus: N` right after "
                          "Chance.")
            accepted = {str(want)} | ({str(own_upper)} if key == "upperbonus" and own_upper is not None else set())
            if values[key] not in accepted:
                hint = "The upper bonus needs 63 or more (63 counts)." if key == "upperbonus" else None
                fail(f"format_scorecard: `{label}: {values[key]}`; expected {want}.",
                     f"format_scorecard: the {label} line shows the wrong value.", hint=hint)
            if order.index(key) != order.index(after) + 1:
                fail(f"format_scorecard: the `{label}` line belongs right after {after.title()}.",
                     f"format_scorecard: the `{label}` line is out of place.")
