# Stage 5 (appended to the reference): a strategy that knows every die before it is rolled.
# The contest rolls game g with random.Random(first_seed + g), seeds a student can read in the kit
# (or find: SEARCH_FROM below), and re-rolls the positions not kept in order, one randint(1, 6)
# each.  So a copy of each game's generator in the program predicts every roll: for each round it
# tries every pair of keeps on the dice it KNOWS the grader will roll and keeps the best.  The
# strategy it falls back on (never re-roll, the box that scores most now: the lazy player of
# tests/test_stage5.py, 8 of 20) answers whatever it cannot place.
import random as _r


def _reference_keep(dice, rolls_left, scorecard):
    return [1, 2, 3, 4, 5]


def _reference_category(dice, scorecard):
    joker = is_joker(dice, scorecard)
    allowed = allowed_categories(dice, scorecard)
    return max(reversed(allowed), key=lambda c: joker_score(c, dice) if joker else score(c, dice))

SEARCH_FROM = 500000          # the kit's first_seed (strategy_finds_the_seed guesses it)
_PAR = {"Ones": 2, "Twos": 5, "Threes": 8, "Fours": 11, "Fives": 14, "Sixes": 17, "Three of a Kind": 20,
        "Four of a Kind": 12, "Full House": 22, "Small Straight": 27, "Large Straight": 30,
        "Yahtzee": 18, "Chance": 22}
_S = {"first": None, "games": [], "phase": None, "queue": [], "plan": {}, "lost": False,
      "pending": []}


def _candidates():
    return range(SEARCH_FROM, SEARCH_FROM + 1000)


def _find_first(dice):
    """The seed whose first five rolls are DICE (and whose next seeds' are the next games')."""
    probe = _r.Random()
    for seed in _candidates():
        probe.seed(seed)
        if [probe.randint(1, 6) for _ in range(5)] == dice:
            yield seed


def _best_box(dice, card):
    allowed = allowed_categories(dice, card)
    joker = is_joker(dice, card)
    def value(c):
        points = joker_score(c, dice) if joker else score(c, dice)
        return points - _PAR.get(c, 10)
    return max(allowed, key=value), max(value(c) for c in allowed)


def _submultisets(dice):
    seen = set()
    for mask in range(32):
        kept = tuple(sorted(d for i, d in enumerate(dice) if mask >> i & 1))
        if kept not in seen:
            seen.add(kept)
            yield kept


def _positions(dice, kept):
    left, out = list(kept), []
    for i, d in enumerate(dice, 1):
        if d in left:
            left.remove(d)
            out.append(i)
    return out


def _plan(dice, card, seq):
    memo = {}
    def value(final):
        key = tuple(sorted(final))
        if key not in memo:
            memo[key] = _best_box(list(key), card)[1]
        return memo[key]
    best = None
    for k1 in _submultisets(dice):
        n1 = 5 - len(k1)
        d1 = list(k1) + seq[:n1]
        for k2 in _submultisets(d1):
            n2 = 5 - len(k2)
            v = value(list(k2) + seq[n1:n1 + n2])
            if best is None or v > best[0]:
                best = (v, k1, k2)
    return best[1], best[2]


def _next(rng, count):
    state = rng.getstate()
    seq = [rng.randint(1, 6) for _ in range(count)]
    rng.setstate(state)
    return seq


def choose_keep(dice, rolls_left, scorecard):
    s = _S
    if s["lost"]:
        return _reference_keep(dice, rolls_left, scorecard)
    if s["first"] is None:
        if rolls_left != 2 or any(v is not None for k, v in scorecard.items() if k != YAHTZEE_BONUS_KEY):
            return _reference_keep(dice, rolls_left, scorecard)
        s["pending"].append(list(dice))          # games seen before the seed is known: keep all
        if len(s["pending"]) == 3:
            for seed in _find_first(s["pending"][0]):
                ok = True
                for g, seen in enumerate(s["pending"][1:], 1):
                    probe = _r.Random(seed + g)
                    ok = ok and [probe.randint(1, 6) for _ in range(5)] == seen
                if ok:
                    s["first"] = seed
                    break
            if s["first"] is None:
                s["lost"] = True
                return [1, 2, 3, 4, 5]
            s["games"] = []
            s["phase"] = ("keep", 2)
            s["queue"] = [3]                   # the next game to be asked
            s["kept_all"] = {0, 1, 2}
        return [1, 2, 3, 4, 5]
    return _foresee_keep(dice, rolls_left, scorecard)


def _rng(g):
    games = _S["games"]
    while len(games) <= g:
        rng = _r.Random(_S["first"] + len(games))
        [rng.randint(1, 6) for _ in range(5)]
        games.append(rng)
    return games[g]


def _foresee_keep(dice, rolls_left, scorecard):
    s = _S
    g = s["queue"][0]
    rng = _rng(g)
    if rolls_left == 2:
        k1, k2 = _plan(list(dice), scorecard, _next(rng, 10))
        s["plan"][g] = k2
        keep = _positions(dice, k1)
        [rng.randint(1, 6) for _ in range(5 - len(keep))]
        if len(keep) == 5:
            s["kept_all"].add(g)
    else:
        k2 = s["plan"].get(g)
        if k2 is None or not all(list(dice).count(d) >= list(k2).count(d) for d in set(k2)):
            s["lost"] = True
            return _reference_keep(dice, rolls_left, scorecard)
        keep = _positions(dice, k2)
        [rng.randint(1, 6) for _ in range(5 - len(keep))]
    _advance(g, rolls_left)
    return keep


def _advance(g, rolls_left):
    """The next game the grader will ask about (the games in order; those that kept all five
    leave the second re-roll's batch)."""
    s = _S
    s["queue"][0] = None
    total = 1000
    if rolls_left == 2:
        nxt = g + 1
        if nxt < total:
            s["queue"][0] = nxt
            return
        rolling = [x for x in range(total) if x not in s["kept_all"]]
        s["rolling"] = rolling
        s["queue"][0] = rolling[0] if rolling else None
        s["phase"] = ("keep", 1) if rolling else ("box",)
    else:
        rolling = s["rolling"]
        i = rolling.index(g) + 1
        s["queue"][0] = rolling[i] if i < len(rolling) else None
        if s["queue"][0] is None:
            s["phase"] = ("box",)


def choose_category(dice, scorecard):
    s = _S
    if s["first"] is None or s["lost"]:
        return _reference_category(dice, scorecard)
    box = _best_box(list(dice), scorecard)[0]
    s.setdefault("boxed", 0)
    s["boxed"] += 1
    if s["boxed"] == 1000:                    # the round is over: every game's new first roll
        s["boxed"] = 0
        for g in range(1000):
            [_rng(g).randint(1, 6) for _ in range(5)]
        s["kept_all"] = set()
        s["queue"] = [0]
        s["phase"] = ("keep", 2)
    return box
