"""The scenario plan of SWE3006's whole games (`python -m autograder scenarios --assignment swe3006`).

scenarios/games.toml is generated from PLAN: each game's answers follow a pattern (plain turns,
re-rolls with the score sheet, bad answers everywhere ...) over an order of the categories, one
seed per game from START_SEED on.  A game that must end in a tie searches its seed: the first
one from its start on where the reference's two players end equal.  `--out DIR --start-seed N`
writes a fresh set for a new term; `--check` replays the committed file on the reference: every
game reaches its end and every tie game ties.  Inputs only: expected values come from the
reference at grading time.
"""

from __future__ import annotations

import builtins
import contextlib
import io
import json
import random
import sys
from pathlib import Path

from autograder import toml as tomllib  # the one TOML shim

FILE = "games.toml"
START_SEED = 1               # the verb's default: seeds 101.., 201.., a tie searched from 300
CATEGORIES = ["Aces", "Twos", "Threes", "Fours", "Fives", "Sixes", "Chance", "Three of a Kind",
              "Four of a Kind", "Full House", "Small Straight", "Large Straight", "Yahtzee"]
ORDERS = {"table": CATEGORIES, "reversed": CATEGORIES[::-1], "lower first": CATEGORIES[6:] + CATEGORIES[:6]}

# id, problem, public, mode answers, each player's (pattern, order), answers after the end,
# a flood of bad menu answers, whether the game must end in a tie, the hint; `integration`: the
# stage's own_functions check (the student's own methods of every stage, none substituted).
PLAN = [
    dict(id="a plain game: roll once, record in order", problem=11, public=True, mode=["1"],
         players=[("plain", "table")],
         hint="13 rounds: each asks the menu, rolls, asks about re-rolling, records; then the game is over."),
    dict(id="re-rolls and the score sheet on request", problem=11, mode=["1"], players=[("rerolls", "reversed")],
         hint="Option 2 shows the sheet and asks the menu again in the same round; only option 1 plays the turn."),
    dict(id="bad answers everywhere", problem=11, integration=True, mode=["", "3", "1"],
         players=[("bad", "lower first")],
         hint="Every question (mode, menu, re-roll, positions, category) refuses a bad answer with its "
              "[WARN] line and asks again."),
    dict(id="a new game after Enter", problem=11, mode=["1"], players=[("rerolls", "table")], end=["", "2"],
         hint="After \"Press Enter to start a new game.\" the next answer starts a new game: the mode "
              "question again, everything reset."),
    dict(id="a flood of bad answers in a game", problem=11, mode=["1"], players=[("plain", "reversed")],
         flood=300, hint="Keep asking for as long as the answers are bad (a loop, not a fixed number of tries)."),
    dict(id="two players alternate", problem=12, public=True, mode=["2"],
         players=[("plain", "table"), ("plain", "reversed")],
         hint="Player 1, then player 2 in the same round, then the next round: 26 turns, each player with "
              "their own sheet."),
    dict(id="two players with re-rolls and sheets", problem=12, integration=True, mode=["2"],
         players=[("rerolls", "lower first"), ("bad", "table")],
         hint="Option 2 shows the CURRENT player's sheet; each player records in their own."),
    dict(id="the winner of a two-player game", problem=13, mode=["2"],
         players=[("rerolls", "reversed"), ("plain", "lower first")],
         hint="After 26 turns: both players' tables and final scores, then the player with the higher "
              "total wins."),
    dict(id="a two-player game that ends in a tie", problem=13, mode=["2"], tie=True,
         players=[("plain", "table"), ("plain", "reversed")], hint="Equal totals after 26 turns: \"It's a tie!\"."),
]
FLOOD_ANSWER = "?"


def turns(pattern: str, order: str) -> list[list[str]]:
    """A player's 13 turns: each its answers, ending with the category (ORDER's next one)."""
    out = []
    for i, category in enumerate(ORDERS[order]):
        if pattern == "plain":
            turn = ["1", "n", category]
        elif pattern == "rerolls":
            turn = [["1", "y", "1 2", "n", category], ["1", "y", "", "y", "3 4 5", category],
                    ["2", "1", "n", category], ["1", "Y", "5", "N", category]][i % 4]
        else:                                     # bad answers to every question
            turn = [["x", "1", "maybe", "y", "1 1", "9", "2", "n", "Nope", category],
                    ["", "2", "1", "n", category.lower(), category],
                    ["1", "y", "asdf", "1 3 5", "y", "6", "", category]][i % 3]
        out.append(turn)
    return out


def script(game: dict) -> list[str]:
    """The answers of GAME (as the suites build them: the mode, the turns alternating, the end)."""
    answers = list(game["mode"])
    players = game["players"]
    for turn in range(len(players[0])):
        for number, player in enumerate(players):
            if turn == 0 and number == 0 and game.get("flood"):
                answers += [game["flood_answer"]] * game["flood"]
            answers += list(player[turn])
    return answers + list(game.get("end", []))


class _Done(Exception):
    pass


def play(reference: Path, seed: int, answers: list[str]):
    """The reference's YahtzeeGame().play() with random.seed(SEED) and ANSWERS, in this process,
    until the answers run out: (the game object, what it printed)."""
    namespace: dict = {"__name__": "swe3006_reference"}
    exec(compile(reference.read_text(encoding="utf-8"), str(reference), "exec"), namespace)
    feed = iter(answers)
    printed = io.StringIO()

    def answer(prompt: str = "") -> str:
        printed.write(prompt)
        try:
            return next(feed)
        except StopIteration:
            raise _Done from None
    game = namespace["YahtzeeGame"]()
    random.seed(seed)
    saved, builtins.input = builtins.input, answer
    try:
        with contextlib.redirect_stdout(printed):
            game.play()
    except _Done:
        pass
    finally:
        builtins.input = saved
    return game, printed.getvalue()


def _ties(reference: Path, game: dict, seed: int) -> bool:
    played, _ = play(reference, seed, script(game))
    totals = [sum(sheet.values()) for sheet in played.recorded_score_sheet]
    return played.current_round == 14 and len(totals) == 2 and totals[0] == totals[1]


def generate(reference: Path, start_seed: int = START_SEED, verbose: bool = False) -> tuple[str, int]:
    """The text of games.toml for seeds from START_SEED on (a tie game searches its seed)."""
    games = []
    for index, spec in enumerate(PLAN):
        offset = 100 + index if spec["problem"] == 11 else 200 + index - 5   # one-player games, then two
        game = dict(spec, players=[turns(p, o) for p, o in spec["players"]], seed=start_seed + offset)
        if game.get("flood"):
            game["flood_answer"] = FLOOD_ANSWER
        if game.get("tie"):
            seed = start_seed + 299
            while not _ties(reference, game, seed):
                seed += 1
            game["seed"] = seed
        if verbose:
            print(f"{game['id']}: seed {game['seed']}", file=sys.stderr)
        games.append(game)
    return render(games), len(games)


def render(games: list[dict]) -> str:
    lines = ["# Whole games: YahtzeeGame().play() with a seed and scripted answers (inputs only: the expected",
             "# transcript comes from the reference).  GENERATED by plan.py (python -m autograder scenarios",
             "# --assignment swe3006).  `mode`: the answers to the mode question; `players`: each player's",
             "# 13 turns, each turn its answers (menu option, re-roll questions, positions, the category);",
             "# turns alternate between the players; `end`: answers after the last turn (\"\" is Enter for",
             "# a new game); `flood`: that many bad answers to the first menu; `tie`: the seed was searched",
             "# so that the reference's two players end equal.  A game ends when its answers run out: that",
             "# is normal (the program offers new games for ever).", ""]
    for game in games:
        lines += ["[[game]]", f"id = {json.dumps(game['id'])}", f"hint = {json.dumps(game['hint'])}",
                  f"problem = {game['problem']}", f"seed = {game['seed']}"]
        if game.get("public"):
            lines.append("public = true")
        if game.get("integration"):
            lines.append("integration = true")
        if game.get("tie"):
            lines.append("tie = true")
        if game.get("flood"):
            lines += [f"flood = {game['flood']}", f"flood_answer = {json.dumps(game['flood_answer'])}"]
        lines += [f"mode = {json.dumps(game['mode'])}", "players = ["]
        for player in game["players"]:
            lines.append("  [")
            lines += [f"    {json.dumps(turn)}," for turn in player]
            lines.append("  ],")
        lines += ["]", f"end = {json.dumps(game.get('end', []))}", ""]
    return "\n".join(lines)


def verify(reference: Path, path: Path) -> tuple[list[str], int]:
    """Problems with the scenario file PATH: a game the reference does not play to its end
    (Game Over), a tie game that does not tie."""
    games = tomllib.loads(path.read_text(encoding="utf-8"))["game"]
    problems = []
    for game in games:
        played, printed = play(reference, game["seed"], script(game))
        if "Game Over! Final Scores:" not in printed:
            problems.append(f"{game['id']}: the reference's game does not reach its end")
        if game.get("tie") and not _ties(reference, game, game["seed"]):
            problems.append(f"{game['id']}: seed {game['seed']} no longer ends in a tie")
    return problems, len(games)
