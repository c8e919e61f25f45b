"""The stage notebooks and the release bundle.

Grading a notebook with the hidden autograder (and what the loader keeps of one) is in
tests/test_notebooks_grading.py; the nbgrader round trip with real kernels in tests/test_nbgrader.py;
here everything runs in-process (the notebooks' cells are executed with exec), so these tests are fast.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import os
import re
import signal
import subprocess
import sys
import zipfile

import pytest
from helpers.notebooks import ASSIGNMENT, source_nb

from autograder import notebooks as nbgen
from autograder.assignment import REPO_ROOT
from autograder.authoring import release
from autograder.engine.sandbox import Limits
from autograder.grading.grade import grade

STAGES = [s.number for s in ASSIGNMENT.stages]
CONTENT = nbgen.load_content(ASSIGNMENT)


@pytest.fixture(scope="module")
def builds():
    with contextlib.redirect_stdout(io.StringIO()):
        return {b.stage: b for b in nbgen.build_all(ASSIGNMENT)}


def grade_cells(nb: dict) -> list[dict]:
    return [c for c in nb["cells"] if c.get("metadata", {}).get("nbgrader", {}).get("grade")]


class CellTimeout(BaseException):
    """The kernel interrupted at the cell timeout (nbgrader sends an interrupt, not an Exception)."""


def run_cells(nb: dict, timeout: int = 5) -> dict[str, bool]:
    """Run the code cells of NB in order in one namespace, like a kernel, each stopped after TIMEOUT
    seconds like nbgrader's Execute.timeout, with NBGRADER_EXECUTION set as nbgrader autograde sets it
    (a check cell raises only then); {grade_id: passed} of the test cells."""
    namespace: dict = {"__name__": "__main__"}
    results = {}
    saved = os.environ.get("NBGRADER_EXECUTION")
    os.environ["NBGRADER_EXECUTION"] = "autograde"

    def stop(signum, frame):
        raise CellTimeout()

    old = signal.signal(signal.SIGALRM, stop)
    try:
        for cell in nb["cells"]:
            if cell["cell_type"] != "code":
                continue
            meta = cell.get("metadata", {}).get("nbgrader", {})
            signal.alarm(timeout)
            try:
                with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                    exec(compile(nbgen.cell_source(cell), "<cell>", "exec"), namespace)
                ok = True
            except (Exception, CellTimeout):
                ok = False
            finally:
                signal.alarm(0)
            if meta.get("grade"):
                results[meta["grade_id"]] = ok
    finally:
        signal.signal(signal.SIGALRM, old)
        if saved is None:
            os.environ.pop("NBGRADER_EXECUTION", None)
        else:
            os.environ["NBGRADER_EXECUTION"] = saved
    return results


# ---------------------------------------------------------------------------
# The generated notebooks
# ---------------------------------------------------------------------------

def test_generated_notebooks_are_up_to_date():
    problems, written = nbgen.generate(check=True)
    assert written == []
    assert problems == [], "\n".join(problems)


def test_every_course_with_notebook_content_is_committed_side_by_side():
    """`notebooks` with no --assignment writes every course's: one nbgrader course folder, the main
    track's assignments stage1..N (the paths its docs name), every other course's <course>-stageN;
    the student track one flat folder.  Every path is distinct, and the --check above covers all."""
    specs = nbgen.courses()
    assert ASSIGNMENT.name in [spec.name for spec in specs] and len(specs) >= 3
    sources, students = set(), set()
    for spec in specs:
        for stage in spec.stages:
            source = nbgen.notebook_path(spec, stage.number)
            assert source.is_file() and nbgen.student_path(spec, stage.number).is_file(), source
            want = f"stage{stage.number}" if spec.name == ASSIGNMENT.name else f"{spec.name}-stage{stage.number}"
            assert source.parent.name == nbgen.assignment_id(spec, stage.number) == want
            sources.add(source.parent.name)
            students.add(nbgen.student_path(spec, stage.number).name)
    assert len(sources) == len(students) == sum(len(spec.stages) for spec in specs)


def test_check_names_every_drift_of_every_course(tmp_path):
    """`notebooks` writes every course's notebooks into a course folder (here a scratch one);
    `--check` then names each drift, whichever course it is in, and nothing else: a stale notebook,
    a missing one, one that is not generated any more."""
    course = tmp_path / "course"
    problems, planned = nbgen.generate(assignment=None, course=course)
    assert problems == [] and {path.parent.name for path in planned} >= {"stage1", "yatzy-stage2", "student"}
    stale = course / "student" / "swe3006_stage3.ipynb"
    stale.write_text(stale.read_text(encoding="utf-8").replace("YahtzeeGameBase", "Base"), encoding="utf-8")
    missing = course / "source" / "yatzy-stage2" / "yatzy_stage2.ipynb"
    missing.unlink()
    stray = course / "source" / "cs21-stage9" / "cs21_stage9.ipynb"
    stray.parent.mkdir()
    stray.write_text("{}", encoding="utf-8")
    problems, written = nbgen.generate(check=True, course=course)
    assert written == [] and sorted(problems) == sorted([
        f"{stale} is out of date: run `python -m autograder notebooks`",
        f"{missing} is missing: run `python -m autograder notebooks`",
        f"{stray} is not generated any more: delete it"])
    assert {path for path in planned if path.is_file()} == set(planned) - {missing}


def test_the_generator_takes_one_assignment_and_refuses_one_without_notebook_content(capsys):
    """`python -m autograder notebooks --assignment NAME` (default: every course with notebook content)."""
    assert nbgen.main(["--check", "--assignment", "pytzee"]) == 2
    assert "pytzee has no notebook content (autograder/assignments/pytzee/notebooks.toml)" in capsys.readouterr().err
    assert nbgen.main(["--check", "--assignment", "nope"]) == 2
    assert "unknown assignment 'nope'" in capsys.readouterr().err


@pytest.mark.parametrize("stage", STAGES)
def test_notebook_is_valid_nbformat_with_nbgrader_metadata(stage):
    import nbformat
    nb = nbformat.reads(nbgen.notebook_path(ASSIGNMENT, stage).read_text(encoding="utf-8"), as_version=4)
    nbformat.validate(nb)
    assert nb.metadata.kernelspec.name == "python3"
    assert nb.metadata.autograder == {**nb.metadata.autograder, "assignment": "yahtzee", "stage": stage}
    ids = [c.metadata.nbgrader.grade_id for c in nb.cells if "nbgrader" in c.metadata]
    assert len(ids) == len(set(ids)), "duplicate grade_id"


@pytest.mark.parametrize("stage", STAGES)
def test_points_and_grade_ids_come_from_the_table(stage):
    nb = source_nb(stage)
    tests = grade_cells(nb)
    problems = ASSIGNMENT.stage_problems(stage)
    assert len(tests) == len(problems)
    for cell, problem in zip(tests, problems):
        meta = cell["metadata"]["nbgrader"]
        assert meta["grade_id"].startswith(f"p{problem.number:02d}_")
        assert meta["points"] == problem.points
        assert meta["locked"] and not meta["solution"]
        assert f"Problem {problem.number} " in nbgen.cell_source(cell)
    assert sum(c["metadata"]["nbgrader"]["points"] for c in tests) == ASSIGNMENT.stage_points(stage)
    assert nbgen.test_id(ASSIGNMENT.problem(3)) == "p03_full_house"
    text = "".join(nbgen.cell_source(c) for c in nb["cells"] if c["cell_type"] == "markdown")
    for problem in problems:
        assert f"## Problem {problem.number}: {problem.title} ({nbgen._points(problem.points)} points)" in text


def _inside_same_stage_regions(number: int) -> bool:
    """PROBLEM NUMBER has no cell of its own: every region of it sits in a region of its own stage
    (stage 5's "playing well" inside choose_keep and choose_category)."""
    from autograder.authoring import build

    fences = build.scan_fences(ASSIGNMENT.solution.read_text(encoding="utf-8"))
    stage = ASSIGNMENT.problem(number).stage
    return all(any(g.begin < f.begin and g.end > f.end and ASSIGNMENT.problem(g.number).stage == stage
                   for g in fences) for f in fences if f.number == number)


@pytest.mark.parametrize("stage", STAGES)
def test_answer_cells_cover_the_stage_and_nothing_later(stage):
    nb = source_nb(stage)
    answers = {}
    for cell in nb["cells"]:
        meta = cell["metadata"].get("nbgrader", {})
        source = nbgen.cell_source(cell)
        if meta.get("solution"):
            number = int(meta["grade_id"][1:3])
            answers.setdefault(number, set()).add(re.search(r"def (\w+)", source)[1])
            assert nbgen.BEGIN_SOLUTION in source and nbgen.END_SOLUTION in source
        else:
            assert "BEGIN SOLUTION" not in source
            if cell["cell_type"] == "code" and meta:
                assert meta["locked"], f"given cell {meta['grade_id']} must be read-only"
    assert answers == {p.number: set(p.functions) for p in ASSIGNMENT.stage_problems(stage)
                       if not _inside_same_stage_regions(p.number)}
    defined = set()
    for cell in nb["cells"]:
        if cell["cell_type"] == "code" and not cell["metadata"].get("nbgrader", {}).get("grade"):
            defined |= set(re.findall(r"^def (\w+)", nbgen.cell_source(cell), re.MULTILINE))
    later = {f for p in ASSIGNMENT.problems if p.stage > stage for f in p.functions} - defined
    for problem in ASSIGNMENT.problems:
        if problem.stage > stage:
            assert not (set(problem.functions) & defined) or problem.functions[0] in defined
    assert all(f not in defined for f in later)


@pytest.mark.parametrize("stage", STAGES)
def test_play_cell_is_guarded(stage):
    cells = source_nb(stage)["cells"]
    index = next(i for i, c in enumerate(cells) if c["id"] == f"s{stage}-play")
    code = nbgen.cell_source(cells[index])
    assert cells[index]["cell_type"] == "code" and "PLAY = False" in code and "\nif PLAY:\n" in code
    assert "input(" not in code.split("if PLAY:")[0]
    for cell in cells[index + 1:]:                 # e.g. stage 4's review of the game by the coach
        assert cell["cell_type"] == "markdown" or nbgen.cell_source(cell).startswith("if PLAY:\n")


def test_nested_later_stage_regions_get_their_variant(builds):
    stage2 = {p.function.name: p for p in builds[2].pieces}
    stage3 = {p.function.name: p for p in builds[3].pieces}
    assert "is_joker" not in stage2["play_round"].code and "joker" not in stage3["play_round"].code
    assert "points = score(category, dice)" in stage3["play_round"].code
    assert "upper_bonus" not in stage3["final_score"].code
    stage4 = {p.function.name: p for p in builds[4].pieces}
    assert stage4["play_round"].answers == [19] and stage4["final_score"].answers == [20]


@pytest.mark.parametrize("stage", STAGES)
def test_public_checks_pass_on_the_source_and_fail_on_the_release(stage):
    nb = source_nb(stage)
    assert all(run_cells(nb).values())
    released = run_cells(nbgen.release_notebook(nb))
    assert released and not any(released.values())


def test_public_check_values_are_computed_from_the_reference(builds):
    """Expected values are literal in the cells, but generated: a changed reference changes them."""
    cell = next(c for c in builds[1].notebook["cells"]
                if c["metadata"].get("nbgrader", {}).get("grade_id") == "p03_full_house")
    assert ("    got = score_full_house([2, 3, 2, 3, 3])\n    assert got == 25 and type(got) is int"
            in nbgen.cell_source(cell))
    solution = nbgen.read_solution(ASSIGNMENT.solution.read_text(encoding="utf-8"), ASSIGNMENT)
    drifted = nbgen.Solution(solution.text.replace("FULL_HOUSE_POINTS = 25", "FULL_HOUSE_POINTS = 26"),
                             solution.lines, solution.setup.replace("= 25", "= 26"), solution.functions,
                             solution.table)
    with contextlib.redirect_stdout(io.StringIO()):
        build = nbgen.build_stage(ASSIGNMENT, drifted, CONTENT, 1)
    assert "assert got == 26" in build.checks[3]


def test_interactive_checks_patch_input_dice_and_capture_output(builds):
    code = builds[2].checks[12]
    assert "run_scripted(" in code
    cell = next(c for c in grade_cells(builds[2].notebook) if c["metadata"]["nbgrader"]["grade_id"].startswith("p12_"))
    source = nbgen.cell_source(cell)
    for needed in ("mock.patch.object(builtins, \"input\"", "mock.patch.object(random, \"randint\"",
                   "redirect_stdout", "redirect_stderr"):
        assert needed in source
    namespace = dict(builds[2].namespace)
    exec(nbgen.TOOLS, namespace)
    with pytest.raises(AssertionError, match="more often than this check expected"):
        namespace["run_scripted"](lambda: (input(), input()), answers=["1"])
    with pytest.raises(AssertionError, match="never asked for the answers"):
        namespace["run_scripted"](lambda: None, answers=["1"])
    value, printed = namespace["run_scripted"](lambda: namespace["roll_dice"](2), dice=[6, 1])
    assert value == [6, 1] and printed == ""
    # A generated check runs strict=False, compares, then script_used(): unread answers or dice still fail
    assert "strict=False" in code and code.count("script_used()") == code.count("run_scripted(")
    namespace["run_scripted"](lambda: print("hi"), answers=["1"], dice=[4], strict=False)
    with pytest.raises(AssertionError, match=r"^it never asked for the answers \['1'\]\.  It printed:\nhi\n$"):
        namespace["script_used"]()
    namespace["run_scripted"](lambda: None, dice=[4], strict=False)
    with pytest.raises(AssertionError, match=r"^it did not roll the dice \[4\]\.  It printed:\n$"):
        namespace["script_used"]()
    namespace["run_scripted"](lambda: input(), answers=["1"], strict=False)
    namespace["script_used"]()


def test_check_cells_never_write_stderr(builds):
    """Any stderr output zeroes an nbgrader test cell: the passing cells print to stdout only."""
    for build in builds.values():
        namespace = dict(build.namespace)
        for cell in grade_cells(build.notebook):
            err = io.StringIO()
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
                exec(nbgen.cell_source(cell), namespace)
            assert err.getvalue() == ""


def test_the_source_notebooks_do_not_pass_for_a_wrong_answer(builds):
    nb = copy.deepcopy(source_nb(1))
    for cell in nb["cells"]:
        if nbgen.cell_source(cell).startswith("def score_full_house"):
            cell["source"] = nbgen.replace_regions(nbgen.cell_source(cell), "return 25")
    results = run_cells(nb)
    assert [gid for gid, ok in results.items() if not ok] == ["p03_full_house"]


# ---------------------------------------------------------------------------
# Sample submissions (also used by the nbgrader round trip)
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("student", sorted(CONTENT["samples"]))
def test_sample_submissions_fail_exactly_their_problems(student):
    spec = CONTENT["samples"][student]
    stage = int(spec.get("stage", 1))
    nb = json.loads(nbgen.sample_path(student, ASSIGNMENT, stage).read_text(encoding="utf-8"))
    results = run_cells(nb, timeout=1)
    failing = {int(gid[1:3]) for gid, ok in results.items() if not ok}
    expected = {p.number for p in ASSIGNMENT.stage_problems(stage)} if spec.get("blank") else set(spec.get("fails", []))
    assert failing == expected
    points = sum(p.points for p in ASSIGNMENT.stage_problems(stage) if p.number not in failing)
    assert points == nbgen.expected_sample_points(ASSIGNMENT, CONTENT, student)


def test_hidden_grader_agrees_with_the_samples():
    """The hidden autograder takes points on the problems the public checks catch, and only there."""
    stage = 1
    full = {p.number: p.points for p in ASSIGNMENT.stage_problems(stage)}
    for student, spec in CONTENT["samples"].items():
        limits = Limits(wall_s=0.3) if student == "loop" else None     # each call of the endless loop is stopped
        report = grade(nbgen.sample_path(student, ASSIGNMENT, stage), ASSIGNMENT, stage=stage, limits=limits)
        assert not report.error and not [t for t in report.tests if t.status == "error"]
        scores = {n: got for n, (got, _) in report.problem_scores().items()}
        broken = set(full) if spec.get("blank") else set(spec.get("fails", [])) | set(spec.get("hidden_also", []))
        for number, points in full.items():
            if number in broken:
                assert scores[number] < points, (student, number)
            else:
                assert scores[number] == pytest.approx(points), (student, number)


# ---------------------------------------------------------------------------
# The leak check
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("stage", STAGES)
def test_release_notebooks_do_not_leak_and_sources_do(stage):
    nb = source_nb(stage)
    assert nbgen.find_leaks({"release": nbgen.notebook_texts(nbgen.release_notebook(nb))}, ASSIGNMENT, stage) == []
    leaks = nbgen.find_leaks({"source": nbgen.notebook_texts(nb)}, ASSIGNMENT, stage)
    assert leaks and all("solution line" in leak for leak in leaks)


def test_leak_check_finds_hidden_scenario_data():
    hidden = nbgen.hidden_fingerprints(ASSIGNMENT)
    assert "score_upper([6, 6, 6, 6, 6], 6)" in hidden         # a hidden scoring case
    assert "five of a kind in Ones" in hidden                  # a hidden check's name
    assert "score_full_house([2, 3, 2, 3, 3])" not in hidden   # public
    assert nbgen.find_leaks({"x": "print('five of a kind in Ones')"}, ASSIGNMENT, 1)
    assert nbgen.find_leaks({"x": 'got = score_upper([6, 6, 6, 6, 6], 6)'}, ASSIGNMENT, 1)
    assert nbgen.find_leaks({"x": "    return sum(dice)\n"}, ASSIGNMENT, 1)
    assert nbgen.find_leaks({"x": "    return sum(dice)\n"}, ASSIGNMENT, 2) == []   # stage 1 is given by then


# ---------------------------------------------------------------------------
# The release verb
# ---------------------------------------------------------------------------

def test_release_folder(tmp_path):
    out, notes = release.build_release(tmp_path / "bundle", stage=2, names=["yahtzee"])
    files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert files == ["README.md", "yahtzee/check.py", "yahtzee/handout-yahtzee.md",
                     "yahtzee/notebooks/yahtzee_stage1.ipynb", "yahtzee/notebooks/yahtzee_stage2.ipynb",
                     "yahtzee/yahtzee.py"]
    assert (out / "yahtzee/yahtzee.py").read_text() == ASSIGNMENT.starter.read_text()
    stage2 = json.loads((out / "yahtzee/notebooks/yahtzee_stage2.ipynb").read_text())
    assert stage2 == nbgen.release_notebook(source_nb(2))
    check = out / "yahtzee" / "check.py"
    run = subprocess.run([sys.executable, str(check), str(out / "yahtzee/yahtzee.py"), "--stage", "1"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 1 and run.stdout.count(": not started") == 6
    run = subprocess.run([sys.executable, str(check), str(ASSIGNMENT.solution)], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0 and "23 of 23 problems pass" in run.stdout      # 20 + the optional stage 5


def test_check_py_reports_a_wrong_function(tmp_path):
    out, _ = release.build_release(tmp_path / "bundle", names=["yahtzee"])
    wrong = tmp_path / "yahtzee.py"
    wrong.write_text(ASSIGNMENT.solution.read_text().replace(
        "if sorted(face_counts(dice).values()) == [2, 3]:", "if len(set(dice)) <= 2:"))
    run = subprocess.run([sys.executable, str(out / "yahtzee/check.py"), str(wrong), "--stage", "1"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 1
    assert "Problem 3 Full House: failed" in run.stdout
    assert "Ran: score_full_house([4, 4, 4, 4, 4])\n      Expected: 0\n      Got: 25" in run.stdout
    assert "with checks('from the docstring of score_full_house: five of a kind is not a full house'):" in \
        release.public_checks(ASSIGNMENT)[0][3]
    assert "Problem 1 Upper boxes: Ones to Sixes: passed" in run.stdout


def test_release_zip_and_cli(tmp_path):
    result = subprocess.run([sys.executable, "-m", "autograder", "release", str(tmp_path / "student"), "--zip"],
                            capture_output=True, text=True, cwd=REPO_ROOT, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "leak check passed" in result.stdout
    with zipfile.ZipFile(tmp_path / "student.zip") as archive:
        names = archive.namelist()
    assert "student/yahtzee/check.py" in names and "student/yahtzee/notebooks/yahtzee_stage1.ipynb" in names
    assert not any("stage2" in name for name in names)
    again = subprocess.run([sys.executable, "-m", "autograder", "release", str(tmp_path / "student"), "--zip"],
                           capture_output=True, text=True, cwd=REPO_ROOT, timeout=300)
    assert again.returncode == 1 and "already exists" in again.stderr


def test_release_fails_loudly_on_a_leak(tmp_path, monkeypatch):
    real = release.bundle_files

    def leaky(assignment, stage):
        files, notes = real(assignment, stage)
        files[f"{assignment.name}/notes.md"] = "Hint: five of a kind in Ones\n"
        return files, notes

    monkeypatch.setattr(release, "bundle_files", leaky)
    with pytest.raises(release.ReleaseError, match="(?s)LEAK.*five of a kind in Ones"):
        release.build_release(tmp_path / "bundle", names=["yahtzee"])
    assert not (tmp_path / "bundle").exists()
