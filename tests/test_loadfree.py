"""A grade does not depend on how busy the machine is (pass 21, helper loadfree): the fork budget.

A request's process tree shares harness/audit.py's FORK_BUDGET: each process spends its own part
(the request process holds the whole budget, a fork costs one and hands the child an eighth of what
is left), and a fork past its part raises BlockingIOError at once.  Before, the kernel's
RLIMIT_NPROC refused a fork only when the tree's processes filled the uid's count, and *which*
process was refused, and when, was the scheduler's: tests/corpus's fork_bomb scored 98.6664 at a
quiet load and 96.5-97.3 at a load of 12 or more.

The corpus (tests/corpus/loadfree, tests/corpus's fork_bomb) is graded quietly and again under a
CPU load this test makes (LOAD busy processes at nice 0 for the whole second grading), each
program in a fresh `python -m autograder grade`: the same exact score both ways, expected.toml's.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from helpers.corpus import chained_text

from autograder import toml as tomllib  # the one TOML shim
from autograder.assignment import load_assignment
from autograder.engine.sandbox import Request, Sandbox, isolation

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus" / "loadfree"
PROGRAMS = tomllib.loads((CORPUS / "expected.toml").read_text(encoding="utf-8"))["program"]
FORK_BOMB = next(c for c in tomllib.loads((ROOT / "tests" / "corpus" / "expected.toml").read_text(
    encoding="utf-8"))["case"] if c["name"] == "fork_bomb")
LIMITS_ENV = "wall_s=1,cpu_s=4,memory_mb=256"       # tests/corpus's (helpers/hostile.py), for fork_bomb's score
LOAD = 3                                             # busy processes: more than the machine's two cores

pytestmark = pytest.mark.serial      # it loads the machine itself: run alone (make test's step 2)


def _cases() -> dict[str, tuple[str, str, float]]:
    """name -> (course, text, exact score expected)."""
    cases = {p["name"]: (p["assignment"], chained_text(CORPUS, PROGRAMS, p), p["score"]) for p in PROGRAMS}
    if isolation()["uid_drop"]:          # (its corpus case needs it: helpers/hostile.py)
        solution = (ROOT / "solution" / "yahtzee.py").read_text(encoding="utf-8")
        bomb = (ROOT / "tests" / "corpus" / "fork_bomb.py").read_text(encoding="utf-8")
        cases["fork_bomb"] = ("yahtzee", solution.rstrip("\n") + "\n\n\n" + bomb, FORK_BOMB["score"])
    return cases


def _grade_all(tmp: Path, cases: dict[str, tuple[str, str, float]]) -> dict[str, float]:
    scores = {}
    env = dict(os.environ, PYTHONPATH=str(ROOT), AUTOGRADER_LIMITS=LIMITS_ENV)
    for name, (course, text, _) in cases.items():
        folder = tmp / name.replace("/", "-")
        folder.mkdir(parents=True)
        path = folder / load_assignment(course).student_file
        path.write_text(text, encoding="utf-8")
        done = subprocess.run([sys.executable, "-m", "autograder", "grade", str(path), "--assignment", course,
                               "--format", "json"], capture_output=True, text=True, cwd=ROOT, env=env, timeout=600)
        assert done.returncode == 0, done.stderr[-2000:]
        report = json.loads(done.stdout)
        assert not report.get("error"), report["error"]
        scores[name] = report["score"]
    return scores


def _busy(seconds: float) -> list[subprocess.Popen]:
    """LOAD processes that spin at nice 0 (ended by the caller; SECONDS: their own end at the latest)."""
    spin = f"import time\nend = time.monotonic() + {seconds}\nwhile time.monotonic() < end:\n    pass\n"
    return [subprocess.Popen([sys.executable, "-c", spin]) for _ in range(LOAD)]


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict[str, dict[str, float]]:
    """way ("quiet", "loaded") -> program name -> score."""
    cases = _cases()
    quiet = _grade_all(tmp_path_factory.mktemp("loadfree-quiet"), cases)
    spinners = _busy(600)
    try:
        time.sleep(0.5)                                # (the load in place before the first grade)
        loaded = _grade_all(tmp_path_factory.mktemp("loadfree-loaded"), cases)
        assert all(s.poll() is None for s in spinners), "the load ended before the grading did"
    finally:
        for s in spinners:
            s.kill()
            s.wait()
    return {"quiet": quiet, "loaded": loaded}


@pytest.mark.parametrize("name", [p["name"] for p in PROGRAMS] + ["fork_bomb"])
def test_the_same_exact_score_quietly_and_under_load(graded, name):
    cases = _cases()
    if name not in cases:
        pytest.skip("fork_bomb needs its own uid (RLIMIT_NPROC), which this machine does not give the sandbox")
    expected = cases[name][2]
    assert graded["quiet"][name] == pytest.approx(expected, abs=1e-4), graded
    assert graded["loaded"][name] == pytest.approx(expected, abs=1e-4), graded


def test_the_budget_is_each_process_own_count():
    """The request process makes 12 forks (18: each costs one and hands the child an eighth of the
    rest), its first child 2 with the 2 it was handed (a double fork still works), every time: what it did
    decides, not what its tree did meanwhile; the next request has the whole budget again."""
    box = Sandbox(textwrap.dedent("""
        import os

        def count(bomb):
            made, first = 0, None
            while True:
                try:
                    child = os.fork()
                except BlockingIOError:
                    break
                if child == 0:                   # the child: how many forks its part lets it make
                    n = 0
                    try:
                        while True:
                            if os.fork() == 0:
                                if bomb:         # every grandchild forks until refused, too
                                    try:
                                        while True:
                                            os.fork()
                                    except BlockingIOError:
                                        pass
                                os._exit(0)
                            n += 1
                    except BlockingIOError:
                        os._exit(n)
                if first is None:
                    first = child
                made += 1
            _, status = os.waitpid(first, 0)
            return [made, os.waitstatus_to_exitcode(status)]
    """).lstrip("\n"), "yahtzee.py")
    try:
        for bomb in (False, True, False):
            out = box.run(Request("call", "count", [bomb], timeout=3))
            assert (out.status, out.value) == ("ok", [12, 2]), (out.status, out.error)
            assert "started a new process (fork)" in out.attempts
    finally:
        box.close()
