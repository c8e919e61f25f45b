"""Pass 25 (`leftovers25`): what pass 24 left (the courses' self-checks, an instructor's edges).

- check.py (and `grade --public`, the notebooks) plays the public cases the grade plays: Yatzy's
  public game of chosen dice (its seed shuffles the players, its dice are every roll) and
  SWE3006's public method cases ([[init]], [[option]], [[info]], [[end]]: the state, answers and
  comparisons of their hidden checks, from the course's suite); the public cases still without a
  check are named after the count ("Not run here: ..."), not passed by in silence.
- render's `trim` leaves the caller's Check as it was and runs the game once.
- notebooks.toml is parsed once per version (the call graph and every notebook build read it).
"""

from __future__ import annotations

import copy
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.assignment import _parsed_toml, load_assignment
from autograder.authoring.release import check_script
from autograder.engine import selfcheck
from autograder.engine.reporters import HIDDEN_NOTE
from autograder.grading.public import public_checks, unchecked_public
from autograder.notebooks import TOOLS
from autograder.notebooks.checks import Check
from autograder.notebooks.render import render_check

ROOT = Path(__file__).resolve().parents[1] / "autograder" / "assignments"


def _edited(course: str, find: str, replace: str) -> str:
    text = (ROOT / course / "reference.py").read_text(encoding="utf-8")
    assert text.count(find) == 1, find
    return text.replace(find, replace)


def _check_py(tmp_path: Path, course: str, program: str, *options: str) -> str:
    """check.py of COURSE (as release writes it) run on PROGRAM: what it prints."""
    spec = load_assignment(course)
    script = tmp_path / course / "check.py"
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text(check_script(spec, public_checks(spec)[0], unchecked_public(spec)), encoding="utf-8")
    student = script.parent / spec.student_file
    student.write_text(program, encoding="utf-8")
    result = subprocess.run([sys.executable, str(script), str(student), *options],
                            capture_output=True, text=True, timeout=300)
    return result.stdout


# -- the public cases the grade plays, in check.py -------------------------------------------------

def test_yatzy_chosen_dice_game_is_played_with_its_seed_and_its_dice():
    """Yatzy's public [[dice_game]] was not in check.py (the runtime took a seed or dice; the game's
    shuffle needs the seed while every roll is chosen).  Its check now gives both, as the grade does:
    the reference's order under seed 4 is Bo, Ann and its rolls are the case's."""
    checks, notes = public_checks(load_assignment("yatzy"))
    assert not [note for note in notes if "[[dice_game]]" in note], notes
    code = checks[17]
    assert "public scenario '63 in the upper categories earns the bonus, 62 does not' (games.toml)" in code
    block = code[code.index("63 in the upper categories"):]
    assert "        dice=[1, 1, 1, 2, 3, 1, 1, 2, 3, 4, " in block and "        seed=4,\n" in block
    assert "['Order: Bo, Ann', 'Round 1: Ones', 'Player: Bo', 'Dice: 1 1 1 2 3'" in block


def test_the_runtime_takes_a_seed_and_dice_together():
    """run_scripted with a seed and dice: the dice are the chosen ones, the rest of the random module
    (a shuffle) follows the seed; a seed alone, or dice alone, as before."""
    space: dict = {}
    exec(TOOLS, space)
    import random

    def game():
        order = ["a", "b", "c", "d"]
        random.shuffle(order)
        return order, [random.randint(1, 6) for _ in range(3)]

    random.seed(9)
    shuffled = ["a", "b", "c", "d"]
    random.shuffle(shuffled)
    assert space["run_scripted"](game, dice=[6, 5, 4], seed=9)[0] == (shuffled, [6, 5, 4])
    random.seed(9)
    random.shuffle(["a", "b", "c", "d"])
    rolls = [random.randint(1, 6) for _ in range(3)]
    assert space["run_scripted"](game, seed=9)[0] == (shuffled, rolls)
    assert space["run_scripted"](game, dice=[1, 2, 3])[0][1] == [1, 2, 3]


def test_swe3006_public_method_cases_are_checks_of_their_problems():
    """SWE3006's public [[init]], [[option]], [[info]] and [[end]] cases had no check in check.py.
    Each is now one, from the suite's method_call: the state it starts from (said in its Ran:), its
    answers, the lines, and the value and attributes its hidden check compares."""
    checks, notes = public_checks(load_assignment("swe3006"))
    assert not [note for note in notes if "methods.toml" in note], notes
    end = checks[10][checks[10].index("'game over, then a new game'"):]
    assert "    game.current_round = 14\n" in end
    assert ("got = (lambda run: [run[0], protocol_read(run[1], protocol), game.game_mode, game.current_round, "
            "game.current_player, game.dice_combination, game.recorded_score_sheet])(run_scripted(lambda: "
            "game.check_end_game(), answers=['', '1'], seed=0, until_eof=True, strict=False))") in end
    assert "'row: category=Yahtzee, score=0', 'final: score=212', 'new_game', 'mode_prompt'], 1, 1, 1, [], [{}]]" in end
    assert ("Ran: game = YahtzeeGame(); current_round = 14, recorded_score_sheet = [{'Aces': 0, ") in end
    assert ("; game.check_end_game() and the answers ['', '1']; compared: the value returned, the lines the grader "
            "reads, then the attributes game_mode, current_round, current_player, dice_combination, "
            "recorded_score_sheet\\nExpected: ") in end
    assert "public scenario 'two players: two empty sheets' (methods.toml)" in checks[8]
    assert "public scenario 'round 7, show the sheet' (methods.toml)" in checks[9]
    assert "public scenario 'player 1 wins' (methods.toml)" in checks[13]


def test_check_py_fails_a_bug_only_a_public_method_case_shows_and_names_what_it_does_not_run(tmp_path):
    """A SWE3006 program that names player 2 the winner whenever the totals differ passed every
    problem of check.py (its checks had player 2 win, and a tie) and lost P13 in the grade; the
    public case 'player 1 wins' now fails it there.  Every SWE3006 public case is a check now, so its
    summary names none not run; Yatzy's still has public cases no check plays (a join, the keep
    answers ...): its summary says how many, of which problems, and --verbose lists them."""
    program = _edited("swe3006", 'print(f"Player {1 if totals[0] > totals[1] else 2} wins!")',
                      'print("Player 2 wins!")')
    said = _check_py(tmp_path, "swe3006", program, "--stage", "4")
    failed = [line for line in said.splitlines() if ": failed (" in line]
    assert failed == ["  Problem 13 Two players: both final scores and the winner, or a tie: failed (2/3 checks pass)"], said
    assert "    check: public scenario 'player 1 wins' (methods.toml)\n" in said, said
    assert "Not run here" not in said
    assert unchecked_public(load_assignment("swe3006")) == {}
    reference = (ROOT / "yatzy" / "reference.py").read_text(encoding="utf-8")
    said = _check_py(tmp_path, "yatzy", reference, "--stage", "4")
    assert said.rstrip().endswith(
        "Public checks: 2 of 2 problems pass. " + HIDDEN_NOTE + "\n"
        "Not run here: 1 public case of the handout that the grade plays (problem 16); --verbose lists them."), said
    said = _check_py(tmp_path, "yatzy", reference, "--stage", "3", "--verbose")
    assert said.rstrip().endswith(
        "Not run here: 6 public cases of the handout that the grade plays (problems 12, 13, 14, 15):\n"
        "  P12: the scored categories added, open ones count 0 (bonus.toml [[total]])\n"
        "  P13: exactly 63 earns 50 (bonus.toml [[bonus]])\n"
        "  P13: 62 earns nothing (bonus.toml [[bonus]])\n"
        "  P14: highest total first (bonus.toml [[rankings]])\n"
        "  P14: equal totals keep their playing order (bonus.toml [[rankings]])\n"
        "  P15: Results: and one line per player, winner first (bonus.toml [[results]])"), said


def test_check_py_runs_the_file_as_a_script_and_names_the_game_it_leaves_out(tmp_path):
    """SWE3006's P11 grades `python swe3006.py` (the file's main guard); check.py never ran the file
    as a script, so a program without the guard passed there.  A check of check.py and `grade
    --public` only (notebooks.toml `notebook = false`: a notebook is no script) runs it now, from the
    file (check.py) or the source the sandbox was given (grade --public: run_as_script).  The main
    course's public whole game of stage 4 (games.toml 'second-yahtzee-bonus-forced-upper', filed under
    P20, kept out of the notebook) was dropped from check.py in silence: it stays out (its raw
    'Final score' prefix fails correct programs whose scorecard header differs), and is named there."""
    import json

    from autograder.grading.public import grade_public

    program = _edited("swe3006", 'if __name__ == "__main__":\n    YahtzeeGame().play()', "")
    said = _check_py(tmp_path, "swe3006", program, "--problem", "11")
    assert "  Problem 11 play: 13 rounds, the score sheet on request, the RNG contract: failed (3/4 checks pass)" in said
    assert ("    check: python swe3006.py plays the game (seed 7, cut short)\n"
            "      Ran: lines_starting(run_scripted(lambda: run_as_script(__file__), answers=['1', '1', 'n', 'Chance'], "
            "seed=7, until_eof=True, strict=False)[1], 'Round', 'Current dice', 'Current score')\n"
            "      Expected: ['Round 1', 'Current dice combination: [3, 2, 4, 6, 1]', 'Round 2']\n"
            "      Got: []\n") in said, said
    student = tmp_path / "public" / "swe3006.py"
    student.parent.mkdir()
    student.write_text(program, encoding="utf-8")
    report = grade_public(student, "swe3006", stage=3)
    rows = {(t.problem, t.status) for t in report.tests if t.name.startswith("P11 python swe3006.py plays")}
    assert rows == {(11, "failed")}, [(t.name, t.status) for t in report.tests]
    notebook = json.loads((Path(__file__).resolve().parents[1] / "notebooks" / "student" / "swe3006_stage3.ipynb")
                          .read_text(encoding="utf-8"))
    assert not [c for c in notebook["cells"] if "run_as_script(__file__)" in "".join(c["source"])]
    spec = load_assignment("yahtzee")
    assert "second-yahtzee-bonus-forced-upper" not in public_checks(spec)[0][20]
    assert unchecked_public(spec) == {20: ["second-yahtzee-bonus-forced-upper (games.toml [[game]])"]}


def test_the_unchecked_cases_note():
    """selfcheck.unchecked_lines: only the problems run, the count, the problems, a list with verbose."""
    unchecked = {0: ["x (a.toml [[k]])"], 3: ["y (b.toml [[c]])", "z (b.toml [[c]])"], 9: ["w (c.toml [[d]])"]}
    assert selfcheck.unchecked_lines(unchecked, [3, 4]) == [
        "Not run here: 3 public cases of the handout that the grade plays (problem 3 and others); --verbose lists them."]
    assert selfcheck.unchecked_lines(unchecked, [9], verbose=True) == [
        "Not run here: 2 public cases of the handout that the grade plays (problem 9 and others):",
        "  other: x (a.toml [[k]])", "  P9: w (c.toml [[d]])"]
    assert selfcheck.unchecked_lines(unchecked, []) == []
    assert selfcheck.unchecked_lines({}, [1, 2]) == []


# -- an instructor's edges ---------------------------------------------------------------------------

@pytest.mark.parametrize("until_eof", [False, True])
def test_render_trim_leaves_the_check_alone_and_runs_once(until_eof):
    """render_check of a trimmed check: the answers the reference never read are neither shown nor
    given, the caller's Check is the one it passed (it was mutated: answers cut, trim off), and the
    call ran once (it ran twice).  With until_eof too (a game that ends on a closed input)."""
    namespace: dict = {"__name__": "reference"}
    exec(TOOLS, namespace)
    exec("RUNS = []\n"
         "def game():\n"
         "    RUNS.append(1)\n"
         "    first = input('a? ')\n"
         "    second = input('b? ')\n"
         "    print('Scored', first + second)\n"
         "    return first + second\n", namespace)
    check = Check(1, call="game()", answers=["x", "y", "unread", "never"], dice=[], strict=False,
                  lines=["Scored"], trim=True, until_eof=until_eof, origin="public scenario 'a game' (g.toml)")
    before = copy.deepcopy(check)
    code = render_check(check, namespace, "trim test")
    assert check == before
    assert namespace["RUNS"] == [1]
    assert "answers=['x', 'y']" in code and "unread" not in code
    assert namespace["LAST_RUN"]["answers"] == []
    assert render_check(check, dict(namespace, RUNS=[]), "trim test") == code


def test_notebooks_toml_is_parsed_once_per_version(tmp_path):
    """Assignment.notebook_data: the call graph (calls()) and every notebook build read notebooks.toml;
    it is parsed once per version of the file, each caller given its own copy."""
    spec = load_assignment("yatzy")
    first = spec.notebook_data()
    misses = _parsed_toml.cache_info().misses
    spec.calls()
    second = spec.notebook_data()
    assert _parsed_toml.cache_info().misses == misses
    assert first == second and first is not second
    first["problems"].clear()
    assert spec.notebook_data() == second
    assert load_assignment("pytzee").notebook_data() == {}      # (no notebooks.toml)


# -- scenario data audited case by case (authoring/audit.py, `scenarios --audit`) ------------------

def test_every_course_audits_clean(capsys):
    """Every case of every course does what its text says on the reference (a drift fails here and
    in `make check`).  It found one: yahtzee's 'ones among other dice' had hint_when 2, the
    reference's own value (its hint could never show): removed."""
    from autograder.authoring.scenarios import run_audit

    assert run_audit(None) == 0
    said = capsys.readouterr().out.splitlines()
    assert said == ["cs21: 75 cases evaluated on the reference, each as its text says",
                    "pytzee: 0 cases evaluated on the reference, each as its text says",
                    "swe3006: 75 cases evaluated on the reference, each as its text says",   # (74 before students25's P1 case)
                    "yahtzee: 134 cases evaluated on the reference, each as its text says",
                    "yatzy: 42 cases evaluated on the reference, each as its text says"]


def _drifted(tmp_path: Path, course: str, edits: list[tuple[str, str]], extra: str = ""):
    """A copy of COURSE whose scoring.toml has EDITS (each found once) and EXTRA at its end."""
    import dataclasses
    import shutil

    root = tmp_path / course
    shutil.copytree(ROOT / course, root, ignore=shutil.ignore_patterns("__pycache__"))
    path = root / "scenarios" / "scoring.toml"
    text = path.read_text(encoding="utf-8")
    for find, replace in edits:
        assert text.count(find) == 1, find
        text = text.replace(find, replace)
    path.write_text(text + extra, encoding="utf-8")
    return dataclasses.replace(load_assignment(course), root=root)


def test_the_audit_finds_each_kind_of_drift(tmp_path):
    """Cases edited the way data drifts: a 'not a full house' case whose dice became one, every Yatzy
    case losing its five alike (the category no longer reachable; 'five alike score 50' names no
    category, so its text claims nothing), a call the reference cannot make, a hint for the right answer, a 'full house'
    case of SWE3006 (a category of calculate_score's dict) whose dice are none; `claim` says what a
    text cannot, and an unknown claim is refused."""
    from autograder.authoring.audit import audit

    yatzy = _drifted(tmp_path, "yatzy", [
        ('call = ["full_house", [4, 4, 4, 4, 4]]', 'call = ["full_house", [4, 4, 4, 6, 6]]'),
        ('call = ["yatzy", [3, 3, 3, 3, 3]]', 'call = ["yatzy", [3, 3, 3, 3, 2]]'),
    ], '[[case]]\ncall = ["pair"]\nwhy = "a pair of nothing"\n')
    findings, count = audit(yatzy)
    assert count == 43
    assert [str(f) for f in findings] == [
        "yatzy: scoring.toml [[case]] 'five alike are not a full house': its text says nothing scores, but the "
        "reference gives 24 (claim = \"scores\" if it means to score)",
        "yatzy: scoring.toml [[case]] 'a pair of nothing': the reference raised TypeError: pair() missing 1 required "
        "positional argument: 'dice'",
        "yatzy: yatzy: no case scores in it (2 cases, every one 0): what it scores is never checked"]
    cs21 = _drifted(tmp_path, "cs21", [('hint_when = 3\nhint = "sumOfN adds the dice showing num (their sum), it does '
                                        'not count them."\n[[case]]\ncall = ["sumOfN", [5, 4, 5, 2, 5], 3]',
                                        'hint_when = 15\nhint = "sumOfN adds the dice showing num (their sum), it does '
                                        'not count them."\n[[case]]\ncall = ["sumOfN", [5, 4, 5, 2, 5], 3]')])
    assert [str(f) for f in audit(cs21)[0]] == [
        "cs21: scoring.toml [[case]] 'three fives are 15': hint_when 15 is the reference's own value: the hint "
        "would follow a right answer"]
    swe = _drifted(tmp_path, "swe3006", [("dice = [3, 6, 3, 6, 6]", "dice = [3, 6, 3, 6, 1]")])
    assert [str(f) for f in audit(swe)[0]] == [
        "swe3006: scoring.toml [[case]] 'a full house: three of one and two of another': the reference gives "
        "{'Full House': 0}: the case scores nothing where its text claims something (claim = \"zero\" if it means "
        "no score)",
        "swe3006: Full House: no case scores in it (5 cases, every one 0): what it scores is never checked"]   # (4: students25's P1 case)
    swe = _drifted(tmp_path / "claimed", "swe3006", [("dice = [3, 6, 3, 6, 6]", "dice = [3, 6, 3, 6, 1]\nclaim = \"zero\"")])
    assert [str(f) for f in audit(swe)[0]] == [      # (its claim said; the category still unreachable)
        "swe3006: Full House: no case scores in it (5 cases, every one 0): what it scores is never checked"]   # (4: students25's P1 case)
    swe = _drifted(tmp_path / "unknown", "swe3006", [("dice = [3, 6, 3, 6, 6]", "dice = [3, 6, 3, 6, 6]\nclaim = \"maybe\"")])
    assert [str(f) for f in audit(swe)[0]] == [
        "swe3006: scoring.toml [[case]] 'a full house: three of one and two of another': claim 'maybe' is none of "
        "('zero', 'scores')"]
