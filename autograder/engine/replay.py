"""Replaying scripted dice games: the transcript, the RNG contract, the first divergence.

A sandboxed run's events (["out", text], ["in", prompt, answer], ["roll", die], ["random", name,
args], ["seed", args]) become a timeline of items.  Each item knows its *gap*: how many answers
of the script had been read before it.  The script is the same for the student and the
reference, so the gap lines the two games up: the dice rolled between answer g and answer g+1
must be the same in both.  That names the first difference ("round 3, roll 2") and explains it
(kept dice re-rolled, an extra roll, a re-prompt that rolled, ...).

What the grader reads of the printed text is the assignment's data, assignment.toml:

    [rules]
    categories = ["Ones", ..., "Chance"]        # the boxes, in scorecard order
    [protocol]                                  # regexes, case-insensitive (but card, marks)
    dice = '^\\s*dice\\s*:\\s*(.*)$'             # group 1: the dice shown after every roll
    round = '^\\s*round\\s+(\\d+)\\b'             # group 1: the round number (the reference's rounds)
    scored = 'scored\\s+(-?\\d+)\\s+points?\\s+in\\s+(.+?)[\\s.!]*$'   # groups: points, category
    final = '^\\s*final\\s+score\\s*:\\s*(-?\\d+)'  # group 1 (or (?P<score>...)): the final score
    card = '^\\s*([A-Za-z][A-Za-z _-]*?)\\s*[:=]\\s*(-|-?\\d+)\\s*$'  # a scorecard line: name, value
    category_prompt = 'categor|score'           # an input prompt asking for a category (else: keep)
    spare_dice = [1, 2, 4, 5, 6, 3]             # after the scenario's dice (see with_spare_dice)
    players = 1                                 # or 2, ...; with more than one:
    turn = '^(?P<player>\\w+)\\W+s turn'        # a line that announces whose turn it is
    marks = { bonus = '^Bonus!' }               # a round with a line matching (case-sensitive) is marked

Groups are numbered as above or named: dice; points and category (scored); score (final);
round or number; player or name (turn); category/name/slot and score/points/value (card).

Several players: every item carries the player whose turn was last announced (`turn`; with
named players the name, else its order of first appearance); Scored lines and final scores
are kept per player (a `final` regex may name the player with (?P<player>...) and the score with (?P<score>...)).

Every regex is optional (an assignment whose games print free-form text gives none and reads
the final score with read_final_score).  `dice_label` names the dice line in feedback ("Dice:").

The RNG contract: dice come from the injected list in order; `with_spare_dice` appends the
protocol's spare dice, so a program that rolls once too often still finishes and only the
dice check (engine/divergence.py first_divergence, roll_values) says so.
"""

from __future__ import annotations

import dataclasses
import functools
import marshal
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .bounds import number
from .grammar import Bounded, bounded

_TEXTS = {      # the divergence causes and hints; [protocol.texts] in assignment.toml may override any
    "seed_called": ("random.seed was called (the grader seeds the game; your program must not)",
                    "Remove the call to random.seed: the grader seeds the game itself."),
    "random_called": ("random.{name} was called besides the dice",
                      "Every die must come from the dice-rolling function, and nothing else may call random."),
    "dice_differ": ("the dice differ from the seeded random numbers",
                    "Every die must come from random.randint(1, 6), one call per die."),
    "kept_rerolled": ("kept dice were re-rolled", "Roll only the dice that are not kept."),
    "after_last_round": ("dice were rolled after the last round (one round too many?)",
                         "Play exactly the rounds asked for."),
    "refused_accepted": ("a category answer that must be refused was accepted",
                         "Refuse a category that cannot be used, and ask again."),
    "reprompt_rolled": ("dice were rolled after an invalid answer (a re-prompt must not roll dice)",
                        "A re-prompt must not roll dice: ask the same question again, roll nothing."),
    "keep_all_rolled": ("dice were rolled after the player kept them all",
                        "Keeping all the dice ends the rolling for this round."),
    "extra_roll": ("an extra roll", "Roll once at the start of a turn and once per re-roll, nothing more."),
    "missing_roll": ("a missing roll", "After each keep answer that does not keep all the dice, re-roll the others."),
    "too_few": ("too few dice were rolled", "Re-roll every die that is not kept."),
    "dice_line_missing": ("a {label} line is missing after a roll", "Show the dice after every roll."),
    "dice_line_order": ("re-rolled values were placed in the wrong positions",
                        "The first new value goes to the leftmost re-rolled position."),
    "dice_line_wrong": ("the {label} line does not show the dice rolled", "Show the dice in position order."),
    "dice_line_sorted": ("the {label} line shows the dice sorted, not in position order",
                         "Show the dice in position order, as they were rolled: do not sort them."),
}


# ---------------------------------------------------------------------------------------------
# The protocol: what the grader reads of a game's text (assignment.toml [protocol], [rules])
# ---------------------------------------------------------------------------------------------

@dataclass
class Protocol:
    categories: list[str]
    dice: Bounded
    round: Bounded
    scored: Bounded
    final: Bounded
    card: Bounded
    category_prompt: Bounded
    spare_dice: list[int] = field(default_factory=list)
    num_dice: int = 5
    players: Any = 1                     # as assignment.toml says: 1, 2, [1, 2], "many" ...
    turn: Bounded | None = None
    marks: dict[str, Bounded] = field(default_factory=dict)
    debug_prefix: str = "DEBUG:"
    ignore: Bounded | None = None     # lines the grader skips besides (a regex)
    dice_label: str = "dice"             # what feedback calls the dice line, e.g. "Dice:"
    texts: dict[str, tuple[str, str]] = field(default_factory=lambda: dict(_TEXTS))

    @classmethod
    def of(cls, assignment) -> Protocol:
        """The protocol of ASSIGNMENT (an Assignment: its [protocol] and [rules] tables)."""
        data = dict(assignment.extra.get("protocol", {}))
        rules = assignment.extra.get("rules", {})

        def rx(key: str, flags: int = re.IGNORECASE) -> Bounded:
            return bounded(data[key], flags) if key in data else NEVER      # free-form output: no grammar

        texts = dict(_TEXTS)
        for kind, value in data.get("texts", {}).items():
            texts[kind] = (value[0], value[1]) if isinstance(value, list) else (value, texts.get(kind, ("", ""))[1])
        return cls(categories=list(rules.get("categories", [])), dice=rx("dice"), round=rx("round"),
                   scored=rx("scored"), final=rx("final"), card=rx("card", 0),
                   category_prompt=rx("category_prompt"), spare_dice=list(data.get("spare_dice", [])),
                   num_dice=int(rules.get("num_dice", 5)), players=data.get("players", 1),
                   turn=rx("turn") if "turn" in data else None,
                   marks={k: bounded(v) for k, v in data.get("marks", {}).items()},
                   debug_prefix=data.get("debug_prefix", "DEBUG:"), ignore=rx("ignore", 0) if "ignore" in data else None,
                   dice_label=data.get("dice_label", "dice"),
                   texts=texts)

    def text(self, kind: str, **names: str) -> tuple[str, str]:
        cause, hint = self.texts[kind]
        return cause.format(label=self.dice_label, **names), hint.format(label=self.dice_label, **names)

    def category_named(self, text: str) -> str | None:
        return _by_normal(tuple(self.categories)).get(normalize(text))

    def dice_in(self, line: str) -> list[int] | None:
        """The dice a dice line shows (any separators), or None when the line is not one."""
        match = self.dice.match(line)
        if not match:
            return None
        return [number(v) for v in re.findall(r"\d+", group(match, "dice"))]

    def with_spare_dice(self, dice: list[int]) -> list[int]:
        """DICE, then the spare dice: a program that rolls too often can finish and be told so."""
        return list(dice) + list(self.spare_dice)


def group(match: re.Match, *names: str, default: int = 1) -> str | None:
    """The first of the named groups NAMES the regex has, else its group DEFAULT: a protocol may
    name its groups (dice, points, category, score, player, round ...) or number them."""
    for name in names:
        if name in match.re.groupindex:
            return match.group(name)
    return match.group(default)


NEVER = bounded(r"(?!)")      # a line kind the protocol does not define: nothing matches


_NOT_SIGNIFICANT = str.maketrans("", "", " _-\t.")


def normalize(text: str) -> str:
    return str(text).lower().translate(_NOT_SIGNIFICANT)


@functools.lru_cache(maxsize=64)
def _by_normal(categories: tuple[str, ...]) -> dict[str, str]:
    """normalized name -> category (built once per category list, not once per line read)."""
    return {normalize(c): c for c in categories}


# ---------------------------------------------------------------------------------------------
# The timeline and the RNG contract
# ---------------------------------------------------------------------------------------------

@dataclass
class Item:
    kind: str                 # "line" | "roll" | "in" | "random" | "seed"
    gap: int                  # answers read before this item
    text: str = ""            # the line, the prompt, or the random function's name
    value: Any = None         # the die, the answer, or the random call's arguments
    player: Any = None        # whose turn it was (None: one player, or before any turn line)


def timeline(outcome, protocol: Protocol) -> list[Item]:
    """The run as items; printed text split into lines, debug lines dropped."""
    items: list[Item] = []
    gap, buf, player = 0, "", None

    def flush(partial: bool) -> None:
        nonlocal buf, player
        parts = buf.split("\n")
        buf = "" if partial else parts.pop()
        for line in parts:
            line = line.rstrip("\r")
            if line.lstrip().startswith(protocol.debug_prefix) or (protocol.ignore and protocol.ignore.search(line)):
                continue
            if protocol.turn is not None:
                match = protocol.turn.search(line)
                if match:
                    player = group(match, "player", "name", default=1) if match.re.groups else line.strip()
            items.append(Item("line", gap, line, player=player))

    for event in outcome.events or ():
        kind = event[0]
        if kind == "out":
            text = str(event[1])
            buf += text
            if "\n" in text:           # (else nothing to split: text printed piece by piece without a
                flush(partial=False)    # newline was split again at every piece, quadratic in its length)
            continue
        if buf:
            flush(partial=True)
        if kind == "roll":
            items.append(Item("roll", gap, value=event[1], player=player))
        elif kind == "in":
            items.append(Item("in", gap, text=str(event[1]), value=event[2] if len(event) > 2 else None,
                              player=player))
            gap += 1
        elif kind == "random":
            items.append(Item("random", gap, text=str(event[1]), value=event[2] if len(event) > 2 else None,
                              player=player))
        elif kind == "seed":
            items.append(Item("seed", gap, value=event[1] if len(event) > 1 else None, player=player))
    if buf:
        flush(partial=True)
    return items


def roll_values(outcome) -> list[int]:
    """Every die the program rolled, in order (the RNG contract: one randint per die)."""
    values: list[int] = []
    for event in outcome.events or ():
        if event and event[0] == "roll":
            value = event[1] if len(event) > 1 else None
            values.extend(value if isinstance(value, (list, tuple)) else [value])
    return values


def dice_rolled(outcome) -> int:
    """How many dice the program rolled."""
    return len(roll_values(outcome))


def random_calls(outcome) -> list[str]:
    """The random functions the program called besides the dice (sorted, once each)."""
    return sorted({str(e[1]) for e in outcome.events or () if e and e[0] == "random" and len(e) > 1})


def shown_calls(names: Iterable[str]) -> str:
    """NAMES (random_calls: random's functions, "Random", "SystemRandom", "os.urandom") as a program
    writes them: "random.choice, os.urandom"."""
    return ", ".join(name if "." in name else f"random.{name}" for name in names)


def silent_refusals(events: list, reference_events: list) -> list[int]:
    """The answers (1-based) after which the reference printed something before asking again and
    the program did not: an invalid answer must be told, not silently asked again."""
    def spoke(events) -> list[bool]:
        found, said, started = [], False, False
        for event in events or ():
            if event and event[0] == "in":
                if started:
                    found.append(said)
                started, said = True, False
            elif event and event[0] == "out" and started and str(event[1]).strip():
                said = True
        return found
    mine, theirs = spoke(events), spoke(reference_events)
    return [i + 1 for i, (m, t) in enumerate(zip(mine, theirs)) if t and not m]


# ---------------------------------------------------------------------------------------------
# The transcript
# ---------------------------------------------------------------------------------------------

@dataclass
class Roll:
    gap: int
    dice: list[int]
    start: int = 0            # index of its first die in the timeline
    round: int = 0            # reference only: the round and the roll number in it
    number: int = 0
    player: Any = None


@dataclass
class Round:
    number: int
    rolls: list[Roll] = field(default_factory=list)
    dice_lines: list[list[int]] = field(default_factory=list)
    answers: list[int] = field(default_factory=list)      # indexes of the script lines read
    scored: tuple[int, str] | None = None                 # (points, category)
    marks: set[str] = field(default_factory=set)          # the protocol's marks its lines matched
    player: Any = None

    @property
    def final_dice(self) -> list[int] | None:
        return self.dice_lines[-1] if self.dice_lines else None


@dataclass
class Scored:
    points: int
    category: str | None      # None: the line names no known category
    line: str
    gap: int
    player: Any = None

    def __iter__(self):       # (points, category, line, gap), as a tuple reads
        return iter((self.points, self.category, self.line, self.gap))


@dataclass
class Transcript:
    """What a run of a game (or of one round) shows."""

    outcome: Any
    items: list[Item]
    rolls: list[Roll]                         # consecutive dice between two answers form one roll
    dice_lines: list[tuple[int, list[int]]]   # (gap, dice)
    scored: list[Scored]
    scored_at: list[int]                      # the timeline index of each Scored line
    finals: list[int]
    randoms: list[Item]
    seeds: list[Item]
    last_line: str
    card_lines: dict[str, str]                # the final scorecard: normalized name -> shown value
    final_by_player: dict[Any, int] = field(default_factory=dict)
    protocol: Protocol | None = None

    @property
    def dice_by_gap(self) -> dict[int, list[int]]:
        out: dict[int, list[int]] = {}
        for roll in self.rolls:
            out.setdefault(roll.gap, []).extend(roll.dice)
        return out

    @property
    def players(self) -> list:
        """The players in order of their first turn (empty for a one-player game)."""
        seen: dict = {}
        for item in self.items:
            if item.player is not None:
                seen.setdefault(item.player, None)
        return list(seen)

    def scored_by(self, player) -> list[Scored]:
        return [s for s in self.scored if s.player == player]

    def card_value(self, name: str) -> int | None | str:
        """The value the final scorecard shows for NAME: an int, "-" or None when there is no line."""
        shown = self.card_lines.get(normalize(name))
        if shown is None or shown == "-":
            return shown
        return number(shown)


_SEEN: dict[tuple[int, bytes], tuple[Protocol, Transcript]] = {}
_SEEN_MAX = 256
_SEEN_TEXT_MAX = 1 << 17          # bytes of an events key kept (a longer run is just read)
# The key of a run's events: marshal's bytes (~7x cheaper than their JSON text).  Version 2 has no
# back-references: equal events give equal bytes, and equal bytes are equal events (marshal writes
# every value with its type).
def _events_key(events: list) -> bytes:
    return marshal.dumps(events, 2)


def read_transcript(outcome, protocol: Protocol) -> Transcript:
    """OUTCOME's run read with PROTOCOL.  A transcript depends on the events alone, and most
    students' games print what the reference's print: a run with the very events of one read
    before (the same events, _events_key) gets that reading, with its own outcome (a worker parses each
    distinct game once, not once per student).  Nothing changes a Transcript once read (the
    reference's rounds number rolls of their own, _read_reference)."""
    events = outcome.events
    same = _SEEN_LIST.get((id(protocol), id(events)))    # the very list read before (outcomes._ok shares
    if same is not None and same[0] is protocol and same[1] is events:     # one content's values)
        return _with_outcome(same[2], outcome)
    try:
        key = (id(protocol), _events_key(events or []))
    except (TypeError, ValueError, RecursionError):
        return _read_transcript(outcome, protocol)
    if len(key[1]) > _SEEN_TEXT_MAX:
        return _read_transcript(outcome, protocol)
    entry = _SEEN.get(key)
    if entry is not None and entry[0] is protocol:
        transcript = _with_outcome(entry[1], outcome)
    else:
        transcript = _read_transcript(outcome, protocol)
        if len(_SEEN) >= _SEEN_MAX:
            _SEEN.clear()
        _SEEN[key] = (protocol, transcript)
    if isinstance(events, list) and events:
        if len(_SEEN_LIST) >= _SEEN_MAX:
            _SEEN_LIST.clear()
        _SEEN_LIST[(id(protocol), id(events))] = (protocol, events, transcript)   # (kept alive with it)
    return transcript


# Runs read before by the identity of their events list (outcomes are read, never changed: a list
# met again is the same events).
_SEEN_LIST: dict[tuple[int, int], tuple[Protocol, list, Transcript]] = {}


def _with_outcome(transcript: Transcript, outcome) -> Transcript:
    """TRANSCRIPT's reading with OUTCOME as its run (dataclasses.replace without its __init__)."""
    copy = object.__new__(Transcript)
    copy.__dict__.update(transcript.__dict__)
    copy.outcome = outcome
    return copy


def _read_transcript(outcome, protocol: Protocol) -> Transcript:
    items = timeline(outcome, protocol)
    rolls: list[Roll] = []
    dice_lines, scored, finals, randoms, seeds, scored_at = [], [], [], [], [], []
    final_by_player: dict = {}
    last_kind = None
    for index, item in enumerate(items):
        if item.kind == "roll":
            if last_kind == "roll" and rolls and rolls[-1].gap == item.gap:
                rolls[-1].dice.append(item.value)
            else:
                rolls.append(Roll(item.gap, [item.value], index, player=item.player))
        elif item.kind == "line":
            dice = protocol.dice_in(item.text)
            if dice is not None:
                dice_lines.append((item.gap, dice))
            match = protocol.scored.search(item.text)
            if match:
                scored.append(Scored(number(group(match, "points")), protocol.category_named(group(match, "category", default=2)),
                                     item.text.strip(), item.gap, item.player))
                scored_at.append(index)
            match = protocol.final.match(item.text)
            if match:
                value = number(group(match, "score"))
                finals.append(value)
                final_by_player[match.groupdict().get("player", item.player)] = value
        elif item.kind == "random":
            randoms.append(item)
        elif item.kind == "seed":
            seeds.append(item)
        if item.kind != "line" or item.text.strip():
            last_kind = item.kind
    lines = [i.text for i in items if i.kind == "line" and i.text.strip()]
    # the final scorecard: name: value lines after the last Scored line
    after = 0
    for index, item in enumerate(items):
        if item.kind == "line" and protocol.scored.search(item.text):
            after = index + 1
    card: dict[str, str] = {}
    for item in items[after:]:
        if item.kind != "line":
            continue
        match = protocol.card.match(item.text)
        if match:
            card[normalize(group(match, "category", "name", "slot"))] = group(match, "score", "points", "value", default=2)
    return Transcript(outcome, items, rolls, dice_lines, scored, scored_at, finals, randoms, seeds,
                      lines[-1].strip() if lines else "", card, final_by_player, protocol)


# ---------------------------------------------------------------------------------------------
# The reference's rounds
# ---------------------------------------------------------------------------------------------

@dataclass
class RefGame:
    """The reference run, split into rounds (it prints the round and scored lines exactly)."""

    game: Transcript
    rounds: list[Round]
    answer_kind: list[str]            # per script line: "keep" | "category"
    rejected: list[bool]              # per script line: the reference asked the same question again
    keep_all: list[bool]              # per script line: a keep answer after which nothing was rolled
    round_at_gap: dict[int, int]
    total: int | None


_READ: dict[tuple[int, int], tuple[Any, Protocol, RefGame]] = {}
_READ_MAX = 2048


def read_reference(outcome, protocol: Protocol) -> RefGame:
    """The reference's run OUTCOME read with PROTOCOL, once per outcome object: the reference's
    outcomes are shared by every student a process grades (Program's cache, refcache.py), so its
    transcripts are parsed once per worker, not once per student.  (Keyed by identity and kept
    alive with the entry, so an id is never reused; nothing mutates a RefGame once read.)"""
    entry = _READ.get((id(outcome), id(protocol)))
    if entry is not None and entry[0] is outcome and entry[1] is protocol:
        return entry[2]
    if len(_READ) >= _READ_MAX:
        _READ.clear()
    ref = _read_reference(outcome, protocol)
    _READ[(id(outcome), id(protocol))] = (outcome, protocol, ref)
    return ref


def _read_reference(outcome, protocol: Protocol) -> RefGame:
    reading = read_transcript(outcome, protocol)   # shared with every student's run that prints the same
    # ... but its rolls are its own: the rounds below number them
    game = dataclasses.replace(reading, rolls=[dataclasses.replace(roll) for roll in reading.rolls])
    rounds: list[Round] = []
    current: Round | None = None
    answer_kind: list[str] = []
    round_at_gap: dict[int, int] = {}
    starts = {roll.start: roll for roll in game.rolls}

    def begin(number_: int, player) -> Round:
        rounds.append(Round(number_, player=player))
        return rounds[-1]

    for index, item in enumerate(game.items):
        if item.kind == "line":
            match = protocol.round.match(item.text)
            if match and not protocol.scored.search(item.text):
                current = begin(number(group(match, "round", "number")), item.player)
                continue
            if not item.text.strip():
                continue
            if current is None:
                current = begin(1, item.player)
            dice = protocol.dice_in(item.text)
            if dice is not None:
                current.dice_lines.append(dice)
            match = protocol.scored.search(item.text)
            if match:
                category = group(match, "category", default=2)
                current.scored = (number(group(match, "points")), protocol.category_named(category) or category)
            current.marks.update(mark for mark, rx in protocol.marks.items() if rx.search(item.text))
        elif item.kind == "roll":
            if current is None:
                current = begin(1, item.player)
            roll = starts.get(index)
            if roll is not None:
                roll.round = current.number
                roll.number = len(current.rolls) + 1
                current.rolls.append(roll)
        elif item.kind == "in":
            if current is None:
                current = begin(1, item.player)
            current.answers.append(item.gap)
            round_at_gap.setdefault(item.gap, current.number)
            answer_kind.append("category" if protocol.category_prompt.search(item.text) else "keep")
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
