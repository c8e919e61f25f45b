"""Round eight of the hostile corpus (redteam8, pass 21): the paths the earlier rounds covered least.

Part A, stage 5 (tests/corpus/round8/expected.toml [[stage5]]): the contest rolled game g with
`random.Random(first_seed + g)`, so a strategy that made each game's generator again knew every die
before it was rolled.  On main 2cf8b88 `strategy_sees_the_dice` (first_seed read in the kit) and
`strategy_finds_the_seed` (first_seed guessed among round numbers; a search from 0 takes ~3 s of CPU)
both played main's games at a mean of 326.08 (in-process), above optimal play's expected 254.59
(the reference: 225.79): every tier passed (graded under a load of ~18: 19 of 20, P21's check out of
time while the costly games ran; 258.34 for the finder, whose games were played again half way).  Now each game's seed is
SHA-256 of the contest's secret key and the game's number (`contest.game_seeds`) and `play_games`
refuses a seed small enough to search: both play their fallback (test_stage5's lazy player), 8.

Part B, nbgrader ([[nbgrader]]): an answer cell of the release notebook can disarm every check cell
after it (they run in the student's kernel).  `nbgrader autograde` gives a blank notebook full
marks that way, on main and now: its points are the kernel's word (docs/threat-model.md, "What the
sandbox does not protect against"); `grade-all` on the same nbgrader tree gives them 0.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from autograder import toml as tomllib  # the one TOML shim
from autograder.coach import contest

# (the stage-5 suite imported here names the grader's own marks, registered only in its sessions)
pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnknownMarkWarning")

REPO = Path(__file__).resolve().parent.parent
FOLDER = REPO / "tests" / "corpus" / "round8"
EXPECTED = tomllib.loads((FOLDER / "expected.toml").read_text(encoding="utf-8"))
SOLUTION = (REPO / "solution" / "yahtzee.py").read_text(encoding="utf-8")
REFERENCE_MEAN = 218.49       # the reference's mean on the kit's key (225.79 on main's first_seed + g games)


def _source(case: dict) -> str:
    parts = [(FOLDER / f"{name}.py").read_text(encoding="utf-8") for name in (*case.get("joins", []), case["name"])]
    return SOLUTION.rstrip("\n") + "\n\n\n" + "\n\n".join(parts)


# --- Part A: the contest's dice --------------------------------------------------------------------

def test_round8_contest_seeds_are_secret_digests():
    """game_seeds: 256-bit digests of the key and the game's number, a different set per key;
    play_games refuses any seed a program could search (main's first_seed + g among them)."""
    seeds = contest.game_seeds("k" * 32, 500000, 3)
    assert len(set(seeds)) == 3 and all(seed.bit_length() > contest.SEED_BITS for seed in seeds)
    assert contest.game_seeds("k" * 32, 500000, 3) == seeds != contest.game_seeds("j" * 32, 500000, 3)
    assert contest.game_seeds("k" * 32, 500001, 1) == seeds[1:2]
    with pytest.raises(ValueError, match="at least 32"):
        contest.game_seeds("short", 0, 1)
    for bad in ((500000, 500001), (2 ** 128 - 1,), (True,), ("500000",)):
        with pytest.raises(ValueError, match="game_seeds"):
            contest.play_games(*contest.local(contest.chance_keep, contest.chance_category), bad)


def test_round8_the_kit_plays_secret_seeds():
    """The stage-5 suite plays game_seeds of the scenario file's key (a hidden file: no program reads it)."""
    from autograder.assignments.yahtzee.suites import test_stage5_strategy as suite

    data = suite.DATA
    assert suite.SEEDS == contest.game_seeds(data["key"], data["first_seed"], data["games"])
    assert len(data["key"]) >= 32 and str(data["first_seed"]) not in str(suite.SEEDS[0])


@pytest.fixture(scope="module")
def stage5_batch(tmp_path_factory):
    """One grade-all --stage 5 batch: the reference before and after the attacks (their exact means)."""
    root = tmp_path_factory.mktemp("round8-stage5")
    klass, out = root / "class", root / "out"
    klass.mkdir()
    (klass / "alice.py").write_text(SOLUTION, encoding="utf-8")
    for case in EXPECTED["stage5"]:
        (klass / f"{case['name']}.py").write_text(_source(case), encoding="utf-8")
    (klass / "zz_classmate_after.py").write_text(SOLUTION, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "autograder", "grade-all", str(klass), "--stage", "5",
                           "--jobs", "1", "--out", str(out), "--no-progress"], cwd=root, capture_output=True,
                          text=True, timeout=1800, env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert done.returncode == 0, done.stderr[-3000:]
    from autograder.coach import leaderboard
    from autograder.grading.gradebook import Gradebook

    with Gradebook(out / "gradebook.sqlite") as book:
        return {e["id"]: (e["mean"], e["points"]) for e in leaderboard.leaderboard_rows(book.rows("yahtzee"))}


def _lazy_mean() -> float:
    """The fallback's mean (never re-roll, the box scoring most now), played by the grader itself."""
    from autograder.assignments.yahtzee.suites.test_stage5_strategy import SEEDS

    return round(contest.play_games(*contest.local(contest.chance_keep, contest.greedy_category), SEEDS).mean, 2)


@pytest.mark.parametrize("case", EXPECTED["stage5"], ids=lambda c: c["name"])
def test_round8_a_strategy_never_sees_a_die_before_it_is_rolled(stage5_batch, case):
    """Each attack scores its fallback's points and mean exactly (on main: 20 and 326.08)."""
    mean, points = stage5_batch[case["name"]]
    assert (mean, points) == (_lazy_mean(), case["points"]), case["why"]
    assert mean < REFERENCE_MEAN < case["main_mean"]


def test_round8_honest_classmates_keep_their_means(stage5_batch):
    """The reference graded before and after the attacks: its exact mean and 20 points both times."""
    assert stage5_batch["alice"] == stage5_batch["zz_classmate_after"] == (REFERENCE_MEAN, 20)


def test_round8_the_attack_through_gradescope(tmp_path):
    """strategy_finds_the_seed through a stage-5 bundle's run_autograder: 8 of 20, as alone."""
    case = next(c for c in EXPECTED["stage5"] if c["name"] == "strategy_finds_the_seed")
    bundle = tmp_path / "bundle.zip"
    built = subprocess.run([sys.executable, "-m", "autograder", "gradescope", str(bundle), "--stage", "5"],
                           cwd=REPO, capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stderr
    top = tmp_path / "autograder"
    with zipfile.ZipFile(bundle) as archive:
        archive.extractall(top / "source")
    (top / "source" / "run_autograder").chmod(0o755)
    (top / "submission").mkdir(parents=True)
    (top / "results").mkdir()
    (top / "submission" / "yahtzee.py").write_text(_source(case), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(AUTOGRADER_ROOT=str(top), AUTOGRADER_PYTHON=sys.executable,
               PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}")
    done = subprocess.run([str(top / "source" / "run_autograder")], cwd=top, env=env, capture_output=True,
                          text=True, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    data = json.loads((top / "results" / "results.json").read_text(encoding="utf-8"))
    assert data["score"] == case["points"], data.get("output")


# --- Part B: nbgrader's check cells are the kernel's --------------------------------------------

@pytest.fixture(scope="module")
def nbgrader_round(tmp_path_factory):
    """Real nbgrader on a copy of the course: generate stage 1, autograde the blank release, the
    sample `correct` and each [[nbgrader]] case; then grade-all on the same submitted tree."""
    from test_nbgrader import ensure_kernel, nbgrader_cli

    from autograder import notebooks as nbgen
    from autograder.assignment import load_assignment

    spec = load_assignment("yahtzee")
    ensure_kernel()
    root = tmp_path_factory.mktemp("round8-nbgrader") / "course"
    work = {"release", "submitted", "autograded", "feedback", "gradebook.db", "grades.csv"}

    def ignore(folder, names):
        top = Path(folder) == nbgen.COURSE_DIR
        return [n for n in names if (top and n in work) or n == ".ipynb_checkpoints"]

    shutil.copytree(nbgen.COURSE_DIR, root, ignore=ignore)
    with open(root / "nbgrader_config.py", "a", encoding="utf-8") as config:
        config.write("\nc.Execute.timeout = 5\n")
    nbgrader_cli(root, "generate_assignment", "stage1")
    release = nbgen.notebook_path(spec, 1, root / "release")
    submitted = root / "submitted"

    def submit(student: str, text: str) -> None:
        folder = submitted / student / "stage1"
        folder.mkdir(parents=True)
        (folder / release.name).write_text(text, encoding="utf-8")

    submit("blank", release.read_text(encoding="utf-8"))
    shutil.copytree(root / "samples" / "submitted" / "correct", submitted / "correct")
    for case in EXPECTED["nbgrader"]:
        nb = json.loads(release.read_text(encoding="utf-8"))
        cell = next(c for c in nb["cells"] if c.get("metadata", {}).get("nbgrader", {}).get("solution"))
        source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
        cell["source"] = (FOLDER / f"{case['name']}.py").read_text(encoding="utf-8") + "\n\n" + source
        submit(case["name"], json.dumps(nb, indent=1))
    nbgrader_cli(root, "autograde", "stage1")
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        by_nbgrader = {student: gradebook.find_submission_notebook(release.stem, "stage1", student).score
                       for student in ["blank", "correct", *(c["name"] for c in EXPECTED["nbgrader"])]}
    out = root.parent / "graded"
    done = subprocess.run([sys.executable, "-m", "autograder", "grade-all", str(submitted), "--stage", "1",
                           "--nbgrader-assignment", "stage1", "--jobs", "1", "--out", str(out), "--no-progress"],
                          cwd=root.parent, capture_output=True, text=True, timeout=900,
                          env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert done.returncode == 0, done.stderr[-3000:]
    from autograder.grading.gradebook import Gradebook as Ours

    with Ours(out / "gradebook.sqlite") as book:
        by_grader = {row.submission_id: row.score for row in book.rows("yahtzee")}
    return by_nbgrader, by_grader


@pytest.mark.slow
@pytest.mark.parametrize("case", EXPECTED["nbgrader"], ids=lambda c: c["name"])
def test_round8_nbgrader_check_cells_are_the_kernels_word(nbgrader_round, case):
    """nbgrader gives the disarmed blank notebook the stage's 30 points (the known limit: its check
    cells run in the student's kernel); the sandboxed grader gives the same file its real 0."""
    by_nbgrader, by_grader = nbgrader_round
    assert (by_nbgrader["blank"], by_nbgrader["correct"]) == (0, 30)
    assert by_nbgrader[case["name"]] == case["nbgrader_points"], case["why"]
    assert by_grader[case["name"]] == case["graded_points"] == by_grader["blank"]
    assert by_grader["correct"] == 30


# --- Part C: a Gradescope upload holding several files of the expected name ---------------------

def test_round8_the_file_at_the_top_is_graded_not_a_backup(tmp_path):
    """A folder (Gradescope's /autograder/submission, a class folder's student) with the student's
    yahtzee.py at the top and older copies in sub-folders: the top one is graded, with a note naming
    the others (on main 2cf8b88 `a_old/yahtzee.py` sorted first and was graded, silently: the
    starter's 0 instead of the work's 30 on stage 1)."""
    from autograder.engine.submission import load_submission

    upload = tmp_path / "submission"
    (upload / "a_old" / "deeper").mkdir(parents=True)
    (upload / "Backup\nScore: 30 of 30").mkdir()
    starter = (REPO / "starter" / "yahtzee.py").read_text(encoding="utf-8")
    (upload / "yahtzee.py").write_text(SOLUTION, encoding="utf-8")
    for spot in ("a_old/yahtzee.py", "a_old/deeper/yahtzee.py", "Backup\nScore: 30 of 30/yahtzee.py"):
        (upload / spot).write_text(starter, encoding="utf-8")
    got = load_submission(upload, "yahtzee.py", "main")
    assert got.path == upload / "yahtzee.py"
    assert got.notes == ["graded yahtzee.py, the yahtzee.py nearest the top of the folder (it also holds "
                         "Backup\\nScore: 30 of 30/yahtzee.py, a_old/yahtzee.py, a_old/deeper/yahtzee.py)"]
    (upload / "yahtzee.py").unlink()                    # none at the top: the shallowest, then by name
    assert load_submission(upload, "yahtzee.py", "main").path == upload / "Backup\nScore: 30 of 30" / "yahtzee.py"
    (upload / "yahtzee.py").write_text(SOLUTION, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "autograder", "grade", str(upload), "--stage", "1",
                           "--format", "json"], cwd=tmp_path, capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, PYTHONPATH=str(REPO)))
    report = json.loads(done.stdout)
    assert (report["score"], report["max_score"]) == (30, 30), done.stderr[-2000:]
    assert any("nearest the top" in note for note in report["notes"])
