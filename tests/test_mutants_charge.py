"""engine/charge.py: a later stage's failure costs no more than the earlier check it stems from.

The rule on real result records (TestResult, as the plugin makes them) and the real Yahtzee
problem table; the whole path (suites naming aspects, the plugin excusing) is graded with exact
scores by the mutants of tests/test_mutants.py (three-rerolls, final-score-upper-boxes-only,
scorecard-lines-reversed lose their earlier stage only; joker-ignored, final-score-no-yahtzee-bonus
keep losing stage 4; play-round-not-written, a stub, loses both)."""

from __future__ import annotations

from autograder.assignment import load_assignment
from autograder.engine.charge import excuse_repeats, links, same_aspect, written
from autograder.engine.results import TestResult

YAHTZEE = load_assignment("yahtzee")
SOURCE = YAHTZEE.reference.read_text(encoding="utf-8")
STUB = "def play_round(scorecard):\n    \"\"\"Play one round.\"\"\"\n    raise NotImplementedError\n"


def _result(problem: int, status: str, points: float = 1.0, name: str = "a check") -> TestResult:
    stage = YAHTZEE.problem(problem).stage
    return TestResult(name=f"P{problem} {name}", problem=problem, stage=stage,
                      score=points if status == "passed" else 0.0, max_score=points, status=status,
                      output="It differed." if status != "passed" else "")


def test_links_come_from_the_table_and_stems():
    # play_round: 12 and 19; final_score/format_scorecard: 14, 15 and 20; [[stems]]: 20 from 12,
    # 19 from 14 and 15
    assert links(YAHTZEE) == {19: (12, 14, 15), 20: (12, 14, 15)}
    assert links(load_assignment("pytzee")) == {}     # can_use is in 9 and 11, both stage 2


def test_written_tells_a_stub_from_code():
    assert written(SOURCE, ["play_round", "final_score"])
    assert not written(STUB, ["play_round"])
    assert not written("def play_round(card):\n    return None\n", ["play_round"])
    assert not written(SOURCE, ["no_such_function"])


def test_same_aspect_in_a_later_stage_is_not_charged_again():
    earlier, later = _result(12, "failed", name="play_round: two re-rolls"), _result(19, "failed", 0.5)
    skipped = _result(20, "skipped", 2.0)
    results = [earlier, later, skipped]
    aspects = {id(earlier): "divergence: kept_rerolled", id(later): "divergence: kept_rerolled",
               id(skipped): "divergence: kept_rerolled"}
    assert excuse_repeats(results, aspects, YAHTZEE, SOURCE) == 2
    assert earlier.status == "failed" and earlier.score == 0
    assert (later.status, later.score) == ("passed", 0.5)
    assert (skipped.status, skipped.score) == ("passed", 2.0)
    assert later.output.startswith('Not charged: stems from P12 "play_round: two re-rolls" (stage 2), already '
                                   'charged there (It differed)')


def test_a_later_stage_bug_is_charged():
    # another aspect (a Joker round's points), an earlier stage that passed, an unlinked
    # problem, a stub earlier function: each keeps its failure
    cases = [
        ([_result(12, "failed"), _result(19, "failed")], ["the Scored line", "returned the wrong "
                                                          "(category, points) in a Joker round"], SOURCE),
        ([_result(12, "passed"), _result(19, "failed")], ["divergence: kept_rerolled"] * 2, SOURCE),
        ([_result(9, "failed"), _result(17, "failed")], ["divergence: kept_rerolled"] * 2, SOURCE),
        ([_result(12, "failed"), _result(19, "failed")], ["stopped: NotImplementedError at line 3"] * 2, STUB),
    ]
    for results, names, source in cases:
        aspects = {id(r): a for r, a in zip(results, names)}
        assert excuse_repeats(results, aspects, YAHTZEE, source) == 0
        assert results[1].status == "failed" and results[1].score == 0


def test_no_aspect_no_excuse():
    earlier, later = _result(12, "failed"), _result(19, "failed")
    assert excuse_repeats([earlier, later], {id(earlier): "x"}, YAHTZEE, SOURCE) == 0
    assert later.status == "failed"


def test_an_aspect_matches_its_general_form():
    assert same_aspect("asked for more input", "asked for more input: a keep question too many")
    assert same_aspect("asked for more input: a keep question too many", "asked for more input")
    assert not same_aspect("asked for more input: a keep question too many", "asked for more input: another")
    assert not same_aspect("stopped: timeout", "stopped: ZeroDivisionError at line 5")
    assert not same_aspect("divergence: kept_rerolled", "divergence: dice_differ")


def test_a_stage_whose_own_functions_are_stubs_gets_nothing_excused():
    """A program handed in after stage 3 (stage 4's own functions the starter's stubs) with a
    stage-2 bug in play_round: the stage-4 checks it stops are not excused (no points for nothing);
    one stage-4 function written is enough for the rule to apply again."""
    starter = YAHTZEE.starter.read_text(encoding="utf-8")
    stage4_own = ["upper_bonus", "is_joker", "yahtzee_bonus", "joker_categories", "joker_score"]
    assert not any(written(starter, [name]) for name in stage4_own)
    # the reference's play_round (stage 2 written) with the starter's stage-4 stubs after it
    stubs = SOURCE + "\n" + "".join(f"\ndef {name}(*args):\n    raise NotImplementedError\n" for name in stage4_own)
    for source, excused in ((stubs, 0), (stubs + "\ndef is_joker(dice, card):\n    return len(set(dice)) == 1\n", 1)):
        earlier, later = _result(12, "failed"), _result(19, "failed")
        aspects = {id(earlier): "divergence: kept_rerolled", id(later): "divergence: kept_rerolled"}
        assert excuse_repeats([earlier, later], aspects, YAHTZEE, source) == excused
        assert (later.status == "passed") == bool(excused)


def test_a_later_problem_whose_own_functions_are_stubs_gets_nothing_excused():
    """swe3006's stage 4 has no method of its own (play and print_score_info are graded in stage 3
    too), so the stage rule cannot tell a stub: the later problem's own functions must be written.
    A do-nothing class (play() is `pass`) whose games print nothing, as its get_valid_input does,
    is not excused."""
    swe = load_assignment("swe3006")
    source = swe.reference.read_text(encoding="utf-8")
    stub_play = source.replace("    def play(self):", "    def play(self):\n        pass\n\n    def _old_play(self):")
    for text, excused in ((source, 1), (stub_play, 0)):
        earlier = TestResult(name="P3 a case", problem=3, stage=2, score=0.0, max_score=1.0, status="failed", output="x")
        later = TestResult(name="P12 a game", problem=12, stage=4, score=0.0, max_score=1.0, status="failed", output="x")
        aspects = {id(earlier): "mode_prompt line missing", id(later): "mode_prompt line missing"}
        assert excuse_repeats([earlier, later], aspects, swe, text) == excused


def test_an_exit_is_a_stop_at_its_line():
    """sys.exit stops at a line of the student's file like an exception: two exits at different
    lines are not the same bug (os._exit, with no line, stays the general "stopped: exit")."""
    from autograder.engine.charge import stopped_aspect
    from autograder.engine.protocol import Outcome

    exit_at = Outcome(status="exit", error={"type": "SystemExit", "line": 17})
    assert stopped_aspect(exit_at) == "stopped: SystemExit at line 17"
    assert stopped_aspect(Outcome(status="exit")) == "stopped: exit"
    assert stopped_aspect(Outcome(status="exception", error={"type": "KeyError", "line": 3})) == \
        "stopped: KeyError at line 3"
