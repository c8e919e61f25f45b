"""The caller's own pytest options never reach a grading session (grade.pytest_env).

pytest reads PYTEST_ADDOPTS and PYTEST_PLUGINS in every session of a process.  A CI that sets them
for its own tests (`PYTEST_ADDOPTS="--junitxml=..." make test`), or an instructor's shell, once made
every grading session load them: 4 of 5 submissions were "grader failures" in a batch.  Each way a
grading session starts (one `grade`, a `grade-all` worker's prepared session, `grade()` in the
caller's own process) is graded here with options that would break or change a session, and must
give the scores it gives without them, and leave the caller's environment as it was.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from helpers.cli import run_cli

from autograder.grading.grade import grade

REPO = Path(__file__).resolve().parent.parent
CLASS = REPO / "samples" / "class"


def _hostile_env(tmp_path: Path) -> dict[str, str]:
    """Options that change a session (stop at the first failure, leave out the python plugin, write
    a JUnit file, pick the checks by name) and a plugin that does not exist."""
    return {"PYTEST_ADDOPTS": f"-x --maxfail=1 -k no_such_check -p no:python --junitxml={tmp_path / 'junit.xml'}",
            "PYTEST_PLUGINS": "no_such_plugin_anywhere"}


@pytest.fixture(scope="module")
def plain_scores() -> dict[str, float]:
    """alice's (correct) and dave's (a full house by distinct faces) scores, graded without the options."""
    return {name: grade(CLASS / name, "yahtzee").score for name in ("alice.py", "dave.py")}


def test_one_grade_ignores_the_callers_pytest_options(tmp_path, plain_scores):
    env = dict(os.environ, PYTHONPATH=str(REPO), **_hostile_env(tmp_path))
    for name in ("alice.py", "dave.py"):
        proc = run_cli(["grade", str(CLASS / name), "--format", "json"], cwd=tmp_path, env=env)
        assert proc.returncode == 0, proc.stderr[-3000:]
        report = json.loads(proc.stdout)
        assert not report.get("error"), report.get("error")
        assert round(sum(t["score"] for t in report["tests"]), 4) == round(plain_scores[name], 4), name
    assert not (tmp_path / "junit.xml").exists()


def test_a_batch_ignores_the_callers_pytest_options(tmp_path, plain_scores):
    folder = tmp_path / "class"
    folder.mkdir()
    for name in ("alice.py", "dave.py"):
        (folder / name).write_bytes((CLASS / name).read_bytes())
    env = dict(os.environ, PYTHONPATH=str(REPO), **_hostile_env(tmp_path))
    proc = run_cli(["grade-all", str(folder), "--out", str(tmp_path / "out"), "--no-progress", "--jobs", "1"],
                   cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "2 submissions, 2 graded, 0 unchanged (skipped), 0 grader failures" in proc.stdout, proc.stdout
    from autograder.grading.gradebook import Gradebook

    with Gradebook(tmp_path / "out" / "gradebook.sqlite") as book:
        got = {row.submission_id: row.score for row in book.rows("yahtzee")}
    assert got == pytest.approx({"alice": plain_scores["alice.py"], "dave": plain_scores["dave.py"]}, abs=1e-4)
    assert not (tmp_path / "junit.xml").exists()


def test_grade_in_the_callers_process_ignores_its_options_and_puts_them_back(tmp_path, monkeypatch, plain_scores):
    hostile = _hostile_env(tmp_path)
    for name, value in hostile.items():
        monkeypatch.setenv(name, value)
    assert grade(CLASS / "dave.py", "yahtzee").score == pytest.approx(plain_scores["dave.py"], abs=1e-4)
    assert {name: os.environ.get(name) for name in hostile} == hostile
    assert not (tmp_path / "junit.xml").exists()
    assert plain_scores["dave.py"] < plain_scores["alice.py"], "the control: dave's bug costs points"
    assert sys.modules.get("no_such_plugin_anywhere") is None
