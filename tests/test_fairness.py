"""Fairness: no points for nothing; robust to harmless differences.

No points for nothing: a program whose handout functions do nothing gets 0 on every check.

Each variant is the starter with the body of every function of the problem table replaced by one
do-nothing statement (return a constant, None or [], raise, pass), made here from the starter so it
never drifts.  Checks that such a function would pass (it expects 0, None or an exception) count
only once a check of the same function with a real answer passes (engine: no_points_for_nothing).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.programs import do_nothing

from autograder import toml as tomllib  # the one TOML shim
from autograder.assignment import load_assignment
from autograder.grading.grade import grade

ROOT = Path(__file__).resolve().parent.parent
BODIES = {"none": "return None", "zero": "return 0", "empty-list": "return []",
          "raise": "raise ValueError('not done')", "pass": "pass"}


@pytest.mark.parametrize("assignment", ["yahtzee", "pytzee"])
@pytest.mark.parametrize("kind", sorted(BODIES))
def test_doing_nothing_scores_zero(assignment, kind, tmp_path: Path):
    path = tmp_path / load_assignment(assignment).student_file
    path.write_text(do_nothing(assignment, BODIES[kind]), encoding="utf-8")
    report = grade(path, assignment)
    earned = [(t.name, t.score) for t in report.tests if t.score > 0]
    assert not [t.name for t in report.tests if t.status == "error"]
    assert earned == [] and report.score == 0, earned


# --- Robust to harmless differences ---------------------------------------------------------------

def test_syntax_error_from_a_newer_python_names_both_versions(tmp_path: Path):
    path = tmp_path / "yahtzee.py"
    path.write_text('def format_dice(dice):\n    return f"Dice: {" ".join(map(str, dice))}"\n', encoding="utf-8")
    report = grade(path, "yahtzee", stage=2)
    assert report.score == 0
    version = f"{sys.version_info[0]}.{sys.version_info[1]}"
    if sys.version_info >= (3, 12):      # valid there: the file loads and format_dice passes
        assert report.error == ""
    else:
        assert f"the grader runs Python {version}" in report.error and "3.12" in report.error, report.error


def test_python_option(tmp_path: Path):
    cli = [sys.executable, "-m", "autograder", "grade"]
    bad = subprocess.run([*cli, "solution/yahtzee.py", "--stage", "1", "--python", "/bin/false"],
                         capture_output=True, text=True, cwd=ROOT)
    assert bad.returncode == 2 and "--python /bin/false: not a Python" in bad.stderr
    other = tmp_path / "python3"
    other.symlink_to(sys.executable)
    good = subprocess.run([*cli, "solution/yahtzee.py", "--stage", "1", "--python", str(other),
                           "--format", "json"], capture_output=True, text=True, cwd=ROOT)
    assert good.returncode == 0 and json.loads(good.stdout)["score"] == 30
    batch = subprocess.run([sys.executable, "-m", "autograder", "grade-all", "--help"], capture_output=True,
                           text=True, cwd=ROOT)
    assert "--python PATH" in batch.stdout


def _other_pythons() -> list[str]:
    """Interpreters of another minor version than this one on this machine (3.10 and newest)."""
    import glob
    found = {}
    for path in sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.*/bin/python3.*"))
                       + glob.glob("/usr/bin/python3.*") + glob.glob("/usr/local/bin/python3.*")):
        name = os.path.basename(path)
        if not name.replace("python", "").replace(".", "").isdigit():
            continue
        minor = int(name.split(".")[1])
        if minor >= 10 and minor != sys.version_info[1] and os.access(path, os.X_OK):
            found.setdefault(minor, path)
    return [found[m] for m in sorted(found) if m in (min(found), max(found))] if found else []


@pytest.mark.parametrize("python", _other_pythons() or [None])
def test_python_option_with_another_version(python):
    """Student code on another Python than the grader's (bytecode is per version: the harness is
    sent as source there; 3.10 has no -P) gets the same score."""
    if python is None:
        pytest.skip("no Python of another minor version (3.10+) on this machine")
    done = subprocess.run([sys.executable, "-m", "autograder", "grade", "solution/yahtzee.py", "--stage", "1",
                           "--python", python, "--format", "json"], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["score"] == 30, report


# --- A bug costs points once, in its own stage ----------------------------------------------------

CROSSING_OK = "crosses"      # a mutant whose bug lives in a function graded in two stages says why


@pytest.mark.parametrize("assignment", ["yahtzee", "pytzee"])
def test_single_bug_programs_lose_points_in_their_own_stage(assignment):
    """The sample of single-bug programs (tests/mutants/*.toml, their exact scores and problems are
    asserted by test_mutants.py and test_pytzee.py) covers every stage, and each loses points in
    one stage only, unless the bug lives in a function graded in two stages (`crosses` says so)."""
    spec = load_assignment(assignment)
    stage_of = {p.number: p.stage for p in spec.problems}
    mutants = tomllib.loads((load_assignment(assignment).mutants).read_text(encoding="utf-8"))
    covered = set()
    for mutant in mutants["mutant"]:
        stages = {stage_of[p] for p in mutant["problems"]}
        if len(stages) == 1:
            covered |= stages
        elif stages:                    # (a program that loses nothing is a harmless difference)
            assert mutant.get(CROSSING_OK), f"{mutant['name']} loses points in stages {sorted(stages)}"
    assert covered == {s.number for s in spec.stages if not s.optional}


@pytest.mark.parametrize("name", ["alice.py", "bob.py"])
def test_correct_samples_lose_nothing(name):
    """The sample class's correct programs (written differently from the reference) get every point."""
    report = grade(ROOT / "samples" / "class" / name, "yahtzee")
    assert report.score == report.max_score == 100, [t.name for t in report.tests if t.score < t.max_score]
