"""One cold `python -m autograder grade` (cli._template_early, cli.end): the template booted first,
the process ended without Python's teardown.  Its grade is grade()'s, and nothing outlives it:
the hostile sample (mallory: children, signals, files) graded under a child subreaper."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from autograder.grading.grade import grade

REPO = Path(__file__).resolve().parent.parent
SUBREAPER = REPO / "tests" / "subreaper.py"


def test_a_cold_grade_is_grade_and_leaves_nothing(tmp_path):
    mallory = REPO / "samples" / "class" / "mallory.py"
    report = tmp_path / "report.json"
    subprocess.run([sys.executable, str(SUBREAPER), str(report), sys.executable, "-m", "autograder", "grade",
                    str(mallory), "--format", "json"], cwd=REPO, timeout=300, check=True)
    ran = json.loads(report.read_text())
    assert ran["code"] == 0, ran["stderr"][-3000:]
    assert ran["left"] == []
    cold = json.loads(ran["stdout"])                  # the whole JSON: flushed before the quick exit
    warm = grade(str(mallory), "yahtzee").to_dict()
    assert cold["score"] == warm["score"] < 100
    assert [(t["test_id"], t["status"], t["output"]) for t in cold["tests"]] == \
        [(t["test_id"], t["status"], t["output"]) for t in warm["tests"]]
