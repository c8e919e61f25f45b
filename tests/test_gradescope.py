"""The Gradescope bundle, end to end: build the zip, lay out a scratch tree the way Gradescope does
(<tmp>/autograder/source with the unzipped bundle, submission/, results/), run run_autograder (never
setup.sh: the venv's python stands in for the image's) and validate results.json against the spec.

The reference gets the full total; a mutant gets exactly what grade() gives it directly; a
submission with no Python file and a grader that cannot start both still leave a valid results.json
with score 0 and a plain message; the pytzee bundle builds and grades its reference full marks.
A bundle grades its own stage (--stage, default all) whatever stage a notebook's metadata names,
and says so when they disagree.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from autograder import notebooks as nbgen
from autograder.assignment import load_assignment
from autograder.grading.grade import grade
from autograder.platforms.gradescope import build_bundle, runtime_requirements

ROOT = Path(__file__).resolve().parent.parent
YAHTZEE = load_assignment("yahtzee")
PYTZEE = load_assignment("pytzee")
MUTANT_FIND = "sorted(face_counts(dice).values()) == [2, 3]"
MUTANT_REPLACE = "len(set(dice)) <= 2"
VISIBILITIES = {"hidden", "after_due_date", "after_published", "visible"}


# --- a small validator of Gradescope's results.json ------------------------------------------------

def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def schema_problems(data) -> list[str]:
    """What is wrong with DATA as a Gradescope results.json (empty when it is valid)."""
    if not isinstance(data, dict):
        return ["results.json is not an object"]
    problems = []
    if not _number(data.get("score")):
        problems.append("score is not a number")
    if not _number(data.get("execution_time")):
        problems.append("execution_time is not a number")
    if not isinstance(data.get("output"), str):
        problems.append("output is not a string")
    if "visibility" in data and data["visibility"] not in VISIBILITIES:
        problems.append(f"visibility {data['visibility']!r}")
    if "stdout_visibility" in data and data["stdout_visibility"] not in VISIBILITIES:
        problems.append(f"stdout_visibility {data['stdout_visibility']!r}")
    tests = data.get("tests")
    if not isinstance(tests, list):
        return problems + ["tests is not a list"]
    for i, test in enumerate(tests):
        where = f"tests[{i}]"
        if not isinstance(test, dict):
            problems.append(f"{where} is not an object")
            continue
        if not isinstance(test.get("name"), str):
            problems.append(f"{where}.name is not a string")
        for key in ("score", "max_score"):
            if not _number(test.get(key)):
                problems.append(f"{where}.{key} is not a number")
        if test.get("visibility") not in VISIBILITIES:
            problems.append(f"{where}.visibility {test.get('visibility')!r}")
        if "number" in test and not isinstance(test["number"], str):
            problems.append(f"{where}.number is not a string")
        if test.get("status") not in {"passed", "failed"}:
            problems.append(f"{where}.status {test.get('status')!r}")
    return problems


def test_the_validator_rejects_bad_results():
    good = {"score": 1, "execution_time": 0.5, "output": "", "tests": [
        {"name": "a", "score": 1, "max_score": 1, "visibility": "visible", "number": "1.1", "status": "passed"}]}
    assert schema_problems(good) == []
    assert schema_problems({"score": "1", "execution_time": 0, "output": "", "tests": []}) == ["score is not a number"]
    bad_test = dict(good["tests"][0], visibility="secret", number=1, status="error", max_score=None)
    assert len(schema_problems(dict(good, tests=[bad_test]))) == 4
    assert schema_problems([]) == ["results.json is not an object"]


# --- the scratch tree -----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def bundles(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("gradescope-zips")
    return {name: _build(folder / f"{name}.zip", name) for name in ("yahtzee", "pytzee")}


def _build(out: Path, assignment: str, *options: str) -> Path:
    result = subprocess.run([sys.executable, "-m", "autograder", "gradescope", str(out),
                             "--assignment", assignment, *options], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert out.is_file() and "wrote" in result.stdout
    return out


def run_autograder(bundle: Path, root: Path, files: dict[str, str], python: str | None = None) -> tuple[dict, str]:
    """Gradescope's layout under ROOT/autograder, FILES as the submission; run it; (results, stdout)."""
    top = root / "autograder"
    source, submission, results = top / "source", top / "submission", top / "results"
    for folder in (source, submission, results):
        folder.mkdir(parents=True)
    with zipfile.ZipFile(bundle) as archive:
        archive.extractall(source)
    run = source / "run_autograder"
    run.chmod(0o755)            # extractall drops the mode bits; Gradescope keeps them (checked below)
    for name, text in files.items():
        (submission / name).write_text(text, encoding="utf-8")
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["AUTOGRADER_ROOT"] = str(top)
    env["AUTOGRADER_PYTHON"] = python or sys.executable
    env.pop("PYTHONPATH", None)
    done = subprocess.run([str(run)], cwd=top, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    data = json.loads((results / "results.json").read_text(encoding="utf-8"))
    assert schema_problems(data) == [], data
    return data, done.stdout


def _max(data: dict) -> float:
    return sum(test["max_score"] for test in data["tests"])


# --- the bundle -----------------------------------------------------------------------------------

def test_bundle_contents(bundles):
    with zipfile.ZipFile(bundles["yahtzee"]) as archive:
        names = archive.namelist()
        modes = {info.filename: info.external_attr >> 16 for info in archive.infolist()}
        setup = archive.read("setup.sh").decode()
        run = archive.read("run_autograder").decode()
    for required in ("setup.sh", "run_autograder", "pyproject.toml", "autograder/assignments/yahtzee/reference.py",
                     "autograder/__main__.py", "autograder/cli.py", "autograder/grading/grade.py",
                     "autograder/engine/sandbox.py", "autograder/engine/harness/entry.py", "autograder/engine/pytest.ini",
                     "autograder/assignments/yahtzee/assignment.toml",
                     "autograder/assignments/yahtzee/suites/test_stage1_scoring.py",
                     "autograder/assignments/yahtzee/scenarios/games.toml"):
        assert required in names, required
    top = {name.split("/")[0] for name in names}
    assert top == {"setup.sh", "run_autograder", "pyproject.toml", "autograder"}
    authoring = ("samples", "samples.toml", "mutants.toml", "equivalent-mutants.toml", "plan.py")
    assert not [n for n in names if n.split("/")[3:4] and n.split("/")[3] in authoring]
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc") or "/." in n]
    assert not [n for n in names if n.startswith("autograder/assignments/pytzee/")]
    assert modes["run_autograder"] & 0o111 and modes["setup.sh"] & 0o111
    # setup.sh: apt, a venv, the runtime pins of pyproject.toml; no nbgrader
    for word in ("apt-get", "python3-pip", "python3-venv", "pytest==9.2.0", "pytest-timeout==2.4.0"):
        assert word in setup, word
    assert all(requirement in setup for requirement in runtime_requirements())
    assert "nbgrader" not in setup
    assert "--format gradescope" in run and "results/results.json" in run and "AUTOGRADER_ROOT" in run
    # the same sources give the same zip
    again = bundles["yahtzee"].with_name("again.zip")
    build_bundle(again, "yahtzee")
    assert again.read_bytes() == bundles["yahtzee"].read_bytes()


def test_reference_gets_full_marks(bundles, tmp_path):
    data, _ = run_autograder(bundles["yahtzee"], tmp_path, {"yahtzee.py": YAHTZEE.solution.read_text()})
    assert _max(data) == YAHTZEE.total_points == data["score"] == 100     # exactly: Gradescope adds them up
    assert all(test["status"] == "passed" for test in data["tests"])
    assert {test["visibility"] for test in data["tests"]} <= {"visible", "after_published"}
    # the grader that ran is the bundle's copy, not the repository's
    source = tmp_path / "autograder" / "source"
    where = subprocess.run([sys.executable, "-c", "import autograder; print(autograder.__file__)"],
                           cwd=source, capture_output=True, text=True, timeout=30).stdout
    assert Path(where.strip()).resolve().is_relative_to(source.resolve())


def test_mutant_gets_what_grade_gives(bundles, tmp_path):
    reference = YAHTZEE.solution.read_text(encoding="utf-8")
    assert reference.count(MUTANT_FIND) == 1
    mutant = reference.replace(MUTANT_FIND, MUTANT_REPLACE)
    direct_path = tmp_path / "direct" / "yahtzee.py"
    direct_path.parent.mkdir()
    direct_path.write_text(mutant, encoding="utf-8")
    direct = grade(direct_path, "yahtzee")
    data, _ = run_autograder(bundles["yahtzee"], tmp_path / "gs", {"yahtzee.py": mutant})
    assert data["score"] == pytest.approx(direct.score)
    assert data["score"] < _max(data) == YAHTZEE.total_points
    assert {t["name"]: t["score"] for t in data["tests"]} == {t.name: t.score for t in direct.tests}
    failed = [t for t in data["tests"] if t["status"] == "failed"]
    assert failed and all(t["score"] < t["max_score"] for t in failed)
    assert any("Full House" in t["name"] or "full house" in t["output"].lower() for t in failed)


def test_no_python_file_gives_zero_and_a_clear_message(bundles, tmp_path):
    data, stdout = run_autograder(bundles["yahtzee"], tmp_path, {"notes.txt": "I forgot the code"})
    assert data["score"] == 0 and data["tests"] == []
    assert "no Python file" in data["output"] and "yahtzee.py" in data["output"]
    assert "Traceback" not in data["output"]
    assert "exit status 2" in stdout                       # the instructor sees what the grader said


def test_a_grader_that_cannot_start_still_leaves_valid_results(bundles, tmp_path):
    broken = tmp_path / "python"
    broken.write_text("#!/bin/sh\necho 'Traceback: something broke' >&2\nexit 1\n")
    broken.chmod(0o755)
    data, _ = run_autograder(bundles["yahtzee"], tmp_path / "gs", {"yahtzee.py": "x = 1\n"}, python=str(broken))
    assert data["score"] == 0 and data["tests"] == []
    assert "instructor" in data["output"] and "Traceback" not in data["output"]


def test_pytzee_bundle_grades_its_reference_full_marks(bundles, tmp_path):
    with zipfile.ZipFile(bundles["pytzee"]) as archive:
        names = archive.namelist()
    assert "autograder/assignments/pytzee/reference.py" in names
    assert "autograder/assignments/pytzee/assignment.toml" in names
    assert not [n for n in names if n.startswith("autograder/assignments/yahtzee/")]
    data, _ = run_autograder(bundles["pytzee"], tmp_path, {"pytzee.py": PYTZEE.solution.read_text()})
    assert _max(data) == pytest.approx(PYTZEE.total_points) == data["score"]


def test_cli_rejects_unknown_assignment_and_a_folder(tmp_path):
    unknown = subprocess.run([sys.executable, "-m", "autograder", "gradescope", str(tmp_path / "x.zip"),
                              "--assignment", "nope"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert unknown.returncode == 2 and "unknown assignment" in unknown.stderr
    folder = subprocess.run([sys.executable, "-m", "autograder", "gradescope", str(tmp_path)],
                            cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert folder.returncode == 2 and "folder" in folder.stderr


# --- the stage is the bundle's, never the notebook's (pass 19) -------------------------------------

def _notebook(stage: int, claims: int | str | None = None) -> str:
    """The kit's stage STAGE solution notebook, its metadata naming stage CLAIMS (a student's
    edit: the file is theirs) when given."""
    nb = json.loads(nbgen.notebook_path(YAHTZEE, stage).read_text(encoding="utf-8"))
    assert nb["metadata"]["autograder"]["stage"] == stage
    if claims is not None:
        nb["metadata"]["autograder"]["stage"] = claims
    return json.dumps(nb)


def _direct(tmp_path: Path, text: str, stage: str | int):
    path = tmp_path / "direct" / "yahtzee.ipynb"
    path.parent.mkdir(exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return grade(path, "yahtzee", stage=stage)


@pytest.fixture(scope="module")
def stage_bundles(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("gradescope-stage-zips")
    return {stage: _build(folder / f"yahtzee-{stage}.zip", "yahtzee", "--stage", stage) for stage in ("1", "3")}


def test_a_stage_notebook_on_the_all_bundle_is_graded_on_every_stage(bundles, tmp_path):
    """The default bundle grades every stage: the stage 1 notebook (metadata: stage 1) gets what
    grade() gives it on all four stages, out of 100, with a note saying why (before pass 19 its
    metadata chose: stage 1 alone, 20 of 20, full marks on an upload that asked for four stages)."""
    text = _notebook(1)
    direct = _direct(tmp_path, text, "all")
    data, stdout = run_autograder(bundles["yahtzee"], tmp_path / "gs", {"yahtzee.ipynb": text})
    assert _max(data) == YAHTZEE.total_points == 100
    assert data["score"] == pytest.approx(direct.score)
    assert direct.score == pytest.approx(YAHTZEE.stage_points(1))   # its stage 1 functions, no others
    assert {t["name"]: t["score"] for t in data["tests"]} == {t.name: t.score for t in direct.tests}
    assert "marked as the stage 1 notebook" in data["output"] and "graded on every stage" in data["output"]
    assert "marked as the stage 1 notebook" in stdout                  # the instructor's log too


@pytest.mark.parametrize("bundle, stage, claims", [("1", 3, None), ("3", 4, 1), ("1", 2, 5)],
                         ids=["stage3-notebook-on-stage1", "stage4-claims-stage1-on-stage3",
                              "stage2-claims-optional-stage5-on-stage1"])
def test_a_notebook_claiming_another_stage_is_graded_on_the_bundles(stage_bundles, tmp_path, bundle, stage, claims):
    """A stage N bundle grades stage N, whatever stage the notebook's metadata names (its own, one
    the student edited to an easier stage, the optional stage 5): the same score as grade() with
    --stage N, out of stage N's points, and the note."""
    text = _notebook(stage, claims)
    named = claims if claims is not None else stage
    direct = _direct(tmp_path, text, bundle)
    data, _ = run_autograder(stage_bundles[bundle], tmp_path / "gs", {"yahtzee.ipynb": text})
    assert _max(data) == YAHTZEE.stage_points(int(bundle))
    assert data["score"] == pytest.approx(direct.score) == pytest.approx(YAHTZEE.stage_points(int(bundle)))
    assert {t["name"]: t["score"] for t in data["tests"]} == {t.name: t.score for t in direct.tests}
    assert f"marked as the stage {named} notebook" in data["output"], data["output"]
    assert f"graded on stage {bundle}." in data["output"]


def test_a_notebook_of_the_bundles_stage_gets_no_note(stage_bundles, tmp_path):
    """The stage 3 notebook on the stage 3 bundle: full marks of stage 3, no note; the stage 1
    notebook there: its stage 3 checks fail (it has not those functions), graded as grade() does."""
    data, _ = run_autograder(stage_bundles["3"], tmp_path / "gs", {"yahtzee.ipynb": _notebook(3)})
    assert _max(data) == data["score"] == YAHTZEE.stage_points(3)
    assert "marked as" not in data["output"]
    text = _notebook(1)
    direct = _direct(tmp_path, text, 3)
    data, _ = run_autograder(stage_bundles["3"], tmp_path / "gs1", {"yahtzee.ipynb": text})
    assert data["score"] == pytest.approx(direct.score)
    assert direct.score < YAHTZEE.stage_points(3), direct.score
    assert "marked as the stage 1 notebook" in data["output"]


def test_a_metadata_stage_the_assignment_has_not_is_no_claim(bundles, tmp_path):
    """A stage the assignment has not (99, "1", true) is not a stage: graded on the bundle's, no note."""
    for claims in (99, "1", True):
        text = _notebook(1, claims)
        data, _ = run_autograder(bundles["yahtzee"], tmp_path / f"gs-{claims}", {"yahtzee.ipynb": text})
        assert _max(data) == 100 and "marked as" not in data["output"], claims


def test_the_bundle_names_its_stage_and_refuses_one_it_has_not(stage_bundles, tmp_path):
    with zipfile.ZipFile(stage_bundles["1"]) as archive:
        run = archive.read("run_autograder").decode()
    assert "STAGE='1'" in run and run.count('--stage "$STAGE"') == 2
    for bad in ("9", "x", "1; rm -rf /"):
        done = subprocess.run([sys.executable, "-m", "autograder", "gradescope", str(tmp_path / "x.zip"),
                               "--stage", bad], cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert done.returncode == 2 and "has no stage" in done.stderr and not (tmp_path / "x.zip").exists(), bad
