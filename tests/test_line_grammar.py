"""The engine's line grammar (grammar.LineGrammar), first_line_difference and silent_refusals on
hand-made text and event logs (no sandbox: cheap).

A course declares the grammar as data: the regexes of its [protocol] table, tried by kind in
order.  Yatzy and CS21 read their games with it; these pin what the engine promises them."""

import re

from autograder.engine.divergence import first_line_difference
from autograder.engine.grammar import Line, LineGrammar
from autograder.engine.replay import silent_refusals

PROTOCOL = {                       # a made-up course's [protocol] table: only data
    "turn": r"^Player: (?P<player>.+)$",
    "dice": r"^Dice: (?P<dice>[1-6](?: +[1-6]){4})$",
    "scored": r"^Scored (?P<points>\d+) in (?P<category>.+)\.$",
    "ignore": r"^DEBUG:",
    "reroll_prompt": "Keep? ",     # not a line kind: never read unless listed
}
KINDS = ("turn", "dice", "scored")


def test_lines_are_read_by_kind_in_order_with_spaces_collapsed_and_other_lines_skipped():
    grammar = LineGrammar.of(PROTOCOL, KINDS)
    text = "Welcome!\nPlayer: Ann   Lee\nDice: 1  2 3 4 5   \nDEBUG: Dice: 6 6 6 6 6\n\nScored 15 in Chance.\n"
    assert grammar.read(text) == [Line("turn", ("Ann Lee",)), Line("dice", ("1 2 3 4 5",)),
                                  Line("scored", ("15", "Chance"))]
    assert [line.text for line in grammar.read(text)] == ["Player: Ann   Lee", "Dice: 1  2 3 4 5",
                                                           "Scored 15 in Chance."]
    assert grammar.read("") == grammar.read(None) == []


def test_without_an_ignore_regex_every_matching_line_is_read():
    grammar = LineGrammar.of({k: v for k, v in PROTOCOL.items() if k != "ignore"}, ["dice"])
    assert grammar.ignore is None
    assert len(grammar.read("DEBUG: x\nDice: 1 2 3 4 5\n")) == 1
    with_ignore = LineGrammar.of({**PROTOCOL, "ignore": r"^Dice: 6"}, ["dice"])
    assert with_ignore.read("Dice: 6 1 1 1 1\nDice: 1 2 3 4 5\n") == [Line("dice", ("1 2 3 4 5",))]


def test_strip_reads_indented_lines_too():
    """swe3006 reads each line stripped of surrounding spaces (its handout lets a table be
    indented); the default reads a line from its first character."""
    text = "   Player: Ann\n\tDice: 1 2 3 4 5  \n"
    assert LineGrammar.of(PROTOCOL, KINDS).read(text) == []
    stripped = LineGrammar.of(PROTOCOL, KINDS, strip=True).read(text)
    assert stripped == [Line("turn", ("Ann",)), Line("dice", ("1 2 3 4 5",))]
    assert [line.text for line in stripped] == ["Player: Ann", "Dice: 1 2 3 4 5"]


def test_tails_find_a_line_after_a_prompt_answered_without_echo():
    text = "Keep? Dice: 1 2 3 4 5\nWhich one? Scored 5 in Fives.\n"
    assert LineGrammar.of(PROTOCOL, KINDS).read(text) == []
    tails = LineGrammar.of(PROTOCOL, KINDS, tails=True).read(text)
    assert tails == [Line("dice", ("1 2 3 4 5",)), Line("scored", ("5", "Fives"))]
    assert tails[0].text == "Dice: 1 2 3 4 5"


def test_a_course_normaliser_makes_the_fields_and_the_text_is_not_compared():
    def normal(kind: str, match: re.Match) -> tuple:
        if kind == "dice":
            return (tuple(int(face) for face in match["dice"].split()),)
        return tuple(match.groups())

    grammar = LineGrammar.of(PROTOCOL, KINDS, normal=normal)
    spaced, tight = grammar.read("Dice: 1   2 3 4 5\n"), grammar.read("Dice: 1 2 3 4 5\n")
    assert spaced == tight == [Line("dice", ((1, 2, 3, 4, 5),))]
    assert spaced[0].text != tight[0].text


def test_first_line_difference_is_where_two_transcripts_part_or_one_ends():
    a, b, c = Line("turn", ("Ann",)), Line("dice", ("1 2 3 4 5",)), Line("scored", ("15", "Chance"))
    other = Line("dice", ("6 2 3 4 5",))
    assert first_line_difference([a, b, c], [a, b, c]) is None
    assert first_line_difference([], []) is None
    assert first_line_difference([a, other, c], [a, b, c]) == 1
    assert first_line_difference([a, b], [a, b, c]) == 2          # it ended early
    assert first_line_difference([a, b, c, c], [a, b, c]) == 3    # a line too many
    assert first_line_difference([], [a]) == 0


def test_silent_refusals_are_the_answers_the_reference_answered_with_a_message():
    reference = [["in", "Keep? ", "x"], ["out", "Please answer with positions.\n"], ["in", "Keep? ", "1"],
                 ["out", "Dice: 1 2 3 4 5\n"], ["in", "Category? ", "bad"], ["out", "No such category.\n"],
                 ["in", "Category? ", "Chance"]]
    told = [e if e[0] != "out" or "Please" not in e[1] else ["out", "Try again.\n"] for e in reference]
    silent = [e for e in reference if e[0] != "out" or "No such" not in e[1]]
    assert silent_refusals(reference, reference) == []
    assert silent_refusals(told, reference) == []                  # any message counts: it was told
    assert silent_refusals(silent, reference) == [3]               # asked again in silence after answer 3
    assert silent_refusals([["in", "Keep? ", "x"], ["out", "  \n"], ["in", "Keep? ", "1"]], reference[:3]) == [1]
    assert silent_refusals(None, reference) == []
