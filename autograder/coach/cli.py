"""`python -m autograder coach`: the optimum, advice for a position, or a review of a finished game."""

from __future__ import annotations

import argparse
import sys

EXAMPLES = """examples:
  python -m autograder coach --optimum                          optimal expected score (official rules)
  python -m autograder coach --optimum --joker free             Verhoeff/Glenn's Joker convention
  python -m autograder coach --dice "3 3 5 2 6" --rolls-left 2  advice after the first roll of a game
  python -m autograder coach --card "Ones=3, Full House=25, Yahtzee=50" --dice "4 4 4 4 4" --rolls-left 0
  python -m autograder coach --dice "1 2 3 4 6" --target 250    also: the chance of reaching 250
  python -m autograder coach --review game.txt --plot game.png  review a finished game (transcript)

The first use of a rules set computes its table (a few seconds) and caches it in ~/.cache/yahtzee-kit."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = EXAMPLES
    parser.add_argument("--optimum", action="store_true",
                        help="print the expected final score of optimal play (last line: the number)")
    parser.add_argument("--joker", choices=["forced", "free", "none"], default="forced",
                        help="Joker convention: forced (the kit's official rule, default), free "
                             "(Verhoeff 1999 / Glenn 2006), none")
    parser.add_argument("--no-bonus", action="store_true", help="no Yahtzee bonus (and, unless --joker says "
                        "otherwise, no Joker: the classic 245.87 variant)")
    parser.add_argument("--card", default="", help='filled boxes, e.g. "Ones=3, Full House=25, bonus=100" '
                        "(bonus: the Yahtzee bonus points so far); default: a new game")
    parser.add_argument("--dice", help='the five dice in position order, e.g. "3 3 5 2 6"')
    parser.add_argument("--rolls-left", type=int, choices=[0, 1, 2], default=2,
                        help="re-rolls left: 2 after the first roll (default), 0 when the dice must be scored")
    parser.add_argument("--alternatives", type=int, default=5, help="how many next-best options to show (default 5)")
    parser.add_argument("--target", type=int, help="also estimate the chance of reaching this final score")
    parser.add_argument("--review", metavar="FILE", help="review a finished game: a play_game transcript or a "
                        "terminal session pasted into a file")
    parser.add_argument("--plot", metavar="PNG", help="with --review: write the expected-score plot here")


def rules_of(args: argparse.Namespace):
    from .solver import Rules

    joker = args.joker
    if args.no_bonus and "--joker" not in sys.argv and joker == "forced":
        joker = "none"
    return Rules(joker, not args.no_bonus)


def parse_card(text: str) -> dict:
    """A kit scorecard from "Name=points, ..."; raise ValueError with a clear message."""
    from .solver import kit

    m = kit()
    card = m.new_scorecard()
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"expected NAME=POINTS in --card, got {item!r}")
        try:
            points = int(value.strip())
        except ValueError:
            raise ValueError(f"points must be a whole number in --card, got {item!r}") from None
        if m.normalize_name(name) in ("bonus", m.normalize_name(m.YAHTZEE_BONUS_KEY)):
            card[m.YAHTZEE_BONUS_KEY] = points
            continue
        category = m.find_category(name)
        if category is None:
            raise ValueError(f"unknown box {name.strip()!r} in --card; boxes: {', '.join(m.CATEGORIES)}")
        card[category] = points
    if all(card[c] is not None for c in m.CATEGORIES):
        raise ValueError("every box is filled: the game is over")
    return card


def parse_dice(text: str) -> list[int]:
    from .solver import kit

    try:
        dice = [int(v) for v in text.replace(",", " ").split()]
    except ValueError:
        raise ValueError(f"--dice takes five numbers from 1 to 6, got {text!r}") from None
    kit().check_dice(dice)
    return dice


def run(args: argparse.Namespace) -> int:
    from . import advice, review, solver

    rules = rules_of(args)
    if args.optimum:
        value = solver.optimum(rules, dtype=solver.np.float64)
        print(f"optimal expected final score, {rules.label}:")
        print(f"{value:.8f}")
        return 0
    if args.review:
        try:
            result = review.review_file(args.review, rules)
        except OSError as err:
            print(f"error: cannot read {args.review}: {err.strerror}", file=sys.stderr)
            return 2
        except review.GameTextError as err:
            print(f"error: {args.review}: {err}", file=sys.stderr)
            return 2
        print(review.format_review(result))
        if args.plot:
            print(f"plot: {review.plot_review(result, args.plot)}")
        return 0
    if not args.dice:
        print("error: give --optimum, --review FILE, or a position (--dice, and --card/--rolls-left)",
              file=sys.stderr)
        return 2
    try:
        card = parse_card(args.card)
        dice = parse_dice(args.dice)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    options = advice.advise(card, dice, args.rolls_left, rules)
    best, rest = options[0], options[1:1 + max(0, args.alternatives)]
    what = "keep" if args.rolls_left else "score"
    print(f"dice {' '.join(map(str, dice))}, {args.rolls_left} re-roll(s) left; {rules.label}")
    points = f" for {best.points} points" if best.action == "score" else ""
    print(f"best: {best.label}{points}: expected final score {best.value:.2f}")
    if rest:
        print(f"next best ({what}):")
        for o in rest:
            points = f" ({o.points})" if o.action == "score" else ""
            print(f"  {o.label + points:<28} {o.value:8.2f}   regret {o.regret:.2f}")
    if args.target is not None:
        games = 2000
        scores = advice.simulate(card, games, rules, dice=dice, rolls_left=args.rolls_left)
        p = float((scores >= args.target).mean())
        half = 1.96 * (p * (1 - p) / games) ** 0.5
        print(f"chance of reaching {args.target} playing for the best mean: {100 * p:.1f}% "
              f"(+/- {100 * half:.1f}, {games} simulated games)")
    return 0
