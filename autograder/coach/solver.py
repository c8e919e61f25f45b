"""The optimal solitaire Yahtzee strategy, exactly, by backward induction (NumPy).

A state between turns is (boxes filled: a 13-bit mask, the upper total capped at 63, whether the
Yahtzee box holds 50).  ``V[state]`` is the expected number of points still to come under optimal
play (upper bonus and Yahtzee bonuses included when they are earned).  Within a turn the dice are
one of the 252 sorted outcomes and a keep one of the 462 sorted sub-multisets of 0..5 dice:

    final[r]   = max over allowed boxes c of  points(c, r) + bonuses + V[next state]
    keep1[k]   = sum_r P(r | k) final[r]         (one roll left: value of keeping k)
    best2[r]   = max over keeps k inside r of keep1[k]
    keep2[k]   = sum_r P(r | k) best2[r]         (two rolls left)
    best1[r]   = max over keeps k inside r of keep2[k]
    V[state]   = sum_r P0(r) best1[r]

All states with the same number of filled boxes depend only on states with one more, so they are
computed together, in batches, as whole-array operations.  The sums over re-rolls are done one die
at a time (a keep of n dice is worth the mean of the 6 keeps of n+1 dice) and the best keep inside
an outcome one removed die at a time: about 30x less work than the (252 x 462) matrix product.

The rules are the kit's own: the scoring functions and constants of ``autograder/assignments/yahtzee/reference.py`` (the
single source of truth), with the Joker convention and the Yahtzee bonus as options.
"""

from __future__ import annotations

import hashlib
import importlib.util
import itertools
import math
import os
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import ModuleType

import numpy as np

from ..assignment import ASSIGNMENTS_DIR

CODE_VERSION = "1"          # bump when the recursion changes: it keys the table cache
NUM_BOXES = 13
UPPER_CAP = 63              # overwritten below by the kit's threshold (checked equal)
JOKERS = ("forced", "free", "none")
REFERENCE = ASSIGNMENTS_DIR / "yahtzee" / "reference.py"


@cache
def kit() -> ModuleType:
    """The reference solution, imported once: its constants and scoring functions are the rules."""
    spec = importlib.util.spec_from_file_location("_yahtzee_rules_for_coach", REFERENCE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@dataclass(frozen=True)
class Rules:
    """Which convention to solve.

    joker -- "forced": the kit's official rule (matching upper box if open, else any open lower
             box at full value, else an upper box for 0); "free": Verhoeff 1999 / Glenn 2006 (any
             open box; Full House and the straights score in full only when the matching upper
             box is filled); "none": a Yahtzee scores like any other dice.
    yahtzee_bonus -- +100 for each further Yahtzee while the Yahtzee box holds 50.
    """

    joker: str = "forced"
    yahtzee_bonus: bool = True

    def __post_init__(self) -> None:
        if self.joker not in JOKERS:
            raise ValueError(f"joker must be one of {', '.join(JOKERS)}, got {self.joker!r}")

    @property
    def label(self) -> str:
        bonus = "with" if self.yahtzee_bonus else "no"
        return f"{self.joker} Joker, {bonus} Yahtzee bonus"

    def key(self) -> str:
        """Rules + the kit's rule constants + the code version: names the cached table."""
        m = kit()
        facts = (CODE_VERSION, self.joker, self.yahtzee_bonus, m.CATEGORIES, m.FULL_HOUSE_POINTS,
                 m.SMALL_STRAIGHT_POINTS, m.LARGE_STRAIGHT_POINTS, m.YAHTZEE_POINTS,
                 m.UPPER_BONUS_THRESHOLD, m.UPPER_BONUS_POINTS, m.YAHTZEE_BONUS_POINTS)
        return hashlib.sha256(repr(facts).encode()).hexdigest()[:16]


OFFICIAL = Rules()


# ---------------------------------------------------------------------------------------------
# Dice tables: outcomes, keeps, transition probabilities, points per box.
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class DiceTables:
    outcomes: list[tuple[int, ...]]       # 252 sorted 5-dice outcomes
    index: dict[tuple[int, ...], int]     # outcome -> row
    keeps: list[tuple[int, ...]]          # 462 sorted keeps of 0..5 dice
    keep_index: dict[tuple[int, ...], int]
    transition: np.ndarray                # (462, 252): P(outcome | keep, re-roll the rest)
    first: np.ndarray                     # (252,): P(outcome) of a fresh roll
    subkeeps: np.ndarray                  # (252, 32): keeps inside each outcome (padded)
    points: np.ndarray                    # (13, 252): the kit's score(category, dice)
    joker_points: np.ndarray              # (13, 252): the kit's joker_score (Yahtzee rows only)
    yahtzee_face: np.ndarray              # (252,): face of a Yahtzee outcome, 0 otherwise
    face_count: np.ndarray                # (6, 252): how many dice show face f+1


def _multinomial(counts: list[int]) -> int:
    result = math.factorial(sum(counts))
    for c in counts:
        result //= math.factorial(c)
    return result


@cache
def tables() -> DiceTables:
    m = kit()
    faces = range(1, m.NUM_FACES + 1)
    outcomes = list(itertools.combinations_with_replacement(faces, m.NUM_DICE))
    index = {o: i for i, o in enumerate(outcomes)}
    keeps = [k for n in range(m.NUM_DICE + 1) for k in itertools.combinations_with_replacement(faces, n)]
    keep_index = {k: i for i, k in enumerate(keeps)}
    transition = np.zeros((len(keeps), len(outcomes)))
    for ki, keep in enumerate(keeps):
        free = m.NUM_DICE - len(keep)
        for rolled in itertools.combinations_with_replacement(faces, free):
            counts = [rolled.count(f) for f in set(rolled)]
            prob = _multinomial(counts) / m.NUM_FACES ** free
            transition[ki, index[tuple(sorted(keep + rolled))]] += prob
    subkeeps = np.zeros((len(outcomes), 2 ** m.NUM_DICE), dtype=np.int64)
    for oi, outcome in enumerate(outcomes):
        subs = sorted({keep_index[tuple(outcome[i] for i in chosen)]
                       for n in range(m.NUM_DICE + 1) for chosen in itertools.combinations(range(m.NUM_DICE), n)})
        subkeeps[oi] = subs + [subs[0]] * (subkeeps.shape[1] - len(subs))
    points = np.array([[m.score(c, list(o)) for o in outcomes] for c in m.CATEGORIES], dtype=np.float64)
    yahtzee_face = np.array([o[0] if m.score_yahtzee(list(o)) == m.YAHTZEE_POINTS else 0 for o in outcomes])
    joker_points = np.zeros_like(points)
    for oi in np.flatnonzero(yahtzee_face):
        joker_points[:, oi] = [m.joker_score(c, list(outcomes[oi])) for c in m.CATEGORIES]
    face_count = np.array([[o.count(f) for o in outcomes] for f in faces])
    return DiceTables(outcomes, index, keeps, keep_index, transition, transition[keep_index[()]],
                      subkeeps, points, joker_points, yahtzee_face, face_count)


# ---------------------------------------------------------------------------------------------
# States
# ---------------------------------------------------------------------------------------------

def _layout() -> tuple[int, int, int, int, int, int, int]:
    m = kit()
    cats = m.CATEGORIES
    upper = len(m.UPPER_CATEGORIES)
    lower = [cats.index(c) for c in m.LOWER_CATEGORIES]
    return (upper, cats.index("Yahtzee"), cats.index("Full House"), cats.index("Small Straight"),
            cats.index("Large Straight"), m.UPPER_BONUS_THRESHOLD, sum(1 << c for c in lower))


NUM_UPPER, YAHTZEE, FULL_HOUSE, SMALL_STRAIGHT, LARGE_STRAIGHT, UPPER_CAP, LOWER_BITS = _layout()
UPPER_SLOTS = UPPER_CAP + 1
SHAPE = (1 << NUM_BOXES, UPPER_SLOTS, 2)          # mask, capped upper total, Yahtzee box holds 50


def flat(mask, upper, holds50):
    """Index into the flattened table."""
    return (mask * UPPER_SLOTS + upper) * 2 + holds50


@cache
def reachable_upper() -> np.ndarray:
    """(64, 64) bool: upper total u (capped) can be reached with these upper boxes filled."""
    reach = np.zeros((1 << NUM_UPPER, UPPER_SLOTS), dtype=bool)
    m = kit()
    for umask in range(1 << NUM_UPPER):
        totals = {0}
        for i in range(NUM_UPPER):
            if umask >> i & 1:
                totals = {min(UPPER_CAP, t + k * (i + 1)) for t in totals for k in range(m.NUM_DICE + 1)}
        reach[umask, sorted(totals)] = True
    return reach


def states_with(filled: int, rules: Rules) -> np.ndarray:
    """Flat indices of every reachable state with FILLED boxes filled."""
    reach = reachable_upper()
    out = []
    for combo in itertools.combinations(range(NUM_BOXES), filled):
        mask = sum(1 << c for c in combo)
        ups = np.flatnonzero(reach[mask & ((1 << NUM_UPPER) - 1)])
        out.append(flat(mask, ups, 0))
        if rules.yahtzee_bonus and mask >> YAHTZEE & 1:
            out.append(flat(mask, ups, 1))
    return np.concatenate(out) if out else np.zeros(0, dtype=np.int64)


def decode(index: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    holds50 = index % 2
    rest = index // 2
    return rest // UPPER_SLOTS, rest % UPPER_SLOTS, holds50


# ---------------------------------------------------------------------------------------------
# One turn for a batch of states
# ---------------------------------------------------------------------------------------------

@dataclass
class Turn:
    """Values within one turn for a batch of S states (expected points still to come)."""

    boxes: np.ndarray      # (S, 13, 252): value of scoring outcome r in box c (-inf: not allowed)
    final: np.ndarray      # (S, 252): rolls_left = 0
    keep1: np.ndarray      # (S, 462): value of keep k with one roll left
    best2: np.ndarray      # (S, 252): rolls_left = 1
    keep2: np.ndarray      # (S, 462): value of keep k with two rolls left
    best1: np.ndarray      # (S, 252): rolls_left = 2 (the first roll of the turn)


def box_values(table: np.ndarray, index: np.ndarray, rules: Rules, dtype=np.float64) -> np.ndarray:
    """(S, 13, 252): points + bonuses + value of the next state, -inf where box c is not allowed."""
    t = tables()
    m = kit()
    mask, upper, holds50 = decode(index)
    S = len(index)
    values = np.full((S, NUM_BOXES, len(t.outcomes)), -np.inf, dtype=dtype)
    is_open = (mask[:, None] >> np.arange(NUM_BOXES)[None, :] & 1) == 0       # (S, 13)
    for c in range(NUM_BOXES):
        rows = np.flatnonzero(is_open[:, c])
        if not len(rows):
            continue
        nmask = mask[rows] | (1 << c)
        u, h = upper[rows], holds50[rows]
        if c < NUM_UPPER:
            # Only 6 possible point values: look the next state up once per count of the face.
            counts = np.arange(m.NUM_DICE + 1)
            raw = u[:, None] + counts[None, :] * (c + 1)                       # (s, 6)
            capped = np.minimum(raw, UPPER_CAP)
            gain = counts[None, :] * (c + 1) + np.where((u[:, None] < UPPER_CAP) & (raw >= UPPER_CAP),
                                                       m.UPPER_BONUS_POINTS, 0)
            per_count = gain + table[flat(nmask[:, None], capped, h[:, None])]
            values[rows, c, :] = per_count[:, t.face_count[c]]
        elif c == YAHTZEE:
            nh = (t.points[c] == m.YAHTZEE_POINTS) & rules.yahtzee_bonus
            values[rows, c, :] = t.points[c][None, :] + np.where(
                nh[None, :], table[flat(nmask, u, 1)][:, None], table[flat(nmask, u, h)][:, None])
        else:
            values[rows, c, :] = t.points[c][None, :] + table[flat(nmask, u, h)][:, None]
    if rules.joker != "none":
        _apply_joker(values, table, mask, upper, holds50, is_open, rules)
    if rules.yahtzee_bonus:
        bonus_rows = np.flatnonzero(holds50 == 1)
        cols = np.flatnonzero(t.yahtzee_face)
        values[np.ix_(bonus_rows, np.arange(NUM_BOXES), cols)] += m.YAHTZEE_BONUS_POINTS
    return values


def _apply_joker(values, table, mask, upper, holds50, is_open, rules: Rules) -> None:
    """Rewrite the 6 Yahtzee outcomes of states whose Yahtzee box is filled (the Joker rule)."""
    t = tables()
    filled_y = np.flatnonzero(mask >> YAHTZEE & 1)
    if not len(filled_y):
        return
    lower_open = is_open[filled_y][:, [c for c in range(NUM_BOXES) if LOWER_BITS >> c & 1]].any(axis=1)
    specials = (FULL_HOUSE, SMALL_STRAIGHT, LARGE_STRAIGHT)
    for col in np.flatnonzero(t.yahtzee_face):
        match = t.yahtzee_face[col] - 1
        matching_open = is_open[filled_y, match]
        block = values[filled_y, :, col]                       # (s, 13) copy
        for c in specials:                                     # full value, where allowed below
            open_c = is_open[filled_y, c]
            nmask = mask[filled_y] | (1 << c)
            full = t.joker_points[c, col] + table[flat(nmask, upper[filled_y], holds50[filled_y])]
            if rules.joker == "forced":
                block[:, c] = np.where(open_c, full, -np.inf)
            else:                                              # free: full value only if matching upper filled
                block[:, c] = np.where(open_c & ~matching_open, full, block[:, c])
        if rules.joker == "forced":
            only_match = matching_open
            block[only_match, :] = np.where(np.arange(NUM_BOXES)[None, :] == match, block[only_match, :], -np.inf)
            lower_rows = ~matching_open & lower_open
            upper_cols = np.arange(NUM_BOXES) < NUM_UPPER
            block[np.ix_(lower_rows, upper_cols)] = -np.inf
        values[filled_y, :, col] = block


@cache
def _levels() -> list[tuple[int, int, np.ndarray, np.ndarray]]:
    """Per number of dice n: (first, end) keep indices, children (add one die: n+1 dice, 6 each) and
    parents (remove one die: n-1 dice, padded to 5 by repetition)."""
    t = tables()
    m = kit()
    out = []
    for n in range(m.NUM_DICE + 1):
        members = [i for i, k in enumerate(t.keeps) if len(k) == n]
        first, end = members[0], members[-1] + 1
        children = np.array([[t.keep_index[tuple(sorted(t.keeps[i] + (f,)))] for f in range(1, m.NUM_FACES + 1)]
                             for i in members]) if n < m.NUM_DICE else np.zeros((0, 0), dtype=np.int64)
        parents = np.zeros((0, 0), dtype=np.int64)
        if n:
            rows = []
            for i in members:
                keep = t.keeps[i]
                subs = sorted({t.keep_index[keep[:j] + keep[j + 1:]] for j in range(n)})
                rows.append(subs + [subs[0]] * (m.NUM_DICE - len(subs)))
            parents = np.array(rows)
        out.append((first, end, children, parents))
    return out


def _expect(final: np.ndarray) -> np.ndarray:
    """(252, S) values of 5 dice -> (462, S) expected value of each keep after re-rolling the rest.

    One die at a time: a keep of n dice is worth the mean over the 6 faces of the keep with one
    more die (the dice are independent), far cheaper than the (252 x 462) transition product."""
    levels = _levels()
    values = np.empty((levels[-1][1], final.shape[1]), dtype=final.dtype)
    values[levels[-1][0]:] = final
    for first, end, children, _ in reversed(levels[:-1]):
        values[first:end] = values[children].sum(axis=1) / len(children[0])
    return values


def _best_keep(keep_values: np.ndarray) -> np.ndarray:
    """(462, S) -> (252, S): the best keep inside each outcome (keeping all five = stop rolling)."""
    best = keep_values.copy()
    for first, end, _, parents in _levels()[1:]:
        np.maximum(best[first:end], best[parents].max(axis=1), out=best[first:end])
    return best[_levels()[-1][0]:]


def turn(table: np.ndarray, index: np.ndarray, rules: Rules, dtype=np.float64) -> Turn:
    boxes = box_values(table, index, rules, dtype)
    final = np.ascontiguousarray(boxes.max(axis=1).T)
    keep1 = _expect(final)
    best2 = _best_keep(keep1)
    keep2 = _expect(best2)
    best1 = _best_keep(keep2)
    return Turn(boxes, final.T, keep1.T, best2.T, keep2.T, best1.T)


def _turn_value(table: np.ndarray, index: np.ndarray, rules: Rules, dtype) -> np.ndarray:
    """V for a batch of states, without keeping the per-box array around."""
    final = np.ascontiguousarray(box_values(table, index, rules, dtype).max(axis=1).T)
    best1 = _best_keep(_expect(_best_keep(_expect(final))))
    return _expect(best1)[0]          # keep nothing = the first roll of the turn


def solve(rules: Rules = OFFICIAL, dtype=np.float64, batch: int = 512) -> np.ndarray:
    """The whole table, shape SHAPE: expected points to come from every state (unreachable: 0)."""
    table = np.zeros(int(np.prod(SHAPE)), dtype=dtype)
    for filled in range(NUM_BOXES - 1, -1, -1):
        index = states_with(filled, rules)
        for start in range(0, len(index), batch):
            chunk = index[start:start + batch]
            table[chunk] = _turn_value(table, chunk, rules, dtype)
    return table.reshape(SHAPE)


# ---------------------------------------------------------------------------------------------
# The cached table
# ---------------------------------------------------------------------------------------------

def cache_dir() -> Path:
    """Where tables are kept: $YAHTZEE_KIT_CACHE, else $XDG_CACHE_HOME or ~/.cache /yahtzee-kit."""
    explicit = os.environ.get("YAHTZEE_KIT_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "yahtzee-kit"


def table_path(rules: Rules, dtype=np.float32) -> Path:
    return cache_dir() / f"optimal-{rules.key()}-{np.dtype(dtype).name}.npy"


@cache
def load_table(rules: Rules = OFFICIAL, dtype=np.float32) -> np.ndarray:
    """The table for RULES from the cache, computing and storing it on first use (about 10-20 s)."""
    path = table_path(rules, dtype)
    try:
        table = np.load(path, allow_pickle=False)
        if table.shape == SHAPE and table.dtype == np.dtype(dtype):
            return table
    except (OSError, ValueError):
        pass
    table = solve(rules, dtype)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        with open(tmp, "wb") as fh:
            np.save(fh, table, allow_pickle=False)
        os.replace(tmp, path)             # atomic: a concurrent reader never sees half a file
    except OSError:
        pass                              # a read-only home still gets the answer, just not cached
    return table


def optimum(rules: Rules = OFFICIAL, dtype=np.float32) -> float:
    """Expected final score of optimal play from the start of a game."""
    return float(load_table(rules, dtype)[0, 0, 0])
