"""Round eleven of the hostile corpus (redteam11, pass 24).  Cases and predictions:
tests/corpus/round11/expected.toml (committed before each case was graded; `main_points` is what
main 1dd12b6 gives, measured with the same cases on its suites).

Part A (`[[excuse]]`): an excuse by agreement read from a later call of the same program.  The
Yahtzee suites pass a wrong answer that equals what the student's own helper gives (score() and
its box function, a total and upper_bonus, a game's printed total and final_score, a round's Dice:
lines and format_dice), asking the helper AFTER the excused call, in the same life.  A program
that remembers what it said (in memory, or in the work folder, which outlives a request) made its
helper agree once and passed checks of a function that does nothing: 28.9285 for a score() that
returns 0 where the same score() without the echo gets 24.  Now an excuse holds only when the
excused function, run again with the reference's helper (and what it calls) put in, gives the
reference's answer (engine/checks.reference_helpers): each echo gets exactly its control's score,
with exactly the same checks passed, and the honest programs whose helper really is wrong (the
mutants: bonus-over-63, five-of-a-kind-is-full-house, ...) keep theirs.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.batch import SOLUTION, env

from autograder import toml as tomllib  # the one TOML shim
from autograder.assignment import load_assignment
from autograder.engine.sources import callees

REPO = Path(__file__).resolve().parent.parent
FOLDER = REPO / "tests" / "corpus" / "round11"
EXPECTED = tomllib.loads((FOLDER / "expected.toml").read_text(encoding="utf-8"))
CASES = {case["name"]: case for case in EXPECTED["excuse"]}
PYTZEE = {case["name"]: case for case in EXPECTED["pytzee"]}
PYTZEE_SOLUTION = (REPO / "solution" / "pytzee.py").read_text(encoding="utf-8")


def _graded(name: str, folder: Path) -> dict:
    path = folder / name / "yahtzee.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(SOLUTION.rstrip("\n") + "\n\n\n" + (FOLDER / f"{name}.py").read_text(encoding="utf-8"),
                    encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "autograder", "grade", str(path), "--stage",
                           str(CASES[name]["stage"]), "--format", "json"],
                          env=env(), capture_output=True, text=True, timeout=600)
    assert proc.returncode in (0, 1), proc.stdout[-2000:] + proc.stderr[-2000:]
    return json.loads(proc.stdout)


def _graded_pytzee(name: str, folder: Path) -> dict:
    """NAME's code put in before the reference's main guard (a script run's main part starts there:
    harness targets.script_parts), graded on the core stages."""
    at = PYTZEE_SOLUTION.index('if __name__ == "__main__":')
    path = folder / name / "pytzee.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(PYTZEE_SOLUTION[:at] + (FOLDER / "pytzee" / f"{name}.py").read_text(encoding="utf-8")
                    + "\n\n" + PYTZEE_SOLUTION[at:], encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "autograder", "grade", str(path), "--assignment", "pytzee",
                           "--format", "json"], env=env(), capture_output=True, text=True, timeout=600)
    assert proc.returncode in (0, 1), proc.stdout[-2000:] + proc.stderr[-2000:]
    return json.loads(proc.stdout)


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    folder = tmp_path_factory.mktemp("round11")
    known: dict[str, dict] = {}

    def grade(name: str) -> dict:
        if name not in known:
            known[name] = _graded_pytzee(name, folder) if name in PYTZEE else _graded(name, folder)
        return known[name]
    return grade


@pytest.mark.parametrize("name", list(CASES))
def test_round11_an_excuse_is_never_read_from_the_programs_memory(graded, name):
    case = CASES[name]
    report = graded(name)
    assert report["score"] == pytest.approx(case["points"], abs=1e-4), name
    control = case.get("control")
    if control:
        # the echo earns nothing: the same checks pass as for the same bug without it
        passed = sorted(t["name"] for t in report["tests"] if t["status"] == "passed")
        assert passed == sorted(t["name"] for t in graded(control)["tests"] if t["status"] == "passed"), name


@pytest.mark.parametrize("name", list(PYTZEE))
def test_round11_a_twin_game_is_played_where_the_first_left_nothing(graded, name):
    """Pytzee's synonym checks pass a wrong game whose twin with the canonical words ends with the
    same non-zero score: the twin now runs in a life of its own (Program.apart), so a note the
    first game left in the work folder cannot make the twin agree; and a control game with another
    slot's word must end otherwise (a program whose games all end the same reads no word)."""
    case = PYTZEE[name]
    report = graded(name)
    assert report["score"] == pytest.approx(case["total"] if "total" in case else case["points"], abs=1e-4), name
    if "total" in case:         # (a program that reads no word: none of problem 13's checks)
        assert [t["score"] for t in report["tests"] if t["problem"] == 13] == [0, 0, 0, 0], name
    control = case.get("control")
    if control:
        passed = sorted(t["name"] for t in report["tests"] if t["status"] == "passed")
        assert passed == sorted(t["name"] for t in graded(control)["tests"] if t["status"] == "passed"), name


def test_round11_every_wrong_slot_for_a_synonym_fails_one_of_its_checks():
    """Part C, the class: a synonym's checks tell it from every other slot (and from ignoring it:
    the game's `skip` then counts nothing).  On main 1dd12b6 Chance scored what three of a kind
    does on both of problem 13's games (and three of a kind what four of a kind does on four
    alike): `synonym_as_chance` got problem 13 in full."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("pytzee_reference", REPO / "solution" / "pytzee.py")
    ref = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ref)
    games = [g for g in tomllib.loads((REPO / "autograder" / "assignments" / "pytzee" / "scenarios" / "games.toml")
                                      .read_text(encoding="utf-8"))["game"] if g["problem"] == 13]
    for synonym, meant in ref.SYNONYMS.items():
        right = ref.COMMANDS[meant]
        cases = [g["dice"][0] for g in games if g["commands"][0] == synonym and len(g["dice"]) == 1]
        for wrong in [slot for slot in ref.COUNT_TYPES + ref.SCORE_TYPES if slot != right] + [ref.SKIP]:
            def points(slot, dice):
                return 0 if slot == ref.SKIP else ref.score_slot(slot, dice)
            assert any(points(wrong, dice) != points(right, dice) for dice in cases), (synonym, wrong)


def test_round11_a_helpers_proof_puts_in_what_it_calls():
    """The proof of an excuse by agreement puts in the reference's helper and every handout function
    it calls (a total's bug may be in its upper bonus: bonus-over-63 keeps its score), never the
    function the excuse is about."""
    spec = load_assignment("yahtzee")
    source = spec.reference.read_text(encoding="utf-8")
    names = spec.handout_names
    assert callees(source, ["final_score"], names) == {"final_score", "upper_bonus"}
    assert callees(source, ["score_upper"], names) == {"score_upper"}
    assert callees(source, ["format_dice"], names) == {"format_dice"}
    assert {"score", "score_full_house", "check_dice"} <= callees(source, ["joker_score"], names)
    assert callees(source, ["play_game"], names) >= {"play_round", "final_score", "format_scorecard"}


def test_round11_a_proof_never_lends_the_excused_function():
    """reference_helpers: the helpers and what they call become the reference's, the excused
    function stays the student's (even when a helper calls it), the check's own substitution is
    kept, and an own-functions check (no substitution) lends the helpers only."""
    from types import SimpleNamespace

    from autograder.engine.checks import reference_helpers
    from autograder.engine.program import Program

    spec = load_assignment("yahtzee")
    seen = []
    stage1 = spec.substitution(1)
    student = SimpleNamespace(substitute=stage1, handout_names=spec.handout_names,
                              _reference=spec.reference.read_text(encoding="utf-8"))
    student.substituting = lambda sub: Program.substituting(student, sub)
    with reference_helpers(student, ["score_upper"], "score"):
        seen.append(student.substitute)
    with reference_helpers(student, ["joker_score"], "score"):        # (joker_score calls score)
        seen.append(student.substitute)
    student.substitute = None
    with reference_helpers(student, ["final_score"], "play_game"):
        seen.append(student.substitute)
    assert student.substitute is None
    first, second, own = seen
    assert set(first["names"]) == set(stage1["names"]) | {"score_upper"} and "score" in first["keep"]
    assert "score" not in second["names"] and "score" in second["keep"] and "score_upper" in second["names"]
    assert set(own["names"]) == {"final_score", "upper_bonus"} and "play_game" in own["keep"]
    assert not set(own["names"]) & set(own["keep"])
