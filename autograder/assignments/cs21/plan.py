"""CS21's scenario plan: seeded whole games found by a small bot, for `python -m autograder scenarios
--assignment cs21` (a fresh hidden set for a new term: --out DIR --start-seed N).

A scenario is INPUT only: a seed and the 39 lines typed into playGame().  The grader computes
every die, point and total from the reference at grading time.  The bot plays the reference
in this process after random.seed(seed): it reads the printed `Value:` and slot lines, keeps the
most common face (re-rolling the other dice, typed in a random case and order) and scores the
open slot worth most.  Each slot of PLAN takes the first seed, from --start-seed on, whose game
covers what it needs; verify() replays the committed answers (no bot) and checks the covers.
"""

from __future__ import annotations

import builtins
import contextlib
import importlib.util
import io
import random
import re
from pathlib import Path

from autograder import toml as tomllib  # the one TOML shim
from autograder.authoring.scenarios import scripted_input
from autograder.engine.scripted import Scripted

FILE = "seeded.toml"
LETTERS = "ABCDE"
VALUE = re.compile(r"^Value:\s+([1-6](?:\s+[1-6]){4})\s*$")
SCORE = re.compile(r"^(Ones|Twos|Threes|Fours|Fives|Sixes|3/Kind|4/Kind|Full Hse|Sm Strt|Lg Strt|Chance|Yahtzee)"
                   r"\s+(\d+)\s*$")
FINAL = re.compile(r"^(Upper bonus|Yahtzee bonus|Total)\s+(\d+)\s*$")
MAX_SEEDS = 2000

# The games the suites need: `needs` are covers the game must have.
PLAN = [
    {"why": "a seeded game with re-rolls: the RNG contract", "needs": {"rerolls"}, "public": True,
     "hint": "The RNG contract: random.randint(1, 6) per die, A to E in roll, only the named dice in letter "
             "order in reroll, nothing else random."},
    {"why": "a seeded game that reaches the upper bonus", "needs": {"rerolls", "upper_bonus"}},
    {"why": "a seeded game with a Yahtzee", "needs": {"rerolls", "yahtzee"}},
]


def _load(reference: Path):
    spec = importlib.util.spec_from_file_location("cs21_plan_reference", reference)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def play(reference: Path, seed: int, answers: list[str] | None = None) -> tuple[list[str], set[str], str]:
    """Play playGame() after random.seed(SEED), typing ANSWERS (or the bot's, when None):
    (the answers typed, the covers seen, the output)."""
    module = _load(reference)
    out = io.StringIO()
    typed: list[str] = []
    scripted, scripted_answer = scripted_input(answers) if answers is not None else (None, None)
    bot = random.Random(seed * 7919 + 1)
    used: set[str] = set()
    covers: set[str] = set()

    def answer(prompt: str = "") -> str:
        lines = out.getvalue().splitlines()
        shown = next((VALUE.match(line) for line in reversed(lines) if VALUE.match(line)), None)
        dice = [int(d) for d in shown[1].split()] if shown else []
        if prompt.startswith("Choose") and dice and len(set(dice)) == 1:
            covers.add("yahtzee")                     # a Yahtzee to score
        if scripted_answer is not None:
            text = scripted_answer(prompt)
        elif prompt.startswith("Enter dice"):
            keep = max(range(1, 7), key=lambda face: (dice.count(face), face))
            letters = [LETTERS[i] for i, die in enumerate(dice) if die != keep]
            bot.shuffle(letters)
            text = " ".join(letters) if bot.random() < 0.3 else "".join(letters)
            text = text.lower() if bot.random() < 0.3 else text
        else:
            table = [SCORE.match(line) for line in lines[-13:]]
            options = [(int(m[2]), m[1]) for m in table if m and m[1] not in used]
            slot = max(options, key=lambda option: option[0])[1]      # first of the best (max is stable)
            used.add(slot)
            text = slot
        if prompt.startswith("Enter dice") and text.strip():
            covers.add("rerolls")
        typed.append(text)
        out.write(Scripted.echo(prompt, text))
        return text

    random.seed(seed)
    saved = builtins.input
    builtins.input = answer
    try:
        with contextlib.redirect_stdout(out):
            module.playGame()
    finally:
        builtins.input = saved
    if scripted is not None and scripted.has_answer():
        raise RuntimeError(f"the game ended with {len(scripted.answers_left())} answers unused")
    text = out.getvalue()
    finals = {m[1]: int(m[2]) for m in map(FINAL.match, text.splitlines()) if m}
    if finals.get("Upper bonus"):
        covers.add("upper_bonus")
    return typed, covers, text


def generate(reference: Path, start_seed: int, verbose: bool = False) -> tuple[str, int]:
    """(the text of a fresh seeded.toml, how many games) from seeds START_SEED on."""
    games, first = [], start_seed
    for slot in PLAN:
        for seed in range(first, first + MAX_SEEDS):
            answers, covers, _ = play(reference, seed)
            if slot["needs"] <= covers:
                games.append({**slot, "seed": seed, "answers": answers})
                if verbose:
                    print(f"{slot['why']}: seed {seed}")
                first = seed + 1            # each game a seed of its own
                break
        else:
            raise RuntimeError(f"no seed in {MAX_SEEDS} covers {sorted(slot['needs'])} ({slot['why']})")
    return render(games, start_seed), len(games)


def render(games: list[dict], start_seed: int) -> str:
    lines = ["# CS21's seeded whole games (problem 16), written by `python -m autograder scenarios --assignment",
             f"# cs21` from seed {start_seed} on (autograder/assignments/cs21/plan.py): inputs only, the grader",
             "# computes every die and point from the reference.  `needs`: what the game covers.", ""]
    for game in games:
        lines += ["[[game]]", f"why = {game['why']!r}".replace("'", '"'), "problem = 16", f"seed = {game['seed']}",
                  f"needs = {sorted(game['needs'])!r}".replace("'", '"')]
        if game.get("public"):
            lines.append("public = true")
        if game.get("hint"):
            lines.append(f"hint = {_quoted(game['hint'])}")
        lines.append("answers = [" + ", ".join(_quoted(a) for a in game["answers"]) + "]")
        lines.append("")
    return "\n".join(lines)


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def verify(reference: Path, path: Path) -> tuple[list[str], int]:
    """(problems of the scenarios at PATH against the reference, how many scenarios)."""
    games = tomllib.loads(path.read_text(encoding="utf-8")).get("game", [])
    problems = []
    for game in games:
        try:
            _, covers, _ = play(reference, game["seed"], game["answers"])
        except RuntimeError as err:
            problems.append(f"{game['why']}: {err}")
            continue
        missing = set(game.get("needs", ())) - covers
        if missing:
            problems.append(f"{game['why']}: no longer covers {sorted(missing)}")
    return problems, len(games)
