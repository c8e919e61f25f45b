"""Yahtzee's scenario plan: search seeds and scripts for seeded games that cover every rule.

Used by `python -m autograder scenarios --assignment yahtzee` (the generic verb loads this file and
calls generate() / verify()).  A scenario is INPUT only: a seed, a number of rounds and the lines
typed into the game.  The grader computes every expected die, point and total from the reference
at grading time.

How the search works: the trusted reference is imported into this process, `random` is
seeded, and a small bot answers the game's questions by reading the printed `Dice:` lines
(it never touches the global random; its own choices come from a private Random).  Every game
is observed through thin wrappers around the reference's functions, so each run knows which
rules it exercised (a Joker in each branch, a second Yahtzee, an upper total of exactly 63...).
Each slot of the plan below takes the first seed, from --start-seed on, whose game covers
everything the slot asks for.  verify() replays the committed scripts (no bot) and compares.
"""

from __future__ import annotations

import builtins
import importlib.util
import random
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from autograder import toml as tomllib  # the one TOML shim
from autograder.authoring.scenarios import ScriptExhausted, scripted_input

GAMES_FILE = "games.toml"
DICE_LINE = re.compile(r"^Dice:\s*([1-6](?:\s+[1-6]){4})\s*$")

# ---------------------------------------------------------------------------------------------
# The plan: which games the suites need.  `needs` are covers the game must have; `avoid` must
# not happen (a stage-3 game may hold no bonus and no Joker: a student who has not reached
# stage 4 must be able to pass it).
# ---------------------------------------------------------------------------------------------

PLAN = [
    {"name": "full-game-public", "stage": 3, "rounds": 13, "public": True, "policy": "mixed",
     "needs": ["keep_all_first_roll", "two_rerolls", "invalid_keep", "invalid_category", "forgiving_name",
               "yahtzee_scored"],
     "avoid": ["upper_bonus", "joker"]},
    {"name": "full-game-invalid-answers", "stage": 3, "rounds": 13, "public": False, "policy": "mixed",
     "needs": ["invalid_keep", "invalid_category", "used_category", "keep_none", "keep_all_after_reroll"],
     "avoid": ["upper_bonus", "joker"]},
    {"name": "short-game", "stage": 3, "rounds": 4, "public": False, "policy": "mixed",
     "needs": ["short_game", "keep_all_first_roll", "used_category"],
     "avoid": ["upper_bonus", "joker"]},
    {"name": "second-yahtzee-bonus-forced-upper", "stage": 4, "rounds": 13, "public": True, "policy": "chase",
     "needs": ["yahtzee_bonus", "joker_forced_upper", "upper_bonus"], "avoid": []},
    {"name": "joker-lower-full-value", "stage": 4, "rounds": 13, "public": False, "policy": "lower_first",
     "needs": ["joker_lower", "joker_full_value", "joker_refused"], "avoid": []},
    {"name": "joker-upper-zero", "stage": 4, "rounds": 13, "public": False, "policy": "lower_first",
     "needs": ["joker_upper_zero"], "avoid": []},
    {"name": "scratched-yahtzee-joker", "stage": 4, "rounds": 13, "public": False, "policy": "scratch_yahtzee",
     "needs": ["joker_box_zero", "upper_62"], "avoid": []},
    {"name": "upper-exactly-63", "stage": 4, "rounds": 13, "public": False, "policy": "upper_first",
     "needs": ["upper_63"], "avoid": []},
]

# Covers a game can have (--check compares these).
COVER_HELP = {
    "keep_all_first_roll": "the player keeps all five dice after the first roll of a round",
    "keep_all_after_reroll": "the player keeps all five dice after the second roll",
    "two_rerolls": "a round uses both re-rolls",
    "keep_none": "the player re-rolls all five dice (0 / none)",
    "invalid_keep": "an invalid keep answer is re-prompted",
    "invalid_category": "an unknown category name is re-prompted",
    "used_category": "an already filled category is re-prompted",
    "forgiving_name": "a category typed in another case/spacing",
    "yahtzee_scored": "a Yahtzee scored 50 in the Yahtzee box",
    "short_game": "fewer than 13 rounds",
    "upper_bonus": "the upper total reaches 63 or more",
    "upper_63": "the upper total is exactly 63",
    "upper_62": "the upper total is exactly 62",
    "joker": "a Joker (a Yahtzee with the Yahtzee box filled)",
    "yahtzee_bonus": "a Yahtzee bonus of 100 is earned",
    "yahtzee_bonus_twice": "two Yahtzee bonuses (a third Yahtzee)",
    "joker_forced_upper": "Joker rule 1: the matching upper box is forced",
    "joker_lower": "Joker rule 2: an open lower box",
    "joker_full_value": "a Joker scores Full House / a straight at full value",
    "joker_upper_zero": "Joker rule 3: an open upper box, scored 0",
    "joker_box_zero": "a Joker while the Yahtzee box holds 0 (no bonus)",
    "joker_refused": "a box the Joker rule does not allow is re-prompted",
}


# ---------------------------------------------------------------------------------------------
# Observing the reference
# ---------------------------------------------------------------------------------------------

@dataclass
class RoundLog:
    number: int
    rolls: list = field(default_factory=list)
    keeps: list = field(default_factory=list)
    category: str = ""
    points: int = 0
    joker: bool = False
    final_dice: list = field(default_factory=list)


@dataclass
class GameLog:
    seed: int
    rounds: int
    script: list = field(default_factory=list)
    lines: list = field(default_factory=list)
    round_logs: list = field(default_factory=list)
    covers: set = field(default_factory=set)
    scorecard: dict = field(default_factory=dict)
    total: int | None = None
    error: str = ""


class Reference:
    """The reference module, imported once, with its functions wrapped to observe a game."""

    def __init__(self, path: Path):
        spec = importlib.util.spec_from_file_location("_yahtzee_reference_for_scenarios", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        self.m = module
        self.log: GameLog | None = None
        self.answer = None                      # callable(prompt) -> str
        self.card: dict | None = None
        self.current: RoundLog | None = None
        self.dice: list = []
        self._wrap()

    # -- instrumentation ------------------------------------------------------------------------
    def _wrap(self) -> None:
        m = self.m
        orig = {name: getattr(m, name) for name in (
            "roll_dice", "new_scorecard", "play_round", "ask_keep", "parse_keep", "find_category",
            "joker_categories", "joker_score", "yahtzee_bonus", "is_joker", "ask_category")}
        self.orig = orig
        ref = self

        def roll_dice(count=m.NUM_DICE):
            values = orig["roll_dice"](count)
            if ref.current is not None:
                ref.current.rolls.append(list(values))
            return values

        def new_scorecard():
            ref.card = orig["new_scorecard"]()
            return ref.card

        def play_round(scorecard):
            ref.current = RoundLog(len(ref.log.round_logs) + 1)
            ref.log.round_logs.append(ref.current)
            category, points = orig["play_round"](scorecard)
            ref.current.category, ref.current.points = category, points
            ref.current.final_dice = list(ref.dice)
            return category, points

        def ask_keep():
            keep = orig["ask_keep"]()
            rnd = ref.current
            if rnd is not None:
                rnd.keeps.append(keep)
                if len(keep) == m.NUM_DICE:
                    ref.log.covers.add("keep_all_first_roll" if len(rnd.keeps) == 1 else "keep_all_after_reroll")
                elif not keep:
                    ref.log.covers.add("keep_none")
                if len(rnd.keeps) == 2 and len(keep) < m.NUM_DICE:
                    ref.log.covers.add("two_rerolls")
            return keep

        def parse_keep(text):
            try:
                return orig["parse_keep"](text)
            except ValueError:
                ref.log.covers.add("invalid_keep")
                raise

        def find_category(text):
            category = orig["find_category"](text)
            if category is None:
                ref.log.covers.add("invalid_category")
            else:
                if text != category:
                    ref.log.covers.add("forgiving_name")
                card = ref.card or {}
                if card.get(category) is not None:
                    ref.log.covers.add("used_category")
                elif category not in ref.allowed:
                    ref.log.covers.add("joker_refused")
            return category

        def is_joker(dice, scorecard):
            joker = orig["is_joker"](dice, scorecard)
            if joker:
                ref.log.covers.add("joker")
                if ref.current is not None:
                    ref.current.joker = True
                if scorecard["Yahtzee"] == 0:
                    ref.log.covers.add("joker_box_zero")
            return joker

        def yahtzee_bonus(scorecard):
            bonus = orig["yahtzee_bonus"](scorecard)
            if bonus:
                ref.log.covers.add("yahtzee_bonus_twice" if "yahtzee_bonus" in ref.log.covers else "yahtzee_bonus")
            return bonus

        def joker_categories(dice, scorecard):
            allowed = orig["joker_categories"](dice, scorecard)
            matching = m.UPPER_CATEGORIES[dice[0] - 1]
            if allowed == [matching]:
                ref.log.covers.add("joker_forced_upper")
            elif all(c in m.LOWER_CATEGORIES for c in allowed):
                ref.log.covers.add("joker_lower")
            else:
                ref.log.covers.add("joker_upper_zero")
            return allowed

        def joker_score(category, dice):
            if category in ("Full House", "Small Straight", "Large Straight"):
                ref.log.covers.add("joker_full_value")
            return orig["joker_score"](category, dice)

        def ask_category(scorecard, allowed):
            ref.allowed = list(allowed)
            return orig["ask_category"](scorecard, allowed)

        for name, func in list(locals().items()):
            if name in orig:
                setattr(m, name, func)
        m.input = self._input
        m.print = self._print

    def _print(self, *args, sep=" ", end="\n", file=None, flush=False):
        if file not in (None, sys.stdout):
            return builtins.print(*args, sep=sep, end=end, file=file, flush=flush)
        text = sep.join(str(a) for a in args) + end
        for line in text.split("\n")[:-1] if text.endswith("\n") else text.split("\n"):
            self.log.lines.append(line)
            match = DICE_LINE.match(line.strip())
            if match:
                self.dice = [int(v) for v in match.group(1).split()]

    def _input(self, prompt=""):
        answer = self.answer(prompt)
        self.log.script.append(answer)
        return answer

    # -- running --------------------------------------------------------------------------------
    def play(self, seed: int, rounds: int, answer) -> GameLog:
        """Play one seeded game; ANSWER(prompt) gives each typed line."""
        self.log = GameLog(seed=seed, rounds=rounds)
        self.card, self.current, self.dice, self.answer = None, None, [], answer
        self.allowed = []
        state = random.getstate()
        random.seed(seed)
        try:
            self.log.total = self.m.play_game(rounds)
        except ScriptExhausted as err:
            self.log.error = str(err)
        finally:
            random.setstate(state)
        self._finish()
        return self.log

    def replay(self, seed: int, rounds: int, script: list[str]) -> GameLog:
        scripted, answer = scripted_input(script)
        log = self.play(seed, rounds, answer)
        log.script = list(script)
        unread = len(scripted.answers_left())
        if not log.error and unread:
            log.error = f"{unread} script lines were never read"
        return log

    def _finish(self) -> None:
        log, m = self.log, self.m
        card = self.card or {}
        log.scorecard = dict(card)
        if log.rounds < m.NUM_ROUNDS:
            log.covers.add("short_game")
        upper = sum(card.get(c) or 0 for c in m.UPPER_CATEGORIES)
        if upper >= m.UPPER_BONUS_THRESHOLD:
            log.covers.add("upper_bonus")
        if upper == 63:
            log.covers.add("upper_63")
        if upper == 62:
            log.covers.add("upper_62")
        if card.get("Yahtzee") == m.YAHTZEE_POINTS and any(
                r.category == "Yahtzee" for r in log.round_logs):
            log.covers.add("yahtzee_scored")


# ---------------------------------------------------------------------------------------------
# The bot
# ---------------------------------------------------------------------------------------------

KEEP_ALL = ["", "all", "ALL", "12345", " all "]
KEEP_NONE = ["0", "none", " 0", "NONE"]
BAD_KEEPS = ["6", "1 1", "abc", "7 2", "1 2 3 4 5 6", "x", "-1", "3.5"]
BAD_NAMES = ["Small", "", "Full Houses", "sixs", "bonus", "Yahtzees", "4 of a kind", "upper"]


class Bot:
    """Answers the reference's questions.  Its choices come from its own Random, never the global one."""

    def __init__(self, ref: Reference, policy: str, seed: int, invalid_rate: float = 0.12):
        self.ref = ref
        self.m = ref.m
        self.policy = policy
        self.rng = random.Random(f"{policy}:{seed}")
        self.invalid_rate = invalid_rate
        self.pending: list[str] = []
        self.keep_asks = 0
        self.round_seen = None

    def __call__(self, prompt: str) -> str:
        if self.pending:
            return self.pending.pop(0)
        if prompt.startswith("Keep"):
            return self._keep()
        return self._category()

    # -- keeping ---------------------------------------------------------------------------------
    def _keep(self) -> str:
        dice = self.ref.dice
        rnd = self.ref.current
        first = len(rnd.keeps) == 0 if rnd else True
        positions = self._choose_keep(dice, first)
        answer = self._spell_keep(positions)
        if self.rng.random() < self.invalid_rate:
            self.pending.append(answer)
            return self.rng.choice(BAD_KEEPS)
        return answer

    def _choose_keep(self, dice: list[int], first: bool) -> list[int]:
        m, card = self.m, self.ref.card
        counts = m.face_counts(dice)
        if len(counts) == 1:
            return [1, 2, 3, 4, 5]
        if self.rng.random() < (0.12 if first else 0.2):
            return [1, 2, 3, 4, 5]                     # stop early now and then
        if self.rng.random() < 0.05:
            return []                                  # re-roll everything now and then
        faces = set(dice)
        if card is not None and card.get("Large Straight") is None and faces in m.LARGE_STRAIGHTS:
            return [1, 2, 3, 4, 5]
        if card is not None and card.get("Small Straight") is None and self.policy != "chase":
            for straight in m.SMALL_STRAIGHTS:
                if straight <= faces and self.rng.random() < 0.7:
                    keep, seen = [], set()
                    for pos, die in enumerate(dice, 1):
                        if die in straight and die not in seen:
                            keep.append(pos)
                            seen.add(die)
                    return keep
        best = max(counts.values())
        candidates = [f for f, n in counts.items() if n == best]
        if self.policy == "upper_first" and card is not None:
            open_faces = [f for f in candidates if card.get(m.UPPER_CATEGORIES[f - 1]) is None]
            candidates = open_faces or candidates
        target = max(candidates) if self.rng.random() < 0.6 else self.rng.choice(candidates)
        return [pos for pos, die in enumerate(dice, 1) if die == target]

    def _spell_keep(self, positions: list[int]) -> str:
        if len(positions) == 5:
            return self.rng.choice(KEEP_ALL)
        if not positions:
            return self.rng.choice(KEEP_NONE)
        style = self.rng.random()
        digits = [str(p) for p in positions]
        if style < 0.4:
            return " ".join(digits)
        if style < 0.7:
            return "".join(digits)
        if style < 0.85:
            return ",".join(digits)
        return " ".join(reversed(digits))

    # -- choosing a category --------------------------------------------------------------------
    def _category(self) -> str:
        m, card, dice = self.m, self.ref.card, self.ref.dice
        joker = self.ref.orig["is_joker"](dice, card)
        allowed = list(self.ref.allowed)
        choice = self._choose_category(dice, card, allowed, joker)
        answer = self._spell_name(choice)
        roll = self.rng.random()
        if joker and roll < 0.6:
            refused = [c for c in m.open_categories(card) if c not in allowed]
            if refused:
                self.pending.append(answer)
                return self.rng.choice(refused)
        if roll < self.invalid_rate:
            self.pending.append(answer)
            return self.rng.choice(BAD_NAMES)
        if roll < 2 * self.invalid_rate:
            used = [c for c in m.CATEGORIES if card[c] is not None]
            if used:
                self.pending.append(answer)
                return self._spell_name(self.rng.choice(used))
        return answer

    def _choose_category(self, dice, card, allowed, joker) -> str:
        m = self.m
        best, best_value = allowed[0], None
        rounds_done = sum(card[c] is not None for c in m.CATEGORIES)
        for category in allowed:
            points = self.ref.orig["joker_score"](category, dice) if joker else m.score(category, dice)
            value = float(points)
            if category in m.UPPER_CATEGORIES:
                face = m.UPPER_CATEGORIES.index(category) + 1
                value += 8 if points >= 3 * face else -0.5 * face
                if self.policy == "upper_first":
                    value += 25
                if self.policy == "lower_first":
                    value -= 40
            else:
                if self.policy == "lower_first":
                    value += 40
                if category == "Chance":
                    value -= 12
                if category == "Yahtzee" and points == 0:
                    scratch_early = self.policy == "scratch_yahtzee" and rounds_done < 3
                    value += 30 if scratch_early else -25
            value += self.rng.random() * 3
            if best_value is None or value > best_value:
                best, best_value = category, value
        return best

    def _spell_name(self, category: str) -> str:
        style = self.rng.random()
        if style < 0.7:
            return category
        if style < 0.8:
            return category.lower()
        if style < 0.9:
            return category.upper().replace(" ", "")
        return " " + category.replace(" ", "_").lower() + " "


# ---------------------------------------------------------------------------------------------
# Search, write, check
# ---------------------------------------------------------------------------------------------

def search(ref: Reference, plan: list[dict], start_seed: int, max_seed_tries: int = 200_000,
           verbose: bool = False) -> list[dict]:
    chosen: list[dict] = []
    used_seeds: set[int] = set()
    for slot in plan:
        found = None
        for seed in range(start_seed, start_seed + max_seed_tries):
            if seed in used_seeds:
                continue
            bot = Bot(ref, slot["policy"], seed)
            log = ref.play(seed, slot["rounds"], bot)
            if log.error:
                continue
            if set(slot["needs"]) <= log.covers and not set(slot["avoid"]) & log.covers:
                # the script must replay to the very same game without the bot
                again = ref.replay(seed, slot["rounds"], log.script)
                if again.error or again.covers != log.covers or again.total != log.total:
                    continue
                found = log
                break
        if found is None:
            raise RuntimeError(f"no seed from {start_seed} covers {slot['name']}: {slot['needs']}")
        used_seeds.add(found.seed)
        if verbose:
            print(f"  {slot['name']}: seed {found.seed}, total {found.total}, covers {sorted(found.covers)}",
                  file=sys.stderr)
        chosen.append({
            "name": slot["name"], "stage": slot["stage"], "public": slot["public"], "seed": found.seed,
            "rounds": slot["rounds"], "covers": sorted(found.covers), "script": list(found.script),
            "rounds_log": found.round_logs,
        })
    return chosen


def _toml_str(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\t", "\\t") + '"'


def render(games: list[dict], start_seed: int) -> str:
    out = [
        "# Seeded game scenarios: INPUT ONLY.  Expected dice, points and totals come from the reference",
        "# at grading time.  Generated by `python -m autograder scenarios --start-seed "
        f"{start_seed}`; check with --check.",
        "# covers = the rules this game exercises (verified against the reference by --check).",
        "# script = the lines typed, one list per round (the grader feeds them as one flat list).",
        "",
    ]
    for game in games:
        out.append("[[game]]")
        out.append(f"name = {_toml_str(game['name'])}")
        out.append(f"stage = {game['stage']}")
        out.append(f"public = {'true' if game['public'] else 'false'}")
        out.append(f"seed = {game['seed']}")
        out.append(f"rounds = {game['rounds']}")
        out.append("covers = [" + ", ".join(_toml_str(c) for c in game["covers"]) + "]")
        out.append("script = [")
        rows = split_rounds(game["script"], game.get("rounds_log"))
        for row in rows:
            out.append("    [" + ", ".join(_toml_str(s) for s in row) + "],")
        out.append("]")
        out.append("")
    return "\n".join(out)


def split_rounds(script: list[str], round_logs) -> list[list[str]]:
    """Group a flat script by round (for the reader only): each round ends with its category answer."""
    if not round_logs:
        return [script]
    rows, row = [], []
    names = {c.lower().replace(" ", "").replace("_", "") for c in CATEGORY_NAMES}
    for text in script:
        row.append(text)
        norm = text.lower().replace(" ", "").replace("_", "").replace("\t", "").replace("-", "")
        if norm in names and len(rows) < len(round_logs):
            # the category answer that the round accepted ends the round
            accepted = round_logs[len(rows)].category
            if norm == accepted.lower().replace(" ", ""):
                rows.append(row)
                row = []
    if row:
        rows.append(row)
    return rows


CATEGORY_NAMES = ["Ones", "Twos", "Threes", "Fours", "Fives", "Sixes", "Three of a Kind", "Four of a Kind",
                  "Full House", "Small Straight", "Large Straight", "Yahtzee", "Chance"]


def flat_script(game: dict) -> list[str]:
    script = game["script"]
    if script and isinstance(script[0], list):
        return [line for row in script for line in row]
    return list(script)


def load_games(path: Path) -> list[dict]:
    return tomllib.loads(path.read_text(encoding="utf-8"))["game"]


def check(ref: Reference, path: Path) -> list[str]:
    """Problems with the scenarios at PATH against the current reference (empty when all is well)."""
    problems = []
    for game in load_games(path):
        log = ref.replay(game["seed"], game["rounds"], flat_script(game))
        if log.error:
            problems.append(f"{game['name']}: the reference does not finish the script: {log.error}")
            continue
        missing = set(game["covers"]) - log.covers
        if missing:
            problems.append(f"{game['name']}: no longer covers {sorted(missing)}")
        slot = next((s for s in PLAN if s["name"] == game["name"]), None)
        if slot and set(slot["avoid"]) & log.covers:
            problems.append(f"{game['name']}: now has {sorted(set(slot['avoid']) & log.covers)}, "
                            f"which a stage-{game['stage']} game must avoid")
    return problems




# ---------------------------------------------------------------------------------------------
# What the `scenarios` verb calls
# ---------------------------------------------------------------------------------------------

FILE = GAMES_FILE           # the scenario file of scenarios/ this plan writes


def generate(reference: Path, start_seed: int, verbose: bool = False) -> tuple[str, int]:
    """(the text of a fresh games.toml, how many games) from seeds START_SEED on."""
    games = search(Reference(reference), PLAN, start_seed, verbose=verbose)
    return render(games, start_seed), len(games)


def verify(reference: Path, path: Path) -> tuple[list[str], int]:
    """(problems of the scenarios at PATH against the reference, how many scenarios)."""
    return check(Reference(reference), path), len(load_games(path))
