"""engine/replay.py and engine/divergence.py on hand-made event logs (no sandbox: cheap).

The protocol is data (a fake assignment's [protocol] and [rules] tables), so these also show a
course author what the engine reads: one player (Yahtzee's grammar) and two named players."""

from types import SimpleNamespace

from autograder.assignment import load_assignment
from autograder.engine.divergence import first_divergence
from autograder.engine.grammar import read_final_score
from autograder.engine.replay import Protocol, read_reference, read_transcript, roll_values

YAHTZEE = Protocol.of(load_assignment("yahtzee"))


def _outcome(events, value=None, status="ok"):
    return SimpleNamespace(events=events, value=value, status=status, stdout="")


def _round(first, second=None, keep="1 2", category="Chance", points=None):
    """The events of one Yahtzee round: a roll, a keep answer, maybe a re-roll, a category."""
    events = [["out", "Round 1\n"]] + [["roll", d] for d in first] + [["out", f"Dice: {' '.join(map(str, first))}\n"]]
    events.append(["in", "Keep which dice? ", keep])
    final = list(first)
    if second:
        events += [["roll", d] for d in second]
        final = first[:2] + second
        events.append(["out", f"Dice: {' '.join(map(str, final))}\n"])
    events.append(["in", "Which category? ", category])
    events.append(["out", f"Scored {points if points is not None else sum(final)} points in {category}.\n"])
    return events


def test_one_player_transcript_reads_rolls_scored_lines_and_card():
    events = _round([1, 2, 3, 4, 5], [6, 6, 6]) + [["out", "Chance: 21\nTotal: 21\nFinal score: 21\n"]]
    game = read_transcript(_outcome(events), YAHTZEE)
    assert [r.dice for r in game.rolls] == [[1, 2, 3, 4, 5], [6, 6, 6]]
    assert [(s.points, s.category) for s in game.scored] == [(21, "Chance")]
    assert game.finals == [21] and game.card_value("chance") == 21
    assert roll_values(_outcome(events)) == [1, 2, 3, 4, 5, 6, 6, 6]


def test_first_divergence_names_round_roll_and_cause():
    ref = read_reference(_outcome(_round([1, 2, 3, 4, 5], [6, 6, 6])), YAHTZEE)
    # the student re-rolls all five dice after keeping two: "kept dice were re-rolled"
    mine = read_transcript(_outcome(_round([1, 2, 3, 4, 5], [6, 6, 6, 1, 2])), YAHTZEE)
    div = first_divergence(ref, mine)
    assert (div.where, div.kind) == ("round 1, roll 2", "kept_rerolled")
    assert div.cause == "kept dice were re-rolled" and "5 dice where 3" in div.detail
    same = read_transcript(_outcome(_round([1, 2, 3, 4, 5], [6, 6, 6])), YAHTZEE)
    assert first_divergence(ref, same) is None


def test_a_comparison_is_remembered_per_pair_of_readings_and_complete():
    """first_divergence once per (reference reading, student reading, complete): a run printing
    what one compared before gets that answer; another run, or a stopped one, is compared afresh."""
    ref = read_reference(_outcome(_round([1, 2, 3, 4, 5], [6, 6, 6])), YAHTZEE)
    extra = _round([1, 2, 3, 4, 5], [6, 6, 6, 1, 2])
    first = first_divergence(ref, read_transcript(_outcome(extra), YAHTZEE))
    again = first_divergence(ref, read_transcript(_outcome([list(e) for e in extra]), YAHTZEE))
    assert again is first and first.kind == "kept_rerolled"
    few = first_divergence(ref, read_transcript(_outcome(_round([1, 2, 3, 4, 5], [6, 6])), YAHTZEE))
    assert few.kind == "too_few"
    stopped = read_transcript(_outcome(_round([1, 2, 3, 4, 5], [6, 6, 6])[:8]), YAHTZEE)   # after the keep answer
    assert first_divergence(ref, stopped, complete=False) is None
    assert first_divergence(ref, stopped, complete=True).kind == "missing_roll"


def test_two_named_players_alternating():
    assignment = SimpleNamespace(name="two", extra={
        "rules": {"categories": ["Ones", "Chance"]},
        "protocol": {"dice": r"^\s*dice\s*:\s*(.*)$", "scored": r"scored\s+(-?\d+)\s+points?\s+in\s+(.+?)[\s.!]*$",
                     "final": r"^(?P<player>\w+)\s+final\s+score\s*:\s*(?P<score>-?\d+)",
                     "turn": r"^(?P<player>\w+)'s turn", "players": 2}})
    protocol = Protocol.of(assignment)
    events = []
    for name, dice in (("Ada", [1, 1, 2, 3, 4]), ("Bo", [6, 5, 4, 3, 2]), ("Ada", [1, 1, 1, 1, 1])):
        events += [["out", f"{name}'s turn\n"]] + [["roll", d] for d in dice]
        events += [["in", "Category? ", "Ones"], ["out", f"Scored {dice.count(1)} points in Ones.\n"]]
    events += [["out", "Ada final score: 7\nBo final score: 0\n"]]
    game = read_transcript(_outcome(events), protocol)
    assert game.players == ["Ada", "Bo"]
    assert [s.points for s in game.scored_by("Ada")] == [2, 5] and [s.points for s in game.scored_by("Bo")] == [0]
    assert [r.player for r in game.rolls] == ["Ada", "Bo", "Ada"]
    assert game.final_by_player == {"Ada": 7, "Bo": 0}


def test_spare_dice_and_free_form_final_score():
    assert YAHTZEE.with_spare_dice([3, 3]) == [3, 3] + YAHTZEE.spare_dice and YAHTZEE.spare_dice
    outcome = SimpleNamespace(stdout="Round 13\nYour final score was 92\n", value=None, status="ok", events=[])
    assert read_final_score(outcome, finished=True, entry="play_game").value == 92


def test_named_groups_and_players_announced_by_the_round_line():
    """A grammar with named groups (dice, round, player, score), as a course may write it."""
    assignment = SimpleNamespace(name="named", extra={
        "rules": {"categories": ["Aces", "Chance"]},
        "protocol": {"players": [1, 2], "ignore": r"^\[WARN\]",
                     "round": r"^Round (?P<round>\d+)(?: - Player (?P<player>[12]))?$",
                     "turn": r"^Round \d+ - Player (?P<player>[12])$",
                     "dice": r"^Current dice combination: \[(?P<dice>\d, \d, \d, \d, \d)\]$",
                     "final": r"^Player (?P<player>[12]) final score: (?P<score>\d+)$"}})
    protocol = Protocol.of(assignment)
    events = []
    for player, dice in (("1", [2, 2, 3, 4, 5]), ("2", [6, 6, 6, 1, 1])):
        events += [["out", f"Round 1 - Player {player}\n"]] + [["roll", d] for d in dice]
        events += [["out", f"Current dice combination: [{', '.join(map(str, dice))}]\n[WARN] Invalid input.\n"]]
        events += [["in", "Choose the category to record the score\n", "Chance"]]
    events += [["out", "Player 1 final score: 16\nPlayer 2 final score: 20\n"]]
    game = read_transcript(_outcome(events), protocol)
    assert game.players == ["1", "2"] and [r.player for r in game.rolls] == ["1", "2"]
    assert [dice for _, dice in game.dice_lines] == [[2, 2, 3, 4, 5], [6, 6, 6, 1, 1]]
    assert not any("WARN" in i.text for i in game.items)
    assert game.final_by_player == {"1": 16, "2": 20}
    ref = read_reference(_outcome(events), protocol)
    assert [(r.number, r.player) for r in ref.rounds] == [(1, "1"), (1, "2")]


def test_a_run_read_before_gives_its_reading_with_its_own_outcome():
    """read_transcript reads each distinct run once (the same events: the same reading), never
    mixing runs or outcomes, and never the reference's own reading (its rolls get round numbers)."""
    events = _round([1, 2, 3, 4, 5], [6, 6, 6]) + [["out", "Chance: 21\nTotal: 21\nFinal score: 21\n"]]
    ref = read_reference(_outcome([list(e) for e in events]), YAHTZEE)
    assert [(r.round, r.number) for r in ref.game.rolls] == [(1, 1), (1, 2)]
    first, second = _outcome([list(e) for e in events]), _outcome([list(e) for e in events], status="timeout")
    one, two = read_transcript(first, YAHTZEE), read_transcript(second, YAHTZEE)
    assert one.outcome is first and two.outcome is second and two.outcome.status == "timeout"
    assert one.items == two.items and [(r.round, r.number) for r in two.rolls] == [(0, 0), (0, 0)]
    other = read_transcript(_outcome(events[:-1] + [["out", "Chance: 21\nTotal: 21\nFinal score: 22\n"]]), YAHTZEE)
    assert other.finals == [22] and one.finals == [21]
    assert read_transcript(_outcome([["out", 1.0]]), YAHTZEE).items[0].text == "1.0"    # 1.0 is not 1
    assert read_transcript(_outcome([["out", 1]]), YAHTZEE).items[0].text == "1"
    odd = _outcome([["out", "x\n"], ["seed", {1, 2}]])                # not JSON data: read, not kept
    assert read_transcript(odd, YAHTZEE).seeds[0].value == {1, 2}
