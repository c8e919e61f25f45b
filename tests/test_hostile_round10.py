"""Round ten of the hostile corpus (redteam10, pass 23).  Cases and predictions:
tests/corpus/round10/expected.toml (committed before each case was graded; `main_*` is what main
530a5b0 gives, measured with the same cases on its engine).

Part 1 (`[[lent]]`): round 9's E closed.  A check whose code ran beside the reference's later
stages (a substitution variant: engine/lent.py) showed what the program printed, returned or
raised there, which can be their compressed code: now such a row shows what a hidden check would
(its data-free summary, hint) with the call and the expected value, unless a run of the same check
with the later stages the student's own says the very same text.  Every channel a student controls
in such a row: a return value, an exception type's name, printed output, a notebook, the names of
files it opens (flags), a whole game's transcript read through a memo; and the boundary: a
stage-4 check's variant holds stages 1-3 only, and its message stays whole.  Every case failed on
main (the code was shown) but the boundary's, which is the same there.  Against the fix itself: a
program that keeps what it read in files and says it again in the confirming run (`lent_relay`: no
hole, each life has its own files), and the same hostile file handed in twice in one batch (a hole
of this branch before its last fix: the second copy's failure was replayed from the first's verdict
without running, so nothing noted it as lent).

Part 2 (`[[coach]]`): `coach --review` of a transcript a student wrote: on main one line of
"keep"s without a "?" made the keep pattern backtrack quadratically (minutes for 800 KB); now no
pattern reads a line longer than any line of a game, and the keep pattern is tried once a line.
Paths tried without finding a hole (the report says how): the release bundle's files (a stage-1
bundle holds no solution line of its stage or later: the release's own leak check passed, and no
marshalled or compressed code was found in it), the loader (`grade FOLDER`, what run_autograder
calls) on a link to the reference, a FIFO, a link to the solution folder beside the starter (each
refused or not followed, as round 2's cases say), the LMS exports (read only: every cell goes
through csv_cell), a class-based course's stage-1 method keeping the later methods' code in its
state (swe3006: full marks and nothing shown, on main too: its stage-1 checks ran no variant).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.batch import SOLUTION, env

from autograder import toml as tomllib  # the one TOML shim
from autograder.assignment import load_assignment
from autograder.engine.lent import later_functions, own_later, substitute_own

REPO = Path(__file__).resolve().parent.parent
FOLDER = REPO / "tests" / "corpus" / "round10"
EXPECTED = tomllib.loads((FOLDER / "expected.toml").read_text(encoding="utf-8"))
# the code as it travels: base64 or base32 runs far longer than any word of feedback, or its marker
LEAKED = re.compile(r"LEAK|[A-Za-z0-9+/]{100,}")


def _program(case: dict, folder: Path) -> Path:
    source = SOLUTION.rstrip("\n") + "\n\n\n" + (FOLDER / f"{case['name']}.py").read_text(encoding="utf-8")
    if case.get("notebook"):
        path = folder / "yahtzee.ipynb"
        path.write_text(json.dumps({"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "source": source}],
                                    "metadata": {}, "nbformat": 4, "nbformat_minor": 5}), encoding="utf-8")
        return path
    path = folder / "yahtzee.py"
    path.write_text(source, encoding="utf-8")
    return path


def _grade(path: Path, stage: int, form: str) -> str:
    proc = subprocess.run([sys.executable, "-m", "autograder", "grade", str(path), "--stage", str(stage),
                           "--format", form], env=env(), capture_output=True, text=True, timeout=600)
    assert proc.returncode in (0, 1), proc.stdout[-2000:] + proc.stderr[-2000:]
    return proc.stdout


@pytest.mark.parametrize("case", EXPECTED["lent"], ids=lambda c: c["name"] + ("-notebook" if c.get("notebook") else ""))
def test_round10_lent_check_shows_no_later_stage_code(tmp_path, case):
    path = _program(case, tmp_path)
    report = json.loads(_grade(path, case["stage"], "json"))
    assert report["score"] == pytest.approx(case["points"]), case["channel"]
    said = [t["output"] + "\n" + t.get("hint", "") for t in report["tests"]]
    shown = [text for text in said if LEAKED.search(text)]
    if not case["shown"]:
        assert not shown, (case["channel"], shown[:1])
        assert any("Not shown: what your code printed" in text for text in said), case["channel"]
        for form in ("text", "markdown", "gradescope"):       # what a student reads, each way
            assert not LEAKED.search(_grade(path, case["stage"], form)), (case["channel"], form)
    else:       # the boundary: a stage-4 check's variant holds stages 1-3 (released): shown whole
        assert shown and not any("Not shown: what your code printed" in text for text in said)
        listed = re.search(r"LEAK \d+ functions \[([^]]*)\]", shown[0]).group(1)
        assignment = load_assignment("yahtzee")
        mine = {f for p in assignment.problems if p.stage >= case["stage"] for f in p.functions}
        assert listed and not {name.strip("' ") for name in listed.split(",")} & mine


def test_round10_a_confirming_run_keeps_the_reference_of_earlier_stages_only():
    """What a confirming run of a stage-N check keeps as the student's (so its variant lacks the
    reference's): every function of the later core stages, and the reference's helpers that no
    function of an earlier stage reaches (the Joker rule's allowed_categories, the strategy's
    play_strategy, the main part's calls aside); never a helper an earlier stage uses."""
    assignment = load_assignment("yahtzee")
    reference = (REPO / "solution" / "yahtzee.py").read_text(encoding="utf-8")
    stage1 = own_later(assignment, 1, reference)
    assert later_functions(assignment, 1) <= stage1
    assert {"allowed_categories", "play_strategy", "roll_dice", "normalize_name"} <= stage1
    stage3 = own_later(assignment, 3, reference)
    assert {"upper_bonus", "is_joker", "play_round", "allowed_categories", "play_strategy"} <= stage3
    assert not stage3 & {"score", "reroll", "parse_keep", "roll_dice", "normalize_name", "face_counts"}
    assert own_later(assignment, 4, reference) == {"allowed_categories", "choose_category", "choose_keep",
                                                   "longest_run", "play_strategy"}
    sub = substitute_own({"names": ["score", "upper_bonus"], "keep": ["play_game"]}, stage3)
    assert sub["names"] == ["score"] and {"play_game", "upper_bonus"} <= set(sub["keep"])


# --- Part 2: `coach --review` of a transcript a student wrote ---------------------------------------

GAME = ("Round 1\nDice: 1 2 3 4 5\nKeep which dice? (e.g. 1 3 5): 1 2\nDice: 1 2 6 6 6\n"
        "Keep which dice? (e.g. 1 3 5): all\nScored 21 points in Chance.\n"
        "Round 2\nDice: 3 3 3 2 2\nScore this roll in which category? Full House\nScored 25 points in Full House.\n")


@pytest.mark.parametrize("case", EXPECTED["coach"], ids=lambda c: c["name"])
def test_round10_coach_reviews_a_long_line_in_linear_time(tmp_path, case):
    """A line of the transcript longer than any line of a game is read as none of them (on main
    530a5b0 800 KB of "keep"s without a "?" took minutes: the KEEP pattern, searched at every
    "keep"); the review is the plain game's, through the CLI, within the case's seconds."""
    junk = case["line"] * case["repeat"] + " " * case.get("pad", 0) + "x"
    plain, hostile = tmp_path / "plain.txt", tmp_path / "hostile.txt"
    plain.write_text(GAME, encoding="utf-8")
    hostile.write_text(GAME.replace("Dice: 1 2 6 6 6\n", f"Dice: 1 2 6 6 6\n{junk}\n", 1), encoding="utf-8")
    said = []
    for path in (plain, hostile):
        proc = subprocess.run([sys.executable, "-m", "autograder", "coach", "--review", str(path)], env=env(),
                              capture_output=True, text=True, timeout=case["seconds"])
        assert proc.returncode == 0, proc.stderr[-2000:]
        said.append(proc.stdout)
    assert said[0] == said[1] and "round 1, roll 1" in said[0]


def test_round10_the_coach_reads_a_keep_line_where_it_begins():
    """KEEP is tried at the line's first "keep" only: the same answers as a search (a later "keep"
    matches only where the first one does), each line in linear time."""
    from autograder.coach import review
    for line in ("Keep which dice? (e.g. 1 3 5): 1 2", "keep? KEEP which: all", "KEEP keep? :3 4",
                 "you keep nothing", "Which to keep?", "keepkeep?x:1", "kee?keep? 5"):
        first = review.KEEP_WORD.search(line)
        found = review.KEEP.match(line, first.start()) if first else None
        searched = review.KEEP.search(line)
        assert (found and found.group(1)) == (searched and searched.group(1)), line


def test_round10_a_failure_replayed_from_a_classmate_is_lent_too(tmp_path):
    """Found against part 1 on this branch (not on main, where every row showed the code): in a
    batch, a check whose answers are a classmate's (the same hostile file handed in twice) is given
    that classmate's failing verdict without running (verdicts.py), so no outcome reached
    Program.run and the second copy's row showed the code.  Now a replay's taken answers are noted
    as the check's own (lent.note).  One worker grades them in order; the honest classmate keeps 30."""
    klass = tmp_path / "class"
    klass.mkdir()
    for sid, name in (("ann", "lent_return_value"), ("ben", "lent_return_value"), ("cid", "lent_type_name"),
                      ("dan", "lent_type_name"), ("zed", None)):
        (klass / f"{sid}.py").write_text(SOLUTION if name is None else SOLUTION.rstrip("\n") + "\n\n\n"
                                         + (FOLDER / f"{name}.py").read_text(encoding="utf-8"), encoding="utf-8")
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "autograder", "grade-all", str(klass), "--stage", "1", "--jobs", "1",
                           "--no-progress", "--out", str(out)], env=env(), capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    import sqlite3
    with sqlite3.connect(out / "gradebook.sqlite") as book:
        rows = {sid: (score, json.loads(tests)) for sid, score, tests in
                book.execute("select submission_id, score, tests from grades")}
    assert {sid: score for sid, (score, _) in rows.items()} == {"ann": 28.4, "ben": 28.4, "cid": 28.4, "dan": 28.4,
                                                                "zed": 30.0}
    for sid, (_, tests) in rows.items():
        assert not [t for t in tests if LEAKED.search(t["output"])], sid
        assert any("Not shown: what your code printed" in t["output"] for t in tests) == (sid != "zed"), sid


def test_round10_a_long_line_of_digits_is_cut_to_its_number_not_skipped():
    """MAX_GAME_LINE skips a line longer than any line of a game, but a Scored line's number may be
    long (round 6: a 5000-digit score reads bounded): its digit runs are cut first to what
    bounds.number reads of them, leading zeros included (found by round 6's test on the merged
    main: the line was skipped, "no round found")."""
    from autograder.coach import review

    def game(points: str) -> str:
        return ("Round 1\nDice: 1 2 3 4 5\nScore this roll in which category? Chance\n"
                f"Scored {points} points in Chance.\n")

    plain = review.format_review(review.review_game(game("15")))
    assert review.format_review(review.review_game(game("0" * 5000 + "15"))) == plain
    assert review.parse_game(game("1" * 5000))[0].points == review.parse_game(game("1" * 31))[0].points
    assert review.parse_game(game("7" * 30))[0].points == int("7" * 30)
    words = "Round 1\nDice: 1 2 3 4 5\n" + "keep " * 1000 + "\nScored 15 points in Chance.\n"
    assert review.parse_game(words)[0].points == 15        # (a long line of words: skipped, as before)
