"""The toy assignment, Pig (tests/toy/pig/): a course made of content files only, outside the package.

It is loaded by path (`--assignment tests/toy/pig`), its starter and handout table are generated
and drift-checked, and one `grade-all` batch (one worker: one grading session) grades the
reference, the generated starter and every mutant of its mutants.toml to their exact scores.
The last tests keep the engine and the grading verbs free of any assignment's name.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import zipfile
from dataclasses import replace
from pathlib import Path

import pytest

from autograder import toml as tomllib  # the one TOML shim
from autograder.assignment import ASSIGNMENTS_DIR, ASSIGNMENTS_ENV, load_assignment, load_for_cli
from autograder.authoring.build import build_files, generate_starter
from autograder.authoring.edits import apply_edits

ROOT = Path(__file__).resolve().parent.parent
TOY = ROOT / "tests" / "toy" / "pig"
MAX_BATCH_SECONDS = 20          # the whole class of toy programs, one grading session, idle machine


@pytest.fixture(scope="module")
def toy():
    """The toy, loaded by path (which lists its folder in $AUTOGRADER_ASSIGNMENTS; put back after)."""
    before = os.environ.get(ASSIGNMENTS_ENV)
    yield load_assignment(str(TOY))
    if before is None:
        os.environ.pop(ASSIGNMENTS_ENV, None)
    else:
        os.environ[ASSIGNMENTS_ENV] = before


@pytest.fixture(scope="module")
def mutants(toy) -> list[dict]:
    return tomllib.loads(toy.mutants.read_text(encoding="utf-8"))["mutant"]


@pytest.fixture(scope="module")
def batch(toy, mutants, tmp_path_factory) -> dict:
    """grade-all over a folder of the toy's programs: id -> its grades.json row (+ the batch's wall)."""
    tmp = tmp_path_factory.mktemp("toy")
    reference = toy.reference.read_text(encoding="utf-8")
    programs = {"reference": reference, "starter": generate_starter(reference, toy)}
    programs.update({f"mutant-{m['name']}": apply_edits(reference, m["edits"]) for m in mutants})
    for student, text in programs.items():
        (tmp / "class" / student).mkdir(parents=True)
        (tmp / "class" / student / toy.student_file).write_text(text, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != ASSIGNMENTS_ENV}
    started = time.perf_counter()
    run = subprocess.run([sys.executable, "-m", "autograder", "grade-all", str(tmp / "class"), "--assignment",
                          str(TOY.relative_to(ROOT)), "--jobs", "1", "--out", str(tmp / "out"), "--no-progress"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    assert run.returncode == 0, run.stderr
    grades = json.loads((tmp / "out" / "grades.json").read_text(encoding="utf-8"))
    rows = {row["id"]: row for row in grades["students"]}
    assert grades["assignment"] == "pig" and set(rows) == set(programs), (grades, run.stderr)
    return {"rows": rows, "wall": wall, "out": tmp / "out", "stdout": run.stdout}


# ---------------------------------------------------------------------------------------
# Loading a course from a folder outside the package
# ---------------------------------------------------------------------------------------

def test_the_toy_is_content_only(toy):
    """Nothing but content files: no Python besides the reference and the suites, no __init__."""
    files = sorted(p.relative_to(TOY).as_posix() for p in TOY.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    assert files == ["assignment.toml", "handout.md", "mutants.toml", "reference.py", "scenarios/games.toml",
                     "scenarios/scoring.toml", "suites/test_stage1_scoring.py", "suites/test_stage2_game.py"]
    assert toy.root == TOY and toy.name == "pig" and toy.total_points == 10
    assert toy.views == TOY, "an assignment outside the package generates its views in its own folder"
    assert os.environ[ASSIGNMENTS_ENV].split(os.pathsep)[-1] == str(TOY)
    assert load_assignment("pig").root == TOY, "once loaded by path, it is known by name"


def _folder(tmp_path: Path, table: str | None, name: str = "course") -> Path:
    folder = tmp_path / name
    folder.mkdir()
    if table is not None:
        (folder / "assignment.toml").write_text(table, encoding="utf-8")
    return folder


GOOD_HEAD = 'title = "T"\nstudent_file = "t.py"\n'
PROBLEM = '[[problems]]\nnumber = 1\nstage = 1\ntitle = "P"\npoints = 2\nfunctions = ["f"]\n'


@pytest.mark.parametrize("table, says", [
    (None, "has no assignment.toml"),
    ("title = ", "not valid TOML"),
    (GOOD_HEAD, "has no [[problems]]"),
    (GOOD_HEAD + PROBLEM.replace("points = 2", 'points = "two"'), "problem 1: points must be a number"),
    (GOOD_HEAD + PROBLEM.replace("points = 2", "points = true"), "problem 1: points must be a number"),
    (GOOD_HEAD + PROBLEM.replace("stage = 1", 'stage = "one"'), "problem 1: stage must be an integer"),
    (GOOD_HEAD + PROBLEM + PROBLEM, "problem 1: the number is used twice"),
    (GOOD_HEAD + '[[stages]]\nnumber = 1\ntitle = "A"\n[[stages]]\nnumber = 2\ntitle = "B"\n' + PROBLEM,
     "stage 2 has no problems"),
    (GOOD_HEAD + '[[stages]]\nnumber = 2\ntitle = "B"\n' + PROBLEM, "problems name stage 1, which [[stages]]"),
    ('title = "T"\n' + PROBLEM, "student_file is missing"),
    ('name = "other"\n' + GOOD_HEAD + PROBLEM, "the folder is 'course'"),
], ids=["no-table", "bad-toml", "no-problems", "points-text", "points-bool", "stage-text", "twice",
        "empty-stage", "undeclared-stage", "no-student-file", "name-not-folder"])
def test_a_folder_that_is_not_an_assignment_is_refused_clearly(tmp_path, capsys, table, says):
    folder = _folder(tmp_path, table)
    assert load_for_cli(str(folder)) is None
    err = capsys.readouterr().err
    assert err.startswith("error: ") and says in err, err
    assert str(folder) in err
    assert str(folder) not in os.environ.get(ASSIGNMENTS_ENV, ""), "a refused folder is not registered"


def test_a_good_folder_loads_and_a_kit_name_cannot_be_shadowed(tmp_path, monkeypatch):
    monkeypatch.delenv(ASSIGNMENTS_ENV, raising=False)
    folder = _folder(tmp_path, GOOD_HEAD + PROBLEM)
    course = load_assignment(str(folder))
    assert (course.name, course.total_points, course.stages) == ("course", 2, ())
    assert os.environ[ASSIGNMENTS_ENV] == str(folder)
    kit_name = sorted(p.parent.name for p in ASSIGNMENTS_DIR.glob("*/assignment.toml"))[0]
    clash = _folder(tmp_path, GOOD_HEAD + PROBLEM, name=kit_name)
    with pytest.raises(KeyError, match="already has an assignment named"):
        load_assignment(str(clash))
    with pytest.raises(KeyError, match="unknown assignment 'nosuch'.*path of an assignment folder"):
        load_assignment("nosuch")


def test_a_bare_name_is_the_kits_assignment_even_where_a_folder_has_that_name(tmp_path, monkeypatch):
    kit_name = sorted(p.parent.name for p in ASSIGNMENTS_DIR.glob("*/assignment.toml"))[0]
    (tmp_path / kit_name).mkdir()               # e.g. a class's submissions folder
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(ASSIGNMENTS_ENV, raising=False)
    assert load_assignment(kit_name).root == ASSIGNMENTS_DIR / kit_name
    _folder(tmp_path, GOOD_HEAD + PROBLEM, name="elsewhere")
    assert load_assignment("elsewhere").root == tmp_path / "elsewhere", "an existing folder is a path"


def test_the_environment_variable_lists_course_folders(tmp_path):
    """$AUTOGRADER_ASSIGNMENTS: a folder of assignment folders makes each known by name, in a new process."""
    _folder(tmp_path, 'name = "course"\n' + GOOD_HEAD + PROBLEM)
    env = dict(os.environ, **{ASSIGNMENTS_ENV: str(tmp_path)})
    code = "from autograder.assignment import load_assignment as l; a = l('course'); print(a.root, a.total_points)"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.split() == [str(tmp_path / "course"), "2"]


# ---------------------------------------------------------------------------------------
# Generated views: the starter and the handout's table, checked for drift (into tmp only)
# ---------------------------------------------------------------------------------------

def test_build_check_of_the_toy(toy, tmp_path):
    views = replace(toy, views=tmp_path)
    problems, _ = build_files(check=True, assignments=[views])
    # only the views that do not exist yet in tmp: the handout's points table is up to date
    assert sorted(problems) == [f"{tmp_path}/solution/pig.py is missing (it is made from "
                                f"tests/toy/pig/reference.py): run `python -m autograder build tests/toy/pig`",
                                f"{tmp_path}/starter/pig.py is missing (it is made from "
                                f"tests/toy/pig/reference.py): run `python -m autograder build tests/toy/pig`"]
    problems, written = build_files(assignments=[views])
    assert not problems and sorted(written) == [tmp_path / "solution" / "pig.py", tmp_path / "starter" / "pig.py"]
    assert build_files(check=True, assignments=[views]) == ([], [])
    starter = (tmp_path / "starter" / "pig.py").read_text(encoding="utf-8")
    assert starter.count('raise NotImplementedError("Problem ') == 3
    assert "handout-pig.md" in starter


# ---------------------------------------------------------------------------------------
# One grade-all batch: the reference, the starter, each mutant to its exact score
# ---------------------------------------------------------------------------------------

def _problems_lost(row: dict) -> list[int]:
    return sorted(int(n) for n, (got, top) in row["problems"].items() if got < top)


def test_reference_full_marks_and_starter_zero(batch, toy):
    rows = batch["rows"]
    assert rows["reference"]["total"] == toy.total_points == 10, rows["reference"]
    assert rows["starter"]["total"] == 0 and rows["starter"]["tests_passed"] == 0, rows["starter"]
    assert _problems_lost(rows["starter"]) == [1, 2, 3]


def test_each_mutant_gets_its_exact_score(batch, mutants):
    rows = {m["name"]: batch["rows"][f"mutant-{m['name']}"] for m in mutants}
    got = {name: (row["total"], _problems_lost(row)) for name, row in rows.items()}
    assert got == {m["name"]: (m["score"], sorted(m["problems"])) for m in mutants}


@pytest.mark.serial      # a wall-clock or CPU bound: alone in make test
def test_the_batch_is_one_grading_session_and_quick(batch):
    assert batch["wall"] <= MAX_BATCH_SECONDS, f"grade-all of the toy took {batch['wall']:.1f} s"


def test_the_readme_walk_through_counts_the_toy_truly(toy):
    """README's "Adding a course" gives each file's line count and the total: they are wc -l's."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## Adding a course"):]
    section = section[:section.index("\n## ", 3)]
    told = {name: int(lines) for name, lines in re.findall(r"^\| `([^`]+)` \((\d+)\) \|", section, re.MULTILINE)}
    counts = {p.relative_to(TOY).as_posix(): len(p.read_text(encoding="utf-8").splitlines())
              for p in TOY.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    assert told == counts
    assert f"the whole cost of a course: {sum(counts.values())} lines" in section.replace("\n", " ")


def test_the_gradescope_bundle_of_a_course_outside_the_package(toy, tmp_path):
    """The bundle carries the toy's folder as a packaged assignment (no mutants, no views) and
    grades the reference to full marks from its shipped reference cache."""
    from autograder.platforms.gradescope import build_bundle

    names = build_bundle(tmp_path / "pig.zip", toy)
    ours = sorted(n.split("/", 3)[3] for n in names if n.startswith("autograder/assignments/pig/"))
    assert [n for n in ours if not n.startswith("refcache/")] == [
        "assignment.toml", "handout.md", "reference.py", "scenarios/games.toml", "scenarios/scoring.toml",
        "suites/test_stage1_scoring.py", "suites/test_stage2_game.py"]
    assert len([n for n in ours if n.startswith("refcache/")]) == 1
    top = tmp_path / "autograder"
    for folder in ("source", "submission", "results"):
        (top / folder).mkdir(parents=True)
    with zipfile.ZipFile(tmp_path / "pig.zip") as archive:
        archive.extractall(top / "source")
    (top / "submission" / "pig.py").write_text(toy.reference.read_text(encoding="utf-8"), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in (ASSIGNMENTS_ENV, "PYTHONPATH")}
    env.update(AUTOGRADER_ROOT=str(top), AUTOGRADER_PYTHON=sys.executable, AUTOGRADER_CACHE_DIR=str(tmp_path / "none"))
    done = subprocess.run(["bash", str(top / "source" / "run_autograder")], cwd=top, env=env,
                          capture_output=True, text=True, timeout=120)
    results = json.loads((top / "results" / "results.json").read_text(encoding="utf-8"))
    assert results["score"] == 10 and len(results["tests"]) == 15, (results, done.stderr)
    # (the folder may hold compiled code, engine/codecache.py; never the reference's outcomes)
    computed = sorted(p.name for p in (tmp_path / "none").glob("pig-*.json"))
    assert computed == [], "the shipped reference cache was used, none computed"


# ---------------------------------------------------------------------------------------
# The engine stays content-free
# ---------------------------------------------------------------------------------------

def _assignment_names() -> list[str]:
    folders = [*ASSIGNMENTS_DIR.glob("*/assignment.toml"), *(ROOT / "tests" / "toy").glob("*/assignment.toml")]
    return sorted({p.parent.name for p in folders})


@pytest.mark.parametrize("where", ["engine", "grading"])
def test_no_assignment_named_in_the_engine_nor_the_grading_verbs(where):
    files = sorted((ROOT / "autograder" / where).rglob("*"))
    names = _assignment_names()
    assert {"yahtzee", "pytzee", "pig"} <= set(names)
    # bounded by anything but a letter or digit: `yahtzee_stage1` and "yahtzee.py" count, "pigment" does not
    word = re.compile(r"(?<![a-z0-9])(?:" + "|".join(map(re.escape, names)) + r")(?![a-z0-9])", re.IGNORECASE)
    hits = []
    for path in files:
        if not path.is_file() or path.suffix not in (".py", ".ini", ".toml", ".j2", ".md", ".txt", ".html"):
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if word.search(line):
                hits.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not hits, "the engine knows no assignment:\n" + "\n".join(hits)


def test_a_suite_that_does_not_load_is_a_grader_fault_not_a_zero(tmp_path):
    """A course's suite with a bug at import: `grade` says "grader fault" and exits 1; before, the
    reference-cache session swallowed the error and the half-imported module made the real session
    collect nothing, "Score: 0 / 0" with exit status 0."""
    import shutil

    course = tmp_path / "pig"
    shutil.copytree(TOY, course, ignore=shutil.ignore_patterns("__pycache__", "solution", "starter"))
    suite = course / "suites" / "test_stage1_scoring.py"
    suite.write_text("not_defined_anywhere()\n" + suite.read_text(encoding="utf-8"), encoding="utf-8")
    env = dict(os.environ, AUTOGRADER_CACHE_DIR=str(tmp_path / "cache"))
    result = subprocess.run([sys.executable, "-m", "autograder", "grade", str(course / "reference.py"),
                             "--assignment", str(course), "--stage", "1"],
                            capture_output=True, text=True, timeout=300, cwd=str(tmp_path), env=env)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "grader fault" in result.stderr and "not_defined_anywhere" in result.stderr
    assert "Score:" not in result.stdout


SMALL_COURSE = {          # pass 22: a course as small as the README's guide allows (no imports, no constants)
    "assignment.toml": 'name = "dicesum"\ntitle = "Dice sums"\nstudent_file = "dicesum.py"\nentry = "total"\n\n'
                       '[[stages]]\nnumber = 1\ntitle = "Sums"\n\n'
                       '[[problems]]\nnumber = 1\nstage = 1\ntitle = "The total"\nfunctions = ["total"]\npoints = 3\n\n'
                       '[[problems]]\nnumber = 2\nstage = 1\ntitle = "The highest die"\nfunctions = ["highest"]\npoints = 2\n',
    "reference.py": '"""Dice sums."""\n\n\ndef total(dice):\n    """Return the sum of DICE.\n\n    >>> total([1, 2, 3])\n'
                    '    6\n    """\n    # BEGIN PROBLEM 1\n    return sum(dice)\n    # END PROBLEM 1\n\n\n'
                    'def highest(dice):\n    """Return the highest die of DICE, 0 for no dice."""\n    # BEGIN PROBLEM 2\n'
                    '    return max(dice, default=0)\n    # END PROBLEM 2\n',
    "handout.md": "# Dice sums\n\n**Problem 1.** `total(dice)`: the sum.\n\n**Problem 2.** `highest(dice)`: the highest "
                  "die, 0 for none.\n\n<!-- BEGIN POINTS TABLE -->\n<!-- END POINTS TABLE -->\n",
    "scenarios/sums.toml": '[[case]]\ncall = ["total", [1, 2, 3]]\nwhy = "three dice"\npublic = true\n'
                           '[[case]]\ncall = ["total", []]\nwhy = "no dice"\n'
                           '[[case]]\ncall = ["highest", [2, 6, 3]]\nwhy = "a six"\npublic = true\n'
                           '[[case]]\ncall = ["highest", []]\nwhy = "no dice"\n',
    "suites/test_stage1_sums.py": '"""Stage 1."""\n\nimport pytest\n\nfrom autograder.engine.checks import expect_same\n'
                                  'from autograder.engine.suite import Suite\n\nsuite = Suite(__file__)\n\n\n'
                                  '@pytest.mark.parametrize("case", suite.cases("sums", "case", problem=lambda case: '
                                  'suite.problem_of(case["call"][0])))\ndef test_sums(student, reference, case):\n'
                                  '    """Sums"""\n    func, *args = case["call"]\n'
                                  '    expect_same(student, reference, func, *args, why=case["why"])\n',
}


def test_a_course_with_no_constants_is_built_released_and_graded(tmp_path):
    """Pass 22, following the guide alone: a course whose reference has no imports or constants
    before its first function built and graded, but `release` died with a traceback ("the
    solution has no imports or constants before its first function", from the leak check's
    reading of the solution).  Its two cases both called "no dice" read "no dice0" / "no dice1"."""
    course = tmp_path / "dicesum"
    for name, text in SMALL_COURSE.items():
        (course / name).parent.mkdir(parents=True, exist_ok=True)
        (course / name).write_text(text, encoding="utf-8")
    env = dict(os.environ, AUTOGRADER_CACHE_DIR=str(tmp_path / "cache"))

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "autograder", *args], capture_output=True, text=True,
                              timeout=300, cwd=str(tmp_path), env=env)

    assert run("build", str(course)).returncode == 0
    released = run("release", str(tmp_path / "bundle"), "--assignment", str(course))
    assert released.returncode == 0, released.stdout + released.stderr
    assert "Traceback" not in released.stderr
    assert (tmp_path / "bundle" / "dicesum" / "check.py").is_file()
    student = tmp_path / "student" / "dicesum.py"
    student.parent.mkdir()
    student.write_text(SMALL_COURSE["reference.py"].replace("max(dice, default=0)", "max(dice)"), encoding="utf-8")
    graded = run("grade", str(student), "--assignment", str(course))
    assert graded.returncode == 0, graded.stderr
    assert ("  Problem 2 The highest die: 1/2 checks passed  [1 / 2]\n"
            "    FAIL P2 Sums: no dice (2)\n"
            "      highest did not return normally (no dice).\n") in graded.stdout, graded.stdout
    assert "Score: 4 / 5" in graded.stdout
