"""The strategy contest in the class report: a leaderboard, and each student's score distribution.

Read from the stored grades: the stage-5 check "Mean score of 1,000 games" says the mean and the
histogram in its feedback text (passed or not), so nothing else has to be stored.  That text is
the grader's, but other checks' outputs (and a stopped contest's) hold what a program said: an
exception message can spell "Your strategy's mean: 299.99 ..." and a histogram line.  So the
result is read only from the mean check's own rows (their test id), only when the whole output is
the grader's sentence (fullmatch, ASCII digits, a histogram whose counts add up to the games):
a program's text never reaches the leaderboard nor the plot (redteam6; on main 44bdcdc a message
put its author first on the board, and counts past a float stopped the class's exports).
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

MEAN_CHECK = "test_stage5_strategy.py::test_mean_score["      # the test id of the mean check's rows
HISTOGRAM = "Games by score, 25-point bins from 0:"           # (contest.histogram_line writes it)


# The mean check's sentences, written by the stage-5 suite through these and read back by SUMMARY
# below: one module holds both sides (tests/test_leaderboard_sentences.py runs each through the other).
def mean_sentence(mean: float, scores: list[int], same_games: str) -> str:
    """The mean check's first sentence: the mean over the games, their range, and SAME_GAMES (what
    the baselines and the ceiling score on the same games)."""
    return (f"Your strategy's mean: {mean:.2f} points over {len(scores)} games "
            f"(lowest {min(scores)}, highest {max(scores)}). Same games: {same_games}")


def beat_failed(player: str, needed: float) -> str:
    """The sentence before mean_sentence when a tier asks to beat PLAYER (NEEDED on the same games)."""
    return f"Your strategy does not beat the {player} player ({needed:.2f} on the same games). "


def within_failed(within: float, needed: float) -> str:
    """The sentence before mean_sentence when a tier asks for a mean within WITHIN of optimal play."""
    return f"Your strategy is more than {within} points below optimal play (it needs a mean of {needed:.2f}). "


_FAILED_TIER = (r"Your strategy (?:does not beat the [\w-]+ player \(\d+\.\d\d on the same games\)"
                r"|is more than \d+(?:\.\d+)? points below optimal play \(it needs a mean of \d+\.\d\d\))\. ")
SUMMARY = re.compile(
    rf"(?:{_FAILED_TIER})?Your strategy's mean: (\d{{1,4}}\.\d\d) points over (\d{{1,6}}) games "
    r"\(lowest \d{1,4}, highest \d{1,4}\)\. Same games: [^\n]*\n"
    + re.escape(HISTOGRAM) + r"((?: \d{1,7}){1,200})", re.ASCII)


def strategy_result(tests: list[dict[str, Any]]) -> tuple[float, int, list[int] | None] | None:
    """(mean, games, histogram counts) from a submission's stored checks, or None without stage 5
    (or when no mean check's output is wholly the grader's sentence: see the module's docstring)."""
    for test in tests:
        if not (isinstance(test, dict) and str(test.get("test_id", "")).startswith(MEAN_CHECK)
                and test.get("stage") == 5):
            continue
        found = SUMMARY.fullmatch(str(test.get("output", "")))
        if found is None:
            continue
        mean, games = float(found.group(1)), int(found.group(2))
        counts = [int(v) for v in found.group(3).split()]
        if games and sum(counts) == games:
            return mean, games, counts
    return None


def leaderboard_rows(rows) -> list[dict[str, Any]]:
    """One entry per student with a stage-5 result, best mean first (ties: by id)."""
    board = []
    for row in rows:
        found = strategy_result(row.tests)
        if found is None:
            continue
        stage5 = [t for t in row.tests if t.get("stage") == 5]
        board.append({"id": row.submission_id, "mean": found[0], "games": found[1],
                      "points": sum(t.get("score", 0) for t in stage5),
                      "max": sum(t.get("max_score", 0) for t in stage5)})
    board.sort(key=lambda e: (-e["mean"], e["id"]))
    for rank, entry in enumerate(board, 1):
        entry["rank"] = rank
    return board


def leaderboard_html(rows, ceiling: float | None = None, files: dict[str, str] | None = None) -> str:
    """The report's section: empty when nobody was graded on stage 5.  FILES: id -> the stem of its
    feedback files (grading.names.file_stems of the class; default: of ROWS)."""
    board = leaderboard_rows(rows)
    if not board:
        return ""
    if ceiling is None:
        from .solver import optimum

        ceiling = optimum()
    out = ['<h2 id="leaderboard">Strategy contest (stage 5)</h2>',
           f'<p class="sub">Mean score of each strategy over the same seeded games; optimal play '
           f"expects {ceiling:.2f}.</p>",
           '<table class="leaderboard"><tr><th class="num">rank</th><th>id</th><th class="num">mean</th>'
           '<th class="num">below optimal</th><th class="num">stage 5 points</th></tr>']
    if files is None:
        from ..grading.names import file_stems

        files = file_stems(row.submission_id for row in rows)
    for e in board:
        sid, file = html.escape(e["id"]), html.escape(files.get(e["id"], e["id"]))
        out.append(f'<tr><td class="num">{e["rank"]}</td><td><a href="feedback/{file}.html">{sid}</a></td>'
                   f'<td class="num">{e["mean"]:.2f}</td><td class="num">{ceiling - e["mean"]:.2f}</td>'
                   f'<td class="num">{e["points"]:g} / {e["max"]:g}</td></tr>')
    out.append("</table>")
    return "\n".join(out)


def feedback_plot(tests: list[dict[str, Any]], path: Path) -> Path | None:
    """Write the student's score distribution against optimal play as PATH (PNG); None without stage 5."""
    found = strategy_result(tests)
    if found is None or not found[2]:
        return None
    from .contest import plot_distribution

    return plot_distribution(found[2], path, mean=found[0])
