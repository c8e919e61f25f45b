"""Round two of the hostile corpus (issue 17): links, disk searches, leaks through student-chosen
text, sizes and nesting, text that attacks the reader, state between students, busy neighbours.

Every case of tests/corpus/round2/ (expected outcomes in its expected.toml) is graded alone, in
ONE `grade-all --jobs 2` batch and through the Gradescope bundle by tests/helpers/rounds.py
(shared with round three), which asserts each way's exact score, phrases, plain text and wall
time.  This file adds round two's own checks: the Markdown fence, the CSV formula, zip entry
names, the planted solutions.
"""

from __future__ import annotations

import os
import re

from helpers.rounds import CSV_STEM, RAW_CONTROL, REPO, Round, got_for, module_tests

from autograder.grading.discover import safe_id

ROUND = Round(REPO / "tests" / "corpus" / "round2")
globals().update(module_tests(ROUND, "round2", attacks=25))     # results, test_round2_case, ...


def test_round2_markdown_fence_holds(results):
    case = ROUND.by_name["markdown_fence_breakout"]
    for markdown in (got_for(results, case, "batch")["markdown"], results["alone"][case.name]["markdown"]):
        fence = None
        for line in markdown.splitlines():
            ticks = re.match(r"^(`{3,})", line)
            if fence is None and ticks:
                fence = ticks.group(1)
            elif fence is not None and line == fence:
                fence = None
            elif fence is None:
                assert "FULL MARKS" not in line and "<img" not in line, f"live Markdown: {line!r}"
        assert "FULL MARKS 100/100" in markdown


def test_round2_csv_formula_is_neutralised(results):
    rows = {r[0].lstrip("'"): r for r in results["csv"][1:]}
    row = rows[safe_id(CSV_STEM)]
    assert row[0].startswith("'+"), row[0]
    assert all(not cell.startswith(("=", "+", "-", "@")) for r in results["csv"] for cell in r[:1]), results["csv"]


def test_round2_zip_names_are_sanitised(results):
    stored = [p.name for p in results["out"].rglob("*")] + [p.name for p in results["root"].rglob("*")]
    assert not any(RAW_CONTROL.search(name) for name in stored), [n for n in stored if RAW_CONTROL.search(n)]
    assert not list(results["root"].rglob("escaped.txt")), "a '..' zip entry was extracted"
    assert "\\x1b" in results["batch_run"]["stdout"] or "unsafe" in results["batch_run"]["stdout"]


def test_round2_planted_solutions_existed_and_were_readable(results):
    """The disk-search cases' control: the planted files were there, readable by any user."""
    assert results["planted"], "nowhere to plant a solution outside /tmp on this machine"
    for folder in results["planted"]:
        if str(folder).startswith("/root"):
            continue
        assert os.stat(folder / "yahtzee.py").st_mode & 0o004
