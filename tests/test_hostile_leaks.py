"""Round four of the hostile corpus (issue 13's sixteenth pass): hidden inputs carried to public
feedback, as a class (docs/threat-model.md, "Public first").

Every case of tests/corpus/round4_leaks/ (its expected.toml) is graded alone, in ONE `grade-all
--jobs 1` batch and through the Gradescope bundle by tests/helpers/rounds.py, which asserts each
way's exact score and phrases.  This file adds the point of the round: no input of a hidden-only
request (one no public check reads: the plan's PUBLIC entry, ahead.public_keys) shows in visible
feedback, whichever store of its life the program kept it in; and the control's figure that
makes the absence mean something (the same recorder shows public inputs).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from helpers.rounds import LIMITS_ENV, REPO, Round, got_for, module_tests

ROUND = Round(REPO / "tests" / "corpus" / "round4_leaks", jobs=1)
globals().update(module_tests(ROUND, "round4", attacks=5))     # results, test_round4_case, ...

# The fingerprints the recorder writes (recorder_control.py): a call the grader made, "name(args)",
# and a scripted answer, «answer»; those of requests no public check reads, and none of a public one
FINGERPRINTS = """
import json, sys
from autograder.assignment import load_assignment
from autograder.engine.ahead import PUBLIC, request_key
from autograder.engine.program import reference_program
from autograder.grading.grade import reference_outcomes

spec = load_assignment(sys.argv[1])
plan = reference_outcomes(spec, reference_program(spec.reference, spec.student_file), [])
public = {request_key(r) for r in plan[PUBLIC]}
seen = {True: set(), False: set()}
for item, requests in plan.items():
    for r in requests if item != PUBLIC else ():
        marks = {"\\u00ab" + answer + "\\u00bb" for answer in r.stdin or []}
        if r.kind == "call" and r.func and not r.func.startswith("__"):
            marks.add(r.func.split(".")[-1] + repr(tuple(r.args)))
        seen[request_key(r) in public].update(marks)
print(json.dumps(sorted(m for m in seen[False] - seen[True] if len(m) >= 5)))
"""


@pytest.fixture(scope="module")
def hidden_only() -> list[str]:
    marks = _hidden_only("yahtzee")
    assert len(marks) > 100        # (the yahtzee plan's hidden checks ask many requests no public one does)
    return marks


def _visible(results: dict, name: str, way: str) -> str:
    if way == "alone":
        report = json.loads(results["alone"][name]["raw"])
        return " ".join(t.get("output") or "" for t in report["tests"] if t["visibility"] == "visible")
    return got_for(results, ROUND.by_name[name], way)["text"]     # (hidden feedback: grader text only)


@pytest.mark.parametrize("name", [c.name for c in ROUND.cases if c.name != "recorder_control"])
def test_round4_no_hidden_input_reaches_public_feedback(results, hidden_only, name):
    """PROOF (docs/threat-model.md, "Public first"): whatever store the program kept what it was
    asked in, a public check's feedback shows no input of a hidden-only request.  On 58138c7 each
    of these showed 41 to 52 of them (alone)."""
    for way in ("alone", "batch", "gradescope"):
        visible = _visible(results, name, way)
        # the public checks did show their store (>= 20 before pass 17: a check now excused within its stage,
        # engine/instage.py, shows the note with its failure's first line only; >= 10 before pass 23: a
        # stage-1..3 check whose code ran beside the later stages' reference shows none of its text unless
        # a run without them says the same, engine/lent.py, and a store's text differs there)
        assert visible.count("SEEN") >= 7, (way, visible[:2000])
        shown = [mark for mark in hidden_only if mark in visible]
        assert not shown, (name, way, shown[:5])


def test_round4_the_store_shows_public_inputs(results):
    """The positive control: the same recorder with a store shows the public requests it saw
    before (so the absence of hidden ones above is the rule, not a store that keeps nothing)."""
    control = _visible(results, "recorder_control", "alone")
    kept = _visible(results, "leak_work_file", "alone")
    # (before pass 23 the call was score_upper([1, 3, 3, 5, 3], 3), shown by a later stage-1 check: that
    # check ran beside the later stages' reference, and its text is withheld now, engine/lent.py; a
    # stage-4 check, whose sandbox holds earlier stages only, shows its store)
    kept_call = "is_joker([3, 3, 3, 3, 3], "
    assert kept_call not in control                    # (a public call: only its own request shows)
    assert kept.count(kept_call) >= 2                  # ...the store kept it for later public checks


def _hidden_only(course: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", FINGERPRINTS, course], cwd=REPO, capture_output=True, text=True,
                          env={**os.environ, "AUTOGRADER_LIMITS": LIMITS_ENV}, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


# Other courses: the course's reference with tests/corpus/round4_leaks/courses/recorder_any.py
# joined after it (every function and method the grader calls writes its arguments to a file of
# the work folder, then raises with the file's tail).  (score, hidden-only inputs shown on 58138c7)
COURSES = {"swe3006": (33.0, 24), "cs21": (0.0, 48)}


@pytest.mark.parametrize("course", sorted(COURSES))
def test_round4_other_courses_show_no_hidden_input(tmp_path, course):
    """PROOF (docs/threat-model.md, "Public first") for swe3006's class-based methods and cs21's
    functions: the same score as on 58138c7, and no hidden-only input in visible feedback."""
    from autograder.assignment import load_assignment

    spec = load_assignment(course)
    recorder = (ROUND.folder / "courses" / "recorder_any.py").read_text(encoding="utf-8")
    path = tmp_path / spec.student_file
    path.write_text(spec.reference.read_text(encoding="utf-8").rstrip("\n") + "\n\n\n" + recorder, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "autograder", "grade", str(path), "--assignment", course,
                           "--format", "json"], cwd=REPO, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "AUTOGRADER_LIMITS": LIMITS_ENV})
    report = json.loads(done.stdout)
    visible = " ".join(t.get("output") or "" for t in report["tests"] if t["visibility"] == "visible")
    hidden = " ".join(t.get("output") or "" for t in report["tests"] if t["visibility"] != "visible")
    marks = _hidden_only(course)
    assert marks and report["score"] == COURSES[course][0]
    # (>= 20 before pass 23: a check of stages 1-3 that ran beside the later stages' reference shows
    # its text only when a run without them says the same, engine/lent.py; cs21 11, swe3006 16 now)
    assert visible.count("SEEN") >= 10 and "SEEN" not in hidden
    shown = [mark for mark in marks if mark in visible]
    assert not shown, shown[:5]


def test_a_correct_program_starts_no_public_twin(monkeypatch):
    """The rule's cost for an honest student (docs/floor.md, "Pass 16"): a correct program's
    requests are the plan's, which every life runs public first, so none needs a public twin."""
    from autograder.engine import program
    from autograder.grading.grade import grade

    started: list[str] = []
    make = program.Program._public_life

    def counted(self):
        if self._public_twin is None:
            started.append(self.item or (self._owner.item if self._owner else ""))
        return make(self)
    monkeypatch.setattr(program.Program, "_public_life", counted)
    from autograder.assignment import load_assignment

    # Under a load spike a trial can run out and stop a batch in its public part; the public
    # requests it did not run then go to a twin (a cost, never a verdict: the score stays 100).
    # So a correct program must start none in at least one of three grades: a change that makes
    # honest students start twins fails every time.
    for course in ("yahtzee", "swe3006"):
        for _ in range(3):
            started.clear()
            report = grade(load_assignment(course).solution, assignment=course)
            assert report.score == 100, course
            if not started:
                break
        assert started == [], course
    grade(REPO / "samples" / "class" / "grace.py")      # the positive control: a check that leaves the plan
    assert len(started) == 1, started                    # (grace's stage-4 bonus bug) starts one
