"""Review a finished game: each decision against the optimal one, in expected points lost.

The game is read from text: a transcript of ``play_game`` as the grader records it (the prompts
with the answers echoed) or a student's own terminal session pasted into a file.  What is read:

    Round N                          a new round
    Dice: a b c d e                  a roll
    Keep which dice? ...: ANSWER     the answer to a keep prompt (the kit's parse_keep reads it)
    Scored P points in CATEGORY.     the box chosen

When the keep answers are missing (a transcript without echoed input), the kept dice are inferred
as those whose value did not change between two rolls, and the review says so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..engine.bounds import number as read_number
from . import advice, solver
from .solver import OFFICIAL, Rules, kit

ROUND = re.compile(r"^\s*Round\s+(\d+)\b")
DICE = re.compile(r"Dice:\s*([1-6](?:[\s,]+[1-6]){4})\s*$")
KEEP = re.compile(r"keep[^?]*\?(?:[^:]*:)?\s?(.*)$", re.IGNORECASE)
KEEP_WORD = re.compile(r"keep", re.IGNORECASE)
SCORED = re.compile(r"Scored\s+(-?\d+)\s+points?\s+in\s+(.+?)\.?\s*$")
# No line of a game is longer (a prompt and its answer, a category's name): a longer one is none of
# them, and is never searched (KEEP backtracks quadratically on a long line of "keep"s without a "?":
# 800 KB of them took ~13 minutes; redteam10)
MAX_GAME_LINE = 2000
# ...but a number may be long (a Scored line of 5000 digits reads as bounds.number's bounded value,
# round 6): each run of digits is first cut to what bounds.number reads of it (its leading zeros
# aside, more than 30 significant digits are TOO_BIG whatever they are), linear in the line.
LONG_DIGITS = re.compile(r"\d{32,}")


class GameTextError(ValueError):
    """The text is not a readable game (the message says which line and why)."""


@dataclass
class RoundPlay:
    rolls: list[list[int]] = field(default_factory=list)
    answers: list[str | None] = field(default_factory=list)     # one per roll but the last scored
    category: str = ""
    points: int | None = None


@dataclass(frozen=True)
class Decision:
    round: int
    roll: int                     # 1..3
    dice: tuple[int, ...]
    chosen: str
    best: str
    value: float                  # expected final score after the chosen option
    best_value: float
    loss: float                   # best_value - value
    inferred: bool = False        # the keep was inferred from the dice, not read


@dataclass
class Review:
    decisions: list[Decision]
    final_score: int
    optimum: float                # expected score of optimal play from the start
    rules: Rules = OFFICIAL

    @property
    def total_loss(self) -> float:
        return float(sum(d.loss for d in self.decisions))

    def costliest(self, n: int = 3) -> list[Decision]:
        return sorted(self.decisions, key=lambda d: -d.loss)[:n]


def parse_game(text: str) -> list[RoundPlay]:
    """Rounds of a game from a transcript; raise GameTextError when no round can be read."""
    rounds: list[RoundPlay] = []
    current: RoundPlay | None = None
    for number, line in enumerate(text.splitlines(), 1):
        if len(line) > MAX_GAME_LINE:
            line = LONG_DIGITS.sub(lambda m: m.group(0).lstrip("0")[:31] or "0", line)
            if len(line) > MAX_GAME_LINE:
                continue
        if ROUND.match(line):
            current = RoundPlay()
            rounds.append(current)
            continue
        dice = DICE.search(line)
        if dice:
            if current is None:
                current = RoundPlay()
                rounds.append(current)
            if current.rolls and len(current.answers) < len(current.rolls):
                current.answers.append(None)          # re-rolled, but the answer is not in the text
            current.rolls.append([int(v) for v in re.findall(r"[1-6]", dice.group(1))])
            continue
        scored = SCORED.search(line)
        if scored and current is not None:
            category = kit().find_category(scored.group(2))
            if category is None:
                raise GameTextError(f"line {number}: unknown category {scored.group(2)!r}")
            # (bounds.number: a 5000-digit score was int()'s ValueError, a traceback; redteam6)
            current.category, current.points = category, read_number(scored.group(1))
            continue
        first = KEEP_WORD.search(line)        # (only there: a later "keep" matches only if this one does)
        keep = KEEP.match(line, first.start()) if first else None
        if keep and current is not None and current.rolls and len(current.answers) < len(current.rolls):
            try:
                kit().parse_keep(keep.group(1))
            except ValueError:
                continue                              # refused and asked again: the next answer counts
            current.answers.append(keep.group(1))
    rounds = [r for r in rounds if r.rolls and r.category]
    if not rounds:
        raise GameTextError("no round found: expected 'Dice: a b c d e' and 'Scored N points in CATEGORY.' lines")
    return rounds


def _kept(before: list[int], after: list[int], answer: str | None) -> tuple[tuple[int, ...], bool]:
    """Kept dice values (sorted) between two rolls, and whether they were inferred."""
    if answer is not None:
        positions = kit().parse_keep(answer)
        return tuple(sorted(before[p - 1] for p in positions)), False
    return tuple(sorted(b for b, a in zip(before, after) if b == a)), True


def review_game(text: str, rules: Rules = OFFICIAL, table: np.ndarray | None = None) -> Review:
    """Replay the game on a kit scorecard and grade every decision with the optimal table."""
    m = kit()
    if table is None:
        table = solver.load_table(rules)
    card = m.new_scorecard()
    decisions: list[Decision] = []
    for number, play in enumerate(parse_game(text), 1):
        if card.get(play.category) is not None:
            raise GameTextError(f"round {number}: {play.category} was already filled")
        turn = advice.turn_of(card, rules, table)
        last = len(play.rolls) - 1
        for i, dice in enumerate(play.rolls):
            rolls_left = m.ROLLS_PER_ROUND - 1 - i
            # the last roll with re-rolls left: the player kept all (the only way to stop early), read
            # or not (without echoed input it was skipped, and a stop's cost went uncounted: pass 22)
            if i < last or rolls_left > 0:
                after = play.rolls[i + 1] if i < last else dice
                answer = play.answers[i] if i < len(play.answers) else None
                kept, inferred = _kept(dice, after, answer)
                if i == last:
                    kept = tuple(sorted(dice))          # kept all: the rolling ended
                options = advice.advise(card, dice, rolls_left, rules, turn=turn)
                chosen = next(o for o in options if o.keep == kept)
                decisions.append(Decision(number, i + 1, tuple(dice), chosen.label, options[0].label,
                                          chosen.value, options[0].value, options[0].value - chosen.value,
                                          inferred))
        dice = play.rolls[-1]
        options = advice.advise(card, dice, 0, rules, turn=turn)
        chosen = next((o for o in options if o.category == play.category), None)
        if chosen is None:
            raise GameTextError(f"round {number}: {play.category} is not allowed for {dice} by the Joker rule")
        decisions.append(Decision(number, len(play.rolls), tuple(dice), f"score {chosen.label} ({chosen.points})",
                                  f"score {options[0].label} ({options[0].points})", chosen.value,
                                  options[0].value, options[0].value - chosen.value))
        if rules.joker != "none" and m.is_joker(dice, card) and rules.yahtzee_bonus:
            card[m.YAHTZEE_BONUS_KEY] += m.yahtzee_bonus(card)
        card[play.category] = advice.box_points(card, dice, play.category, rules)
    return Review(decisions, int(m.final_score(card)), solver.optimum(rules, table.dtype), rules)


def review_file(path: str | Path, rules: Rules = OFFICIAL) -> Review:
    return review_game(Path(path).read_text(encoding="utf-8", errors="replace"), rules)


def format_review(review: Review) -> str:
    lines = [f"{'round':>5} {'roll':>4}  {'dice':<10} {'your choice':<28} {'optimal':<28} {'lost':>6}"]
    for d in review.decisions:
        dice = " ".join(map(str, d.dice))
        mark = "*" if d.inferred else ""
        lines.append(f"{d.round:>5} {d.roll:>4}  {dice:<10} {(d.chosen + mark)[:28]:<28} "
                     f"{(d.best if d.loss > 1e-6 else '=')[:28]:<28} {d.loss:>6.2f}")
    lines.append("")
    lines.append(f"final score {review.final_score}; expected points lost by your decisions: "
                 f"{review.total_loss:.2f} (optimal play expects {review.optimum:.2f} from the start)")
    lines.append("the three costliest decisions:")
    for d in review.costliest():
        lines.append(f"  round {d.round}, roll {d.roll}, dice {' '.join(map(str, d.dice))}: "
                     f"{d.chosen} instead of {d.best} (-{d.loss:.2f})")
    if any(d.inferred for d in review.decisions):
        lines.append("* keep inferred from the dice (the answer was not in the transcript)")
    return "\n".join(lines)


def plot_review(review: Review, path: str | Path) -> Path:
    """PNG: the expected final score after each of your decisions, against optimal play's."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    xs = np.arange(len(review.decisions) + 1)
    yours = [review.optimum] + [d.value for d in review.decisions]
    fig, ax = plt.subplots(figsize=(8, 4), dpi=100)
    ax.plot(xs, yours, marker=".", label="expected final score after your decision")
    ax.axhline(review.optimum, color="grey", linestyle="--", label=f"optimal play from the start ({review.optimum:.1f})")
    ax.axhline(review.final_score, color="green", linestyle=":", label=f"your final score ({review.final_score})")
    for d in review.costliest():
        x = review.decisions.index(d) + 1
        ax.annotate(f"-{d.loss:.1f}", (x, d.value), textcoords="offset points", xytext=(0, -14),
                    ha="center", color="red", fontsize=8)
    ax.set_xlabel("decision")
    ax.set_ylabel("points")
    ax.set_title("Your game against optimal play")
    ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path)
    plt.close(fig)
    return path
