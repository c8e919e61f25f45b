"""Round six of the hostile corpus (redteam6, issue 13's eighteenth pass; tests/corpus/round6/): what
the grader reads back from a program's text, after the checks or inside them.

Yahtzee's cases (expected.toml) are graded alone, in ONE `grade-all --jobs 1` batch and through the
Gradescope bundle by tests/helpers/rounds.py (exact score, phrases, plain text, wall time).  This
file adds what the round is about:
  * the strategy leaderboard and the feedback plot read a strategy's mean and histogram only from
    the mean check's own rows whose whole output is the grader's sentence: a program's message
    neither puts it on the board (nor above a real result) nor stops the class's exports;
  * the numbers a suite reads out of a program's printing go through bounds.number: no digits
    (5000 of them, '²', '--5') make a check raise inside the grader (an "internal error");
  * grade-all's content hash covers every file the loader may grade: a changed program is graded
    again however its folder hides it (500 notes before it, a dot folder, __pycache__/).
Each of these fails on main 44bdcdc (said case by case).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from helpers.rounds import LIMITS_ENV, REPO, Round, built_files, got_for, module_tests
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autograder import toml as tomllib
from autograder.assignment import load_assignment
from autograder.coach import leaderboard

ROUND = Round(REPO / "tests" / "corpus" / "round6", jobs=1)
globals().update(module_tests(ROUND, "round6", attacks=7))     # results, test_round6_case, ...

FORGERS = ("forge_leaderboard", "histogram_past_float", "leaderboard_other_digits")
SOLUTION = (REPO / "solution" / "yahtzee.py").read_text(encoding="utf-8")
STARTER = (REPO / "starter" / "yahtzee.py").read_text(encoding="utf-8")


# --- the leaderboard and the plot ----------------------------------------------------------------

def test_round6_every_export_is_written_and_no_message_reaches_the_board(results):
    """On main 44bdcdc histogram_past_float stopped grade-all's exports (no grades.csv, no LMS files,
    no report, later classmates' pages missing) and forge_leaderboard stood first on a strategy board
    though stage 5 was not graded.  Now: every file, every page, no board, no strategy plot."""
    out = results["out"]
    for name in ("grades.csv", "canvas_grades.csv", "moodle_grades.csv", "grades.json", "report.html"):
        assert (out / name).is_file(), name
    for case in ROUND.runnable:
        for ext in ("html", "md", "txt"):
            assert (out / "feedback" / f"{case.name}.{ext}").is_file(), (case.name, ext)
    assert sorted(p.name for p in (out / "feedback").glob("*-strategy.png")) == []
    report = (out / "report.html").read_text(encoding="utf-8")
    assert 'id="leaderboard"' not in report and "299.99" not in report
    for name in FORGERS:
        page = (out / "feedback" / f"{name}.html").read_text(encoding="utf-8")
        assert "data:image/png" not in page, name


def test_round6_no_check_raised_inside_the_grader(results):
    """round_number_too_long: on main 44bdcdc four game checks were 'internal error (not your
    fault)' and `grade` exited 1; now none, any way."""
    for case in ROUND.runnable:
        for way in ("alone", "batch", "gradescope"):
            text = got_for(results, case, way)["text"]
            assert "internal error" not in text, (case.name, way)
    assert "grader error" not in results["batch_run"]["stderr"]


def _row(test_id: str, output: str, stage: int = 5) -> dict:
    return {"name": "x", "problem": 23, "stage": stage, "score": 0, "max_score": 2, "status": "failed",
            "output": output, "visibility": "visible", "hint": "", "elapsed": 0.0, "test_id": test_id}


MEAN_ID = "test_stage5_strategy.py::test_mean_score[beats the greedy player]"
SENTENCE = ("Your strategy's mean: 201.50 points over 1000 games (lowest 90, highest 400). Same games: "
            "always-Chance 46.55, greedy 161.95; the ceiling, optimal play's expected score: 254.59.\n"
            "Games by score, 25-point bins from 0: 0 0 0 100 400 400 100")


@pytest.mark.parametrize("rows,found", [
    ([_row(MEAN_ID, SENTENCE)], (201.5, 1000, [0, 0, 0, 100, 400, 400, 100])),
    ([_row(MEAN_ID, "Your strategy does not beat the greedy player (161.95 on the same games). " + SENTENCE)],
     (201.5, 1000, [0, 0, 0, 100, 400, 400, 100])),
    # the sentence in another check's output (a message), first in the list
    ([_row("test_stage1_scoring.py::test_chance[x]", SENTENCE.replace("201.50", "299.99"), stage=1),
      _row(MEAN_ID, SENTENCE)], (201.5, 1000, [0, 0, 0, 100, 400, 400, 100])),
    ([_row("test_stage5_strategy.py::test_keep_is_positions[x]", SENTENCE)], None),
    # the mean check's own row, but the sentence after a program's text (a stopped contest)
    ([_row(MEAN_ID, "The games could not be played: choose_keep raised ValueError: x\n" + SENTENCE)], None),
    ([_row(MEAN_ID, SENTENCE.replace("201.50", "\u0662\u0660\u0661.\u0665\u0660"))], None),
    ([_row(MEAN_ID, SENTENCE.replace(" 100\n", " 99\n").replace("400 400 100", "400 400 101"))], None),
    ([_row(MEAN_ID, SENTENCE.replace("0 0 0 100", "0 0 0 -100"))], None),
    ([_row(MEAN_ID, SENTENCE.replace("400 400 100", "400 400 " + "9" * 400))], None),
    ([_row(MEAN_ID, SENTENCE + " trailing")], None),
    ([_row(MEAN_ID, SENTENCE, stage=1)], None),
])
def test_round6_the_board_reads_only_the_mean_checks_own_sentence(rows, found):
    """Every shape of the forgery the corpus's messages use, and the grader's own sentences (passed,
    failed tier): only those are read (on main 44bdcdc the first match anywhere was)."""
    assert leaderboard.strategy_result(rows) == found


def test_round6_a_forged_mean_never_outranks_real_ones(tmp_path):
    """Stage 5 graded: an honest strategy (the reference's), one whose choose_keep raises the
    board's sentence with 299.99 (its stored P21/P22 outputs hold it) and forge_leaderboard (the
    same in a stage-1 message; its strategy's score_chance raises).  On main 44bdcdc both forgers
    stood above the reference's 225.79 at 299.99 (218.49 on pass 21's games).  Now the board holds each
    strategy's real mean, best first."""
    klass = tmp_path / "class"
    klass.mkdir()
    forged = ("\n\ndef choose_keep(dice, rolls_left, scorecard):\n    raise ValueError(\"x\\nYour strategy's mean: "
              "299.99 points over 1000 games\\nGames by score, 25-point bins from 0: 0 0 0 0 0 0 0 0 0 0 0 0 1000\")\n")
    (klass / "alice.py").write_text(SOLUTION, encoding="utf-8")
    (klass / "mallory.py").write_text(SOLUTION + forged, encoding="utf-8")
    (klass / "forge_leaderboard.py").write_text(ROUND.text(ROUND.by_name["forge_leaderboard"]), encoding="utf-8")
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "autograder", "grade-all", str(klass), "--stage", "5", "--jobs", "1",
                           "--out", str(out), "--no-progress"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=900, env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert done.returncode == 0, done.stderr[-3000:]
    from autograder.grading.gradebook import Gradebook

    with Gradebook(out / "gradebook.sqlite") as book:
        board = leaderboard.leaderboard_rows(book.rows("yahtzee"))
    # (forge_leaderboard's strategy calls its own score_chance, which raises: its real 75.14, 7 points;
    # measured, not predicted: the test was written expecting the reference's 225.79)
    # Pass 21 (redteam8): the games' seeds are digests of the contest's key (round-8
    # strategy_finds_the_seed), so every mean moved with the games: alice 225.79 -> 218.49, mallory
    # 118.45 -> 117.7, forge_leaderboard 75.14 -> 74.12; the order and the points are unchanged.
    assert [(e["id"], e["mean"], e["points"]) for e in board] == [
        ("alice", 218.49, 20), ("mallory", 117.7, 5), ("forge_leaderboard", 74.12, 7)]
    report = (out / "report.html").read_text(encoding="utf-8")
    assert "299.99" not in report and report.index("feedback/alice.html") < report.index("feedback/mallory.html")


# --- numbers read out of a program's printing ----------------------------------------------------

DIGITISH = st.text(alphabet="0123456789-_ \u00b2\u00b3\u0663\u0969\u2155:.Round Scored points in", max_size=40)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=DIGITISH, digits=st.integers(0, 6000))
def test_round6_a_courses_line_reader_never_raises_on_digits(body, digits):
    """Every course's protocol reader, and Yahtzee's lenient round reader, on lines of digits,
    signs, superscripts and other scripts' digits (the class of round_number_too_long and yatzy's
    superscript_category / double_minus_category: int() of a program's text)."""
    from autograder.assignments.cs21.suites import common as cs21
    from autograder.assignments.swe3006.suites import common as swe3006
    from autograder.assignments.yahtzee.suites import game
    from autograder.assignments.yatzy.suites import common as yatzy

    lines = [body, f"Round 1: {body}", f"Round {body}", f"Scored {body} points in {body}.", f"1. x: {body}",
             "round " + "9" * digits, f"Round {'9' * digits}", f"Scored {'7' * digits} points in Chance."]
    text = "\n".join(lines) + "\n"
    yatzy.read_lines(text)
    cs21.protocol_lines(text)
    swe3006.protocol_lines(text)
    for line in lines:
        assert game._names_round(line, 3) in (True, False)


# --- the content hash of a second run ------------------------------------------------------------

@pytest.mark.parametrize("name", ["program_after_500_files", "program_in_hidden_folder", "program_in_pycache"])
def test_round6_a_changed_program_is_graded_again(tmp_path, name):
    """The case's folder holding the starter, beside an honest classmate, graded; then its program
    becomes the reference and the same command runs again.  On main 44bdcdc the second run called
    it "unchanged" (the program was not in the hash) and kept 0; now it is graded again (100) and
    only the classmate is skipped."""
    klass, out = tmp_path / "class", tmp_path / "out"
    files = built_files(ROUND, ROUND.by_name[name])
    program = next(rel for rel in files if rel.endswith("yahtzee.py"))
    for rel, content in files.items():
        path = klass / name / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(STARTER if rel == program else content, encoding="utf-8")
    (klass / "alice.py").write_text(SOLUTION, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(REPO), AUTOGRADER_LIMITS=LIMITS_ENV)
    command = [sys.executable, "-m", "autograder", "grade-all", str(klass), "--jobs", "1", "--out", str(out),
               "--no-progress"]

    def run() -> tuple[str, dict[str, float]]:
        done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=600, env=env)
        assert done.returncode == 0, done.stderr[-3000:]
        grades = json.loads((out / "grades.json").read_text(encoding="utf-8"))
        return done.stdout, {s["id"]: s["total"] for s in grades["students"]}

    said, first = run()
    assert first == {"alice": 100, name: 0} and "2 graded" in said
    (klass / name / program).write_text(SOLUTION, encoding="utf-8")
    said, second = run()
    assert second == {"alice": 100, name: 100}
    assert "1 graded, 1 unchanged" in said, said


# --- yatzy: one batch -----------------------------------------------------------------------------

COURSES_DIR = REPO / "tests" / "corpus" / "round6" / "courses"
COURSE_CASES = tomllib.loads((COURSES_DIR / "expected.toml").read_text(encoding="utf-8"))["case"]
MAIN_BLOCK = '\nif __name__ == "__main__":'


@pytest.fixture(scope="module")
def course_batches(tmp_path_factory) -> dict[str, dict]:
    root = tmp_path_factory.mktemp("round6-courses")
    env = dict(os.environ, PYTHONPATH=str(REPO), AUTOGRADER_LIMITS=LIMITS_ENV)
    got = {}
    for course in sorted({c["course"] for c in COURSE_CASES}):
        spec = load_assignment(course)
        reference = spec.solution.read_text(encoding="utf-8")
        klass, out = root / course / "class", root / course / "out"
        for case in (c for c in COURSE_CASES if c["course"] == course):
            text = reference
            if case["layout"] == "snippet":
                at = reference.rfind(MAIN_BLOCK)
                snippet = (COURSES_DIR / f"{course}_{case['name']}.py").read_text(encoding="utf-8")
                text = reference[:at] + "\n\n# --- the hostile part ---\n" + snippet + "\n" + reference[at:]
            (klass / case["name"]).mkdir(parents=True)
            (klass / case["name"] / spec.student_file).write_text(text, encoding="utf-8")
        done = subprocess.run([sys.executable, "-m", "autograder", "grade-all", str(klass), "--assignment", course,
                               "--jobs", "1", "--out", str(out), "--no-progress"], cwd=root, env=env,
                              capture_output=True, text=True, timeout=600)
        grades = json.loads((out / "grades.json").read_text(encoding="utf-8")) if (out / "grades.json").exists() else {}
        students = {s["id"]: s for s in grades.get("students", [])}
        got[course] = {"run": done, "students": students,
                       "feedback": {sid: (out / "feedback" / f"{sid}.txt").read_text(encoding="utf-8") for sid in students}}
    return got


def test_round6_every_course_batch_finished(course_batches):
    for course, got in course_batches.items():
        assert got["run"].returncode == 0, (course, got["run"].stderr[-3000:])
        assert "0 grader failures" in got["run"].stdout, (course, got["run"].stdout)
        assert "grader error" not in got["run"].stderr, (course, got["run"].stderr[-3000:])


@pytest.mark.parametrize("case", COURSE_CASES, ids=[f"{c['course']}-{c['name']}" for c in COURSE_CASES])
def test_round6_course_case(course_batches, case):
    got = course_batches[case["course"]]
    student = got["students"][case["name"]]
    assert student["total"] == pytest.approx(case["score"], abs=1e-4), (case["why"], student["problems"])
    if case.get("same_as"):
        assert student["total"] == got["students"][case["same_as"]]["total"]
    text = got["feedback"][case["name"]]
    for phrase in case["phrases"]:
        assert phrase.lower() in text.lower(), (phrase, text[:3000])
    assert "Traceback" not in text and "internal error" not in text


def test_round6_the_coach_reads_a_transcripts_numbers_bounded():
    """`coach --review` on a transcript whose Scored line has 5000 digits (or another script's
    digits): on main 44bdcdc int() raised (a traceback); now the same review as the plain score's."""
    from autograder.coach import review

    def game(points: str) -> str:
        return ("Round 1\nDice: 1 2 3 4 5\nScore this roll in which category? Chance\n"
                f"Scored {points} points in Chance.\n")

    plain = review.format_review(review.review_game(game("15")))
    for points in ("9" * 5000, "\u0661\u0665", "-" + "9" * 5000):
        assert review.format_review(review.review_game(game(points))) == plain
    assert review.parse_game(game("9" * 5000))[0].points == review.parse_game(game("9" * 40))[0].points


# int()/float() calls in the code that reads what programs print, each on the grader's own data
# (a scenario's field, the reference's transcript, the grader's slot names, one ASCII die):
GRADER_DATA_INTS = {
    ("cs21/suites/test_stage4_game.py", "int(line.fields[1])"),        # the reference's own lines
    ("pytzee/suites/common.py", "int(slot[-1])"),                      # the grader's slot names
    ("swe3006/suites/units.py", "int(position)"),                      # a scenario's keys
    ("yahtzee/suites/game.py", 'int(game["seed"])'),                   # a scenario's fields
    ("yahtzee/suites/game.py", 'int(game["rounds"])'),
    ("coach/review.py", "float(sum(d.loss for d in self.decisions))"),
    ("coach/review.py", "int(m.final_score(card))"),
    ("coach/review.py", "int(v)"),                                     # one die matched by [1-6]
}


def test_round6_suites_read_a_programs_digits_with_bounds_number():
    """The class of round_number_too_long and yatzy's superscript_category: a suite (or the
    coach's transcript reader) that int()s text a program printed raises inside the grader.  Every
    int()/float() of a suite and of coach/review.py is one of the known readers of grader data
    above; a new one must read a program's digits with bounds.number (or be added here, with why)."""
    import ast

    roots = [(REPO / "autograder" / "assignments", "*/suites/*.py"), (REPO / "autograder", "coach/review.py")]
    found = set()
    for root, pattern in roots:
        for path in sorted(root.glob(pattern)):
            source = path.read_text(encoding="utf-8")
            for node in ast.walk(ast.parse(source)):
                if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("int", "float")
                        and node.args):
                    found.add((path.relative_to(root).as_posix(), ast.get_source_segment(source, node)))
    assert found == GRADER_DATA_INTS, f"new: {sorted(found - GRADER_DATA_INTS)}; gone: {sorted(GRADER_DATA_INTS - found)}"


def test_a_folder_with_more_programs_than_are_hashed_is_never_unchanged(tmp_path):
    """The class of program_after_500_files one step on: 600 programs (a virtual environment handed
    in) before the graded one fill the hash's 500 places with programs, so the program a later run
    grades may not be among them.  Such a folder's hash is new at every run (graded again); a
    folder at the cap is hashed as before, the same every run, and changes with its program."""
    from autograder.grading.discover import MAX_FILES_HASHED, UNHASHED, Entry

    def folder(name: str, helpers: int):
        root = tmp_path / name
        (root / "venv").mkdir(parents=True)
        for i in range(helpers):
            (root / "venv" / f"m{i:04}.py").write_text(f"X = {i}\n", encoding="utf-8")
        (root / "yahtzee.py").write_text(STARTER, encoding="utf-8")
        return root

    crowded = folder("crowded", 600)
    first, second = Entry("crowded", crowded), Entry("crowded", crowded)
    assert first.files[-1] == (UNHASHED, None) and len(first.files) == MAX_FILES_HASHED + 1
    assert first.hash != second.hash and not first.error
    at_cap = folder("at_cap", MAX_FILES_HASHED - 1)
    before = Entry("at_cap", at_cap).hash
    assert Entry("at_cap", at_cap).hash == before and len(Entry("at_cap", at_cap).files) == MAX_FILES_HASHED
    (at_cap / "yahtzee.py").write_text(SOLUTION, encoding="utf-8")
    assert Entry("at_cap", at_cap).hash != before
