"""Stage 5, the strategy contest: play many seeded games with a strategy and score them by the kit's rules.

A strategy is two functions, ``choose_keep(dice, rolls_left, scorecard)`` (the positions 1..5 to
keep; all five ends the rolling) and ``choose_category(dice, scorecard)`` (an allowed box).  The
games advance in lockstep: at each step the grader sends every game's position in one batch and
gets every decision back, then rolls the next dice itself.  So a student's strategy runs in its
sandbox in 39 round trips however many games there are, never sees a die before it is rolled, and
everything it returns is only a choice the grader checks (an illegal one is replaced and counted).

Never seeing a die before it is rolled needs more than the order of the calls: a program that can
make each game's generator again predicts every roll.  So each game's seed is a SHA-256 digest of
the contest's secret key and the game's number (`game_seeds`), and `play_games` refuses a seed
small enough to search: with `random.Random(first_seed + g)` a strategy found first_seed from the
first game's roll in ~3 s of CPU (of its 60 s) and played every game knowing its dice (round-8
corpus `strategy_finds_the_seed`: mean 326.08, above optimal play's 254.59).
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache

from .leaderboard import HISTOGRAM  # (the board reads the line histogram_line writes)
from .solver import kit

# Appended to the student's file for the sandboxed run: one call decides a whole batch.
DRIVER = '''

def __grader_strategy_batch(kind, positions):
    """(added by the grader) Call the strategy on each position; return plain data."""
    out = []
    for position in positions:
        try:
            if kind == "keep":
                answer = choose_keep(list(position[0]), position[1], dict(position[2]))
            else:
                answer = choose_category(list(position[0]), dict(position[1]))
        except Exception as error:  # the strategy's own error: reported, and the choice replaced
            out.append({"error": type(error).__name__, "message": str(error)[:200]})
            continue
        if isinstance(answer, (set, frozenset, tuple, range)):
            answer = sorted(answer) if isinstance(answer, (set, frozenset)) else list(answer)
        out.append(answer if isinstance(answer, (list, str, int)) else {"error": "type", "message": type(answer).__name__})
    return out
'''
DRIVER_FUNCTION = "__grader_strategy_batch"

KeepDecider = Callable[[list[tuple[list[int], int, dict]]], list]
BoxDecider = Callable[[list[tuple[list[int], dict]]], list]


@dataclass
class ContestResult:
    scores: list[int]
    illegal: dict[str, int] = field(default_factory=dict)        # function -> decisions replaced
    first_illegal: dict[str, str] = field(default_factory=dict)  # function -> the first, in plain words
    first_position: dict[str, str] = field(default_factory=dict)  # function -> the call it answered

    @property
    def mean(self) -> float:
        return sum(self.scores) / len(self.scores) if self.scores else 0.0


def allowed_boxes(dice: list[int], card: dict) -> list[str]:
    """Where DICE may be scored on CARD: the kit's Joker rule, else every open box."""
    m = kit()
    if m.is_joker(dice, card):
        return m.joker_categories(dice, card)
    return m.open_categories(card)


def _legal_keep(answer) -> list[int] | None:
    if not isinstance(answer, list) or len(answer) > 5 or len(set(answer)) != len(answer):
        return None
    if not all(type(p) is int and 1 <= p <= 5 for p in answer):
        return None
    return sorted(answer)


SEED_BITS = 128          # a game's seed has at least this many bits no program can guess (game_seeds)


def game_seeds(key: str, first: int, games: int) -> tuple[int, ...]:
    """The seeds of games FIRST .. FIRST + GAMES - 1 of a contest whose secret is KEY: 256-bit
    digests, so the dice a program saw tell it nothing of the next ones without the key."""
    if len(key) < 32:
        raise ValueError("the contest's key must be a secret of at least 32 characters "
                         "(python -c 'import secrets; print(secrets.token_hex(32))')")
    return tuple(int.from_bytes(hashlib.sha256(f"{key}:{number}".encode()).digest(), "big")
                 for number in range(first, first + games))


def play_games(decide_keeps: KeepDecider, decide_boxes: BoxDecider, seeds: Sequence[int]) -> ContestResult:
    """Play one game per seed with the deciders, all games in lockstep; score them by the kit's rules.

    SEEDS come from game_seeds: a seed a program could search (below 2**SEED_BITS) is refused."""
    if any(not isinstance(seed, int) or seed.bit_length() <= SEED_BITS for seed in seeds):
        raise ValueError(f"a contest's seeds must be game_seeds' digests (more than {SEED_BITS} bits): "
                         "a small seed lets a strategy make the game's generator again and see its dice")
    m = kit()
    rngs = [random.Random(seed) for seed in seeds]
    cards = [m.new_scorecard() for _ in seeds]
    result = ContestResult(scores=[])

    def illegal(function: str, call: str, answer, rule: str, instead: str) -> None:
        result.illegal[function] = result.illegal.get(function, 0) + 1
        if function in result.first_illegal:
            return
        if isinstance(answer, dict) and "error" in answer:
            said = f"raised {str(answer['error'])[:40]}: {str(answer.get('message', ''))[:200]}"
        else:
            said = f"returned {str(answer)[:80]}, {rule}"
        result.first_illegal[function] = f"{said} ({instead} instead)"     # data-free: no dice
        result.first_position[function] = call

    for _ in range(m.NUM_ROUNDS):
        dice = [[rng.randint(1, m.NUM_FACES) for _ in range(m.NUM_DICE)] for rng in rngs]
        rolling = list(range(len(seeds)))
        for rolls_left in range(m.ROLLS_PER_ROUND - 1, 0, -1):
            if not rolling:
                break
            answers = decide_keeps([(dice[g], rolls_left, cards[g]) for g in rolling])
            still = []
            for g, answer in zip(rolling, list(answers) + [None] * (len(rolling) - len(answers))):
                keep = _legal_keep(answer)
                if keep is None:
                    illegal("choose_keep", f"choose_keep({dice[g]}, {rolls_left}, card)", answer,
                            "not a list of distinct positions 1..5", "kept all")
                    keep = [1, 2, 3, 4, 5]
                if len(keep) == m.NUM_DICE:
                    continue                                 # keeping all five ends the rolling
                for position in range(1, m.NUM_DICE + 1):
                    if position not in keep:
                        dice[g][position - 1] = rngs[g].randint(1, m.NUM_FACES)
                still.append(g)
            rolling = still
        everyone = list(range(len(seeds)))
        answers = decide_boxes([(dice[g], cards[g]) for g in everyone])
        for g, answer in zip(everyone, list(answers) + [None] * (len(everyone) - len(answers))):
            card, roll = cards[g], dice[g]
            allowed = allowed_boxes(roll, card)
            category = m.find_category(answer) if isinstance(answer, str) else None
            if category not in allowed:
                illegal("choose_category", f"choose_category({roll}, card)", answer,
                        f"not one of {', '.join(allowed)}", f"scored {allowed[0]}")
                category = allowed[0]
            joker = m.is_joker(roll, card)
            if joker:
                card[m.YAHTZEE_BONUS_KEY] += m.yahtzee_bonus(card)
            card[category] = m.joker_score(category, roll) if joker else m.score(category, roll)
    result.scores = [int(m.final_score(card)) for card in cards]
    return result


def local(choose_keep: Callable, choose_category: Callable) -> tuple[KeepDecider, BoxDecider]:
    """Deciders calling trusted in-process strategy functions (the kit's baselines)."""
    def keeps(batch):
        return [choose_keep(list(d), r, dict(c)) for d, r, c in batch]

    def boxes(batch):
        return [choose_category(list(d), dict(c)) for d, c in batch]
    return keeps, boxes


# ---------------------------------------------------------------------------------------------
# Baselines the thresholds are measured against (plain strategies, in-process)
# ---------------------------------------------------------------------------------------------

def chance_keep(dice, rolls_left, scorecard):
    """Always-Chance: never re-roll."""
    return [1, 2, 3, 4, 5]


def chance_category(dice, scorecard):
    """Always-Chance: Chance while it is open, then the first allowed box."""
    allowed = allowed_boxes(dice, scorecard)
    return "Chance" if "Chance" in allowed else allowed[0]


def greedy_keep(dice, rolls_left, scorecard):
    """Greedy: keep the dice showing the most common face (the higher face on a tie)."""
    face = max(set(dice), key=lambda f: (dice.count(f), f))
    return [i for i, d in enumerate(dice, 1) if d == face]


def greedy_category(dice, scorecard):
    """Greedy: the allowed box that scores the most now (the later box on a tie)."""
    m = kit()
    joker = m.is_joker(dice, scorecard)
    allowed = allowed_boxes(dice, scorecard)
    return max(reversed(allowed), key=lambda c: m.joker_score(c, dice) if joker else m.score(c, dice))


BASELINES = {"always-Chance": (chance_keep, chance_category), "greedy": (greedy_keep, greedy_category)}


@cache
def baseline_means(seeds: tuple[int, ...]) -> dict[str, float]:
    """Mean score of each baseline on these games (the same seeds the student plays)."""
    return {name: play_games(*local(*pair), seeds).mean for name, pair in BASELINES.items()}


# ---------------------------------------------------------------------------------------------
# Feedback and class report
# ---------------------------------------------------------------------------------------------

BIN = 25


def histogram_line(scores: Sequence[int]) -> str:
    """The score distribution as one line of the feedback (the feedback page plots it)."""
    counts = [0] * (max(scores) // BIN + 1)
    for value in scores:
        counts[value // BIN] += 1
    return f"{HISTOGRAM} {' '.join(map(str, counts))}"


@cache
def optimal_scores(games: int = 2000) -> tuple[float, ...]:
    """Final scores of GAMES games of optimal play (the coach's table, simulated, seed 0)."""
    from . import advice

    return tuple(float(v) for v in advice.simulate(kit().new_scorecard(), games, seed=0))


def plot_distribution(counts: Sequence[int], path, mean: float | None = None):
    """PNG: a strategy's scores (COUNTS per 25-point bin, see histogram_line) against optimal play's."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    from . import solver

    optimal = np.array(optimal_scores())
    bins = np.arange(0, max(len(counts) * BIN, optimal.max()) + BIN + 1, BIN)
    share = np.array(counts, dtype=float) / max(1, sum(counts))
    fig, ax = plt.subplots(figsize=(8, 4), dpi=100)
    ax.hist(optimal, bins=bins, weights=np.full(len(optimal), 1 / len(optimal)), alpha=0.5,
            label=f"optimal play (mean {optimal.mean():.1f})")
    label = "your strategy" + (f" (mean {mean:.1f})" if mean is not None else "")
    ax.bar(np.arange(len(counts)) * BIN, share, width=BIN, align="edge", alpha=0.6, label=label)
    ax.axvline(solver.optimum(), color="black", linestyle="--", linewidth=1,
               label=f"optimal expected score {solver.optimum():.2f}")
    ax.set_xlabel("final score")
    ax.set_ylabel("share of games")
    ax.set_xlim(0, min(bins[-1], 700))
    ax.set_title("Your strategy's scores against optimal play")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path
