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
main (the code was shown) but the boundary's, which is the same there.
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
