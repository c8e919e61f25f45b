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

from autograder.engine.feedback import ordinal

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
    return [int(v) for v in re.findall(r"\d+", match.group(1))]


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
    dice_lines, scored, finals, randoms, seeds = [], [], [], [], []
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
                scored.append((int(match.group(1)), category_named(match.group(2)), item.text.strip(), item.gap))
            match = FINAL_LINE.match(item.text)
            if match:
                finals.append(int(match.group(1)))
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
    return Game(outcome, items, rolls, dice_lines, scored, finals, randoms, seeds,
                lines[-1].strip() if lines else "", card)


def card_value(game: Game, name: str) -> int | None | str:
    """The value the final scorecard shows for NAME: an int, "-" or None when there is no line."""
    shown = game.card_lines.get(normalize(name))
    if shown is None or shown == "-":
        return shown
    return int(shown)


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
                current = Round(int(match.group(1)))
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
                current.scored = (int(match.group(1)), category_named(match.group(2)) or match.group(2))
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
                    return Divergence(_where(ref, gap), "an invalid answer's re-prompt rolled dice",
                                      f"rolled {len(got)} dice after an invalid answer",
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


# ---------------------------------------------------------------------------------------------
# Input accounting
# ---------------------------------------------------------------------------------------------

def input_message(outcome, what: str = "this game's script") -> str:
    asked = outcome.inputs_asked or 0
    lines = outcome.stdin_lines or 0
    return f"asked for input a {ordinal(asked)} time; {what} has {lines} lines"


def flat(rows) -> list:
    """A script or a dice list written as rows (one per round or roll) -> one flat list."""
    out = []
    for row in rows or []:
        if isinstance(row, list):
            out.extend(row)
        else:
            out.append(row)
    return out


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
    cache = student.__dict__.setdefault("_yahtzee_games", {})
    key = (case.seed, case.rounds, case.script)
    if key not in cache:
        outcome = student.call("play_game", case.rounds, stdin=script, seed=case.seed)
        ref = read_reference(ref_outcome)
        mine = read_game(outcome)
        cache[key] = Played(case, ref, outcome, mine, first_divergence(ref, mine, complete=outcome.status == "ok"))
    return cache[key]


def _fail(played: Played, public: str, hidden: str, *, hint: str | None = None, expected=None, got=None,
          show_values: bool = False):
    from autograder.engine.feedback import Fail

    case = played.case
    summary = hidden if case.hidden else public
    raise Fail(summary, ran=case.ran, expected=expected, got=got, hint=hint, show_values=show_values,
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


def check_finishes(played: Played) -> None:
    """The game ends normally, without asking for more input than the script holds."""
    from autograder.engine.checks import explain

    outcome, case = played.outcome, played.case
    if played.finished:
        return
    div = played.divergence
    too_many = (len(played.mine.scored) >= case.rounds
                or (div is not None and "after the last round" in div.cause))
    if outcome.status == "input_exhausted":
        if too_many:
            reason, detail = "it plays one round too many", f"it scored {len(played.mine.scored)} rounds and asked on"
            hint = f"play_game({case.rounds}) plays exactly {case.rounds} rounds: check the loop's range."
        elif div is not None:
            reason, detail = f"its dice went wrong first: {div.cause}", f"at {div.where}: {div.detail}"
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
                   else f"The game stopped: {case.call} {outcome.message or outcome.status}.")
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
    gap = mine.scored[index][3]
    low = mine.scored[index - 1][3] if index else -1
    shown = [dice for g, dice in mine.dice_lines if low <= g <= gap]
    return shown[-1] if shown else None


def check_points(played: Played, student, reference, *, bonus: bool = False) -> Points:
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
                own = student.call(func, category, dice)
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
    if bonus:
        want = ref_bonus(ref)
        got = card_value(mine, "Yahtzee Bonus")
        card["Yahtzee Bonus"] = got if isinstance(got, int) else want
        if isinstance(got, int) and got != want:
            if 0 < got < want:
                hint = "The Yahtzee bonus is earned for every further Yahtzee, not only the first."
            elif got > want:
                hint = "No Yahtzee bonus when the Yahtzee box holds 0 (it was scratched)."
            else:
                hint = "A further Yahtzee, with 50 in the Yahtzee box, earns +100 (Joker rule)."
            _fail(played, f"The final scorecard shows Yahtzee Bonus: {got}; expected {want}.",
                  "The Yahtzee bonus at the end of the game is wrong.", hint=hint)
    else:
        card["Yahtzee Bonus"] = ref_bonus(ref)
    return Points(card, notes)


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
        own = student.call("final_score", card)
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
