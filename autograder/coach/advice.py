"""Advice for one position, from the optimal table: every option's expected final score and regret."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from . import solver
from .solver import OFFICIAL, Rules, kit, tables


@dataclass(frozen=True)
class Option:
    action: str                 # "keep" (re-roll the rest) or "score" (put the dice in a box)
    label: str                  # what the player types/does, e.g. "keep 1 3 5 (3 3 5)", "Full House"
    value: float                # expected final score of the game after this choice, played optimally
    regret: float = 0.0         # expected points given up against the best option
    keep: tuple[int, ...] = ()  # the kept dice values (sorted), for "keep"
    positions: tuple[int, ...] = ()
    category: str = ""          # for "score"
    points: int = 0             # what the box takes now, for "score"


def state_of(scorecard: dict, rules: Rules = OFFICIAL) -> tuple[int, int]:
    """(flat state index, points banked so far) of a kit scorecard (None = open box)."""
    m = kit()
    mask = sum(1 << i for i, c in enumerate(m.CATEGORIES) if scorecard.get(c) is not None)
    upper = min(solver.UPPER_CAP, sum(scorecard.get(c) or 0 for c in m.UPPER_CATEGORIES))
    holds50 = int(rules.yahtzee_bonus and scorecard.get("Yahtzee") == m.YAHTZEE_POINTS)
    return int(solver.flat(mask, upper, holds50)), int(m.final_score(scorecard))


def turn_of(scorecard: dict, rules: Rules = OFFICIAL, table: np.ndarray | None = None) -> solver.Turn:
    if table is None:
        table = solver.load_table(rules)
    index, _ = state_of(scorecard, rules)
    return solver.turn(table.reshape(-1), np.array([index]), rules, table.dtype)


def keep_positions(dice: list[int], keep: tuple[int, ...]) -> tuple[int, ...]:
    """1-based positions holding KEEP's values (leftmost first)."""
    taken: list[int] = []
    for value in keep:
        taken.append(next(i for i, d in enumerate(dice, 1) if d == value and i not in taken))
    return tuple(sorted(taken))


def keep_label(dice: list[int], keep: tuple[int, ...]) -> str:
    if len(keep) == len(dice):
        return "keep all (score now)"
    if not keep:
        return "re-roll all"
    return f"keep {' '.join(map(str, keep_positions(dice, keep)))} ({' '.join(map(str, keep))})"


def box_points(scorecard: dict, dice: list[int], category: str, rules: Rules = OFFICIAL) -> int:
    """What CATEGORY takes for DICE now: the kit's score, or its joker_score under the Joker rule."""
    m = kit()
    joker = rules.joker != "none" and m.is_joker(dice, scorecard)
    if joker and rules.joker == "free" and scorecard[m.UPPER_CATEGORIES[dice[0] - 1]] is None:
        joker = False                 # Verhoeff's convention: full value only once the upper box is filled
    return int(m.joker_score(category, dice) if joker else m.score(category, dice))


def advise(scorecard: dict, dice: list[int], rolls_left: int, rules: Rules = OFFICIAL,
           table: np.ndarray | None = None, turn: solver.Turn | None = None) -> list[Option]:
    """Every option in this position, best first, with its expected final score and regret.

    rolls_left -- 2 after the first roll, 1 after the second, 0 when the dice must be scored.
    Keeping all five ends the rolling (as in the kit's game), so it is worth scoring now."""
    m = kit()
    t = tables()
    if turn is None:
        turn = turn_of(scorecard, rules, table)
    _, banked = state_of(scorecard, rules)
    outcome = tuple(sorted(dice))
    r = t.index[outcome]
    options: list[Option] = []
    if rolls_left > 0:
        keep_values = turn.keep2[0] if rolls_left >= 2 else turn.keep1[0]
        subs = sorted({tuple(sorted(c)) for n in range(len(dice) + 1) for c in itertools.combinations(outcome, n)},
                      key=lambda k: (-len(k), k))
        for keep in subs:
            value = turn.final[0, r] if len(keep) == len(dice) else keep_values[t.keep_index[keep]]
            options.append(Option("keep", keep_label(dice, keep), banked + float(value), keep=keep,
                                  positions=keep_positions(dice, keep)))
    else:
        for c, category in enumerate(m.CATEGORIES):
            value = turn.boxes[0, c, r]
            if np.isfinite(value):
                points = box_points(scorecard, list(dice), category, rules)
                options.append(Option("score", category, banked + float(value), category=category,
                                      points=int(points)))
    options.sort(key=lambda o: -o.value)
    best = options[0].value
    return [Option(o.action, o.label, o.value, best - o.value, o.keep, o.positions, o.category, o.points)
            for o in options]


def simulate(scorecard: dict, games: int, rules: Rules = OFFICIAL, table: np.ndarray | None = None,
             seed: int = 0, dice: list[int] | None = None, rolls_left: int = 2) -> np.ndarray:
    """Final scores of GAMES games played optimally from SCORECARD (and DICE with ROLLS_LEFT, if given).

    All games advance together: one batched turn computation per round for the distinct states."""
    m = kit()
    t = tables()
    if table is None:
        table = solver.load_table(rules)
    flat_table = table.reshape(-1)
    rng = np.random.default_rng(seed)
    cumulative = np.cumsum(t.transition, axis=1)
    level5 = len(t.keeps) - len(t.outcomes)           # keep index of "all five dice"
    index, banked = state_of(scorecard, rules)
    states = np.full(games, index)
    scores = np.full(games, float(banked))
    open_boxes = sum(1 for c in m.CATEGORIES if scorecard.get(c) is None)
    rows = np.arange(games)
    for round_number in range(open_boxes):
        unique, inverse = np.unique(states, return_inverse=True)
        turn = solver.turn(flat_table, unique, rules, table.dtype)
        if round_number == 0 and dice is not None:
            current = np.full(games, t.index[tuple(sorted(dice))])
            left = rolls_left
        else:
            current = (cumulative[t.keep_index[()]][None, :] < rng.random(games)[:, None]).sum(axis=1)
            left = m.ROLLS_PER_ROUND - 1
        rolling = np.ones(games, dtype=bool)
        for rl in range(left, 0, -1):
            keep_values = turn.keep2 if rl >= 2 else turn.keep1
            candidates = t.subkeeps[current]                                   # (games, 32)
            values = keep_values[inverse[:, None], candidates]
            values = np.where(candidates == level5 + current[:, None], turn.final[inverse, current][:, None], values)
            keep = candidates[rows, values.argmax(axis=1)]
            rolling &= keep != level5 + current                                # keeping all ends the rolling
            rolled = (cumulative[keep] < rng.random(games)[:, None]).sum(axis=1)
            current = np.where(rolling, np.minimum(rolled, len(t.outcomes) - 1), current)
        boxes = turn.boxes[inverse, :, current]                                # (games, 13)
        choice = boxes.argmax(axis=1)
        mask, upper, holds50 = solver.decode(states)
        upper_points = np.where(choice < solver.NUM_UPPER, t.points[choice, current], 0).astype(np.int64)
        new_upper = np.minimum(upper + upper_points, solver.UPPER_CAP)
        got50 = (choice == solver.YAHTZEE) & (t.points[solver.YAHTZEE, current] == m.YAHTZEE_POINTS)
        new_holds = holds50 | (got50 & rules.yahtzee_bonus)
        following = solver.flat(mask | (1 << choice), new_upper, new_holds.astype(int))
        scores += np.rint(boxes[rows, choice] - flat_table[following])
        states = following
    return scores
