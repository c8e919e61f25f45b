"""Round three of the hostile corpus (redteam, issue 13's fifteenth pass): attacks on the speed
shortcuts of docs/threat-model.md, written after they landed by someone who read their code.

Every case of tests/corpus/round3/ (expected outcomes and the shortcut each tests in its
expected.toml) is graded alone, in ONE `grade-all --jobs 1` batch (one grader process, the cases
in the order of their names, so a case meets what the cases before it left in the reused
cgroups, uid slots, fork server and memos) and through the Gradescope bundle, by
tests/helpers/rounds.py, which asserts each way's exact score, phrases, plain text and wall time.
"""

from __future__ import annotations

import json

from helpers.rounds import REPO, Round, got_for, module_tests

ROUND = Round(REPO / "tests" / "corpus" / "round3", jobs=1)
globals().update(module_tests(ROUND, "round3", attacks=10))     # results, test_round3_case, ...


def test_round3_the_last_classmate_is_graded_after_every_attack(results):
    """The batch's one grader process grades in name order: the control meets every leftover."""
    names = sorted(c.name for c in ROUND.runnable if "batch" in c.ways)
    assert names[-1] == "zz_classmate_after"
    assert got_for(results, ROUND.by_name["zz_classmate_after"], "batch")["score"] == 100


HIDDEN_CALLS = ("score_upper([6, 6, 6, 6, 6], 6)", "score_upper([2, 2, 2, 2, 2], 1)")   # scoring.toml, not public


def test_round3_hidden_inputs_never_reach_public_feedback(results):
    """PROOF (docs/threat-model.md, "Public first"): the arguments of hidden checks, written to
    the work folder by the calls that received them, are no longer shown by a later PUBLIC
    check's exception message: every public request runs in a life where no hidden request ran
    (was KNOWN: the hidden calls showed there).  Hidden checks still show grader text only."""
    report = json.loads(results["alone"]["hidden_inputs_to_public"]["raw"])
    visible = " ".join(t.get("output") or "" for t in report["tests"] if t["visibility"] == "visible")
    hidden = " ".join(t.get("output") or "" for t in report["tests"] if t["visibility"] != "visible")
    # the program showed what it saw, public inputs, until pass 23: its checks run beside the later
    # stages' reference, so their text is withheld (engine/lent.py); round 4's stores still show theirs
    # (test_hostile_leaks.py: the positive control)
    assert "SEEN" not in visible and "Not shown: what your code printed" in visible
    assert not any(call in visible for call in HIDDEN_CALLS), visible[:3000]
    assert "SEEN" not in hidden                     # hidden checks still show grader text only
    for way in ("batch", "gradescope"):
        text = got_for(results, ROUND.by_name["hidden_inputs_to_public"], way)["text"]
        assert "SEEN" not in text and not any(call in text for call in HIDDEN_CALLS), (way, text[:3000])
