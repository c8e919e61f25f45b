"""The stage-5 mean check's sentences and the leaderboard's reader are one format (coach/leaderboard.py):
what the suite writes, the board reads back, and nothing else."""

from autograder.coach import contest, leaderboard

SCORES = [123, 250, 301, 77, 250]
SAME = "always-Chance 110.24, greedy 201.57; the ceiling, optimal play's expected score: 254.59."


def _stored(output: str) -> list[dict]:
    return [{"test_id": leaderboard.MEAN_CHECK + "beat-greedy]", "stage": 5, "output": output}]


def test_each_sentence_the_suite_writes_is_read_back():
    said = leaderboard.mean_sentence(200.2, SCORES, SAME) + "\n" + contest.histogram_line(SCORES)
    counts = [int(v) for v in contest.histogram_line(SCORES).split(":")[1].split()]
    for before in ("", leaderboard.beat_failed("greedy", 201.57), leaderboard.within_failed(25, 229.59),
                   leaderboard.within_failed(2.5, 252.09)):
        assert leaderboard.strategy_result(_stored(before + said)) == (200.2, 5, counts), before


def test_another_sentence_is_not_read():
    said = leaderboard.mean_sentence(200.2, SCORES, SAME) + "\n" + contest.histogram_line(SCORES)
    for output in ("Your program said: " + said, said.replace("points over", "points, over"),
                   leaderboard.beat_failed("greedy", 201.57).upper() + said, said + " 1"):
        assert leaderboard.strategy_result(_stored(output)) is None, output
