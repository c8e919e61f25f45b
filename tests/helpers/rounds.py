"""The machinery that grades a round of the hostile corpus (tests/corpus/round2, round3, ...).

Every case of a round's folder (expected outcomes in its expected.toml) is graded three ways,
with the same short limits as tests/test_hostile.py:
  * alone: `python -m autograder grade PATH --format json` (one process per case, two at a time);
  * in ONE `grade-all` batch of a class folder holding every case (`Round.jobs` workers: with one,
    the cases are graded in the order of their names by one grader process, so a case can be
    placed after the attacks whose leftovers it looks for);
  * through the Gradescope bundle: `run_autograder` in a Gradescope-like tree per case.
`check_case` asserts the exact score (and that an attack scores what its honest control scores),
the phrases, no raw control character in any text a person reads, no student-chosen text in
hidden feedback, and a bounded wall time.  Solutions are planted outside /tmp (/srv, /opt, /root,
/home, /mnt, /var/lib) for the disk-search cases while a round runs.
"""

from __future__ import annotations

import concurrent.futures
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from autograder import toml as tomllib  # the one TOML shim
from autograder.engine import reporters
from autograder.engine.results import GradeReport
from autograder.engine.sandbox import isolation
from autograder.grading.discover import safe_id

REPO = Path(__file__).resolve().parent.parent.parent
ISO = isolation()
LIMITS_ENV = "wall_s=1,cpu_s=4,memory_mb=256"
WALL_BOUND = 60.0
WAYS = ("alone", "batch", "gradescope")
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
PLANT_TOPS = ("/srv", "/opt", "/root", "/home", "/mnt", "/var/lib")
PLANT_MARK = "# PLANTED COMPLETE SOLUTION (tests/helpers/rounds.py)\n"
CSV_STEM = "+SUM(1+1)_csv_formula_id"      # its student id starts a formula
ZIP_NAMES = ["\x1b[2J\x1b]52;c;aGk=\x07evil.py", "../../escaped.txt", "notes\rScore: 100 / 100.txt"]


@dataclass
class Case:
    name: str
    why: str
    base: str
    score: float
    phrases: list[str]
    layout: str = ""
    ways: list[str] = field(default_factory=lambda: list(WAYS))
    needs: str = ""
    honest: bool = False
    same_as: str = ""
    hidden_forbidden: list[str] = field(default_factory=list)
    joins: list[str] = field(default_factory=list)      # cases whose files come first, in order

    @property
    def runnable(self) -> bool:
        return not self.needs or bool(ISO[self.needs])


class Round:
    """One folder of the corpus: its cases, and how its batch is graded."""

    def __init__(self, folder: Path, jobs: int = 2):
        self.folder, self.jobs = folder, jobs
        expected = tomllib.loads((folder / "expected.toml").read_text(encoding="utf-8"))
        self.cases = [Case(**entry) for entry in expected["case"]]
        self.by_name = {c.name: c for c in self.cases}
        self.runnable = [c for c in self.cases if c.runnable]
        self.params = [(c, way) for c in self.cases for way in WAYS if way in c.ways]
        self.ids = [f"{c.name}-{w}" for c, w in self.params]

    def text(self, case: Case) -> str:
        text = "\n\n".join((self.folder / f"{name}.py").read_text(encoding="utf-8")
                           for name in (*case.joins, case.name)).replace("@REPO@", str(REPO))
        if case.base == "none":
            return text
        base = (REPO / case.base / "yahtzee.py").read_text(encoding="utf-8")
        return base.rstrip("\n") + "\n\n\n" + text


def _notebook(cells: list[str], metadata: object = None) -> str:
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": metadata or {},
                       "cells": [{"cell_type": "code", "metadata": {}, "execution_count": None,
                                  "outputs": [], "source": c} for c in cells]})


def reference() -> str:
    return (REPO / "solution" / "yahtzee.py").read_text(encoding="utf-8")


def lay_out(rnd: Round, case: Case, spot: Path, way: str, world: dict) -> Path:
    """Write CASE's submission at SPOT (a file path without suffix, or a folder for gradescope);
    return what is handed to the grader.  WORLD has the classmate file and folder, the kit."""
    layout = case.layout
    spot.parent.mkdir(parents=True, exist_ok=True)
    if way == "gradescope":                     # SPOT is /autograder/submission
        spot.mkdir(parents=True, exist_ok=True)
        target = spot / "yahtzee.py"
    else:
        target = spot.with_suffix(".py")
    if layout in ("", "csv_id", "deep_source"):
        if layout == "csv_id" and way == "batch":
            target = spot.parent / f"{CSV_STEM}.py"
        text = reference() if layout == "csv_id" else rnd.text(case)
        if layout == "deep_source":
            text += "\n_x = " + "-" * 200_000 + "1\n"
        target.write_text(text, encoding="utf-8")
        return spot if way == "gradescope" else target
    if layout == "link_reference":
        kit = world["gradescope_reference"] if way == "gradescope" else REPO / "solution" / "yahtzee.py"
        target.symlink_to(kit)
    elif layout == "link_classmate":
        target.symlink_to("classmate_reference.py" if way == "batch" else world["classmate_file"])
    elif layout == "folder_link_inside":
        if way == "gradescope":
            target.symlink_to(world["classmate_file"])
        else:
            spot.mkdir()
            (spot / "yahtzee.py").symlink_to(world["classmate_file"])
            return spot
    elif layout == "linked_folder":
        link = spot / "project" if way == "gradescope" else spot
        link.symlink_to(world["classmate_folder"], target_is_directory=True)
        return spot
    elif layout == "fifo":
        os.mkfifo(target)
    elif layout in ("notebook_deep_json", "notebook_deep_code"):
        target = target.with_suffix(".ipynb")
        if layout == "notebook_deep_json":
            text = _notebook([reference()]).replace('"metadata": {}', '"metadata": ' + "[" * 100_000 + "]" * 100_000, 1)
        else:
            text = _notebook([reference(), "_x = " + "-" * 200_000 + "1\n"])
        target.write_text(text, encoding="utf-8")
    elif layout == "zip":
        target = spot.with_suffix(".zip")
        with zipfile.ZipFile(target, "w") as archive:
            archive.writestr(f"{case.name}/yahtzee.py", reference())
            for name in ZIP_NAMES:
                archive.writestr(f"{case.name}/{name}", "planted by a zip entry name\n")
    elif layout == "built":                     # the case file builds a folder of files itself
        spot.mkdir(parents=True, exist_ok=True)
        for name, content in built_files(rnd, case).items():
            path = os.path.join(os.fsencode(spot), os.fsencode(name))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as handle:
                handle.write(content.encode("utf-8") if isinstance(content, str) else content)
        return spot
    else:
        raise AssertionError(f"unknown layout {layout!r}")
    return spot if way == "gradescope" else target


def built_files(rnd: Round, case: Case) -> dict:
    """Layout "built": the case file's build(reference) -> {name (str or bytes): content}, the files
    of the submission's folder (names a text file cannot spell: undecodable bytes, notebooks...)."""
    space: dict = {"__name__": f"round_case_{case.name}"}
    exec(compile((rnd.folder / f"{case.name}.py").read_text(encoding="utf-8"), case.name, "exec"), space)
    return space["build"](reference())


def batch_id(case: Case) -> str:
    return safe_id(CSV_STEM) if case.layout == "csv_id" else case.name


# ---------------------------------------------------------------------------------------------
def _plant() -> list[Path]:
    """Copies of the reference, marked, world-readable, outside /tmp: what a disk search looks for."""
    planted = []
    text = PLANT_MARK + reference()
    for top in PLANT_TOPS:
        if not os.path.isdir(top) or not os.access(top, os.W_OK):
            continue
        folder = Path(tempfile.mkdtemp(prefix="planted-solution-", dir=top))
        folder.chmod(0o755)
        (folder / "yahtzee.py").write_text(text, encoding="utf-8")
        (folder / "yahtzee.py").chmod(0o644)
        planted.append(folder)
    return planted


def _env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(REPO), AUTOGRADER_LIMITS=LIMITS_ENV)


def _alone(case: Case, path: Path) -> dict:
    t0 = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "autograder", "grade", str(path), "--format", "json"],
                          capture_output=True, text=True, env=_env(), cwd=path.parent, timeout=600)
    wall = time.monotonic() - t0
    assert done.returncode in (0, 1), f"{case.name}: exit {done.returncode}\n{done.stderr[-3000:]}"
    data = json.loads(done.stdout)
    report = GradeReport.from_dict(data)
    hidden = [t.output for t in report.tests if t.visibility == "hidden"]
    return {"score": report.score, "text": reporters.to_text(report), "raw": done.stdout,
            "hidden": hidden, "wall": wall, "markdown": reporters.to_markdown(report)}


def _gradescope(rnd: Round, case: Case, template: Path, root: Path, world: dict) -> dict:
    top = root / "autograder"
    source, submission, results = top / "source", top / "submission", top / "results"
    shutil.copytree(template, source, symlinks=True)
    results.mkdir(parents=True)
    lay_out(rnd, case, submission, "gradescope", dict(world, gradescope_reference=source / "solution" / "yahtzee.py"))
    env = _env()
    env.pop("PYTHONPATH")
    env.update(AUTOGRADER_ROOT=str(top), AUTOGRADER_PYTHON=sys.executable,
               PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}")
    t0 = time.monotonic()
    done = subprocess.run([str(source / "run_autograder")], cwd=top, env=env, capture_output=True,
                          text=True, timeout=600)
    wall = time.monotonic() - t0
    assert done.returncode == 0, done.stdout + done.stderr
    data = json.loads((results / "results.json").read_text(encoding="utf-8"))
    text = data["output"] + "\n" + "\n".join(t["name"] + "\n" + t.get("output", "") for t in data["tests"])
    hidden = [t.get("output", "") for t in data["tests"] if t["visibility"] != "visible"]
    return {"score": data["score"], "text": text, "hidden": hidden, "wall": wall}


def graded(rnd: Round, prefix: str) -> Iterator[dict]:
    """The body of a round's module fixture: every runnable case graded its ways; yields what came
    back (per way and case, the batch's run, its CSV, out folder, root and planted folders)."""
    root = Path(tempfile.mkdtemp(prefix=prefix))
    planted = _plant()
    try:
        classmates = root / "classmates"
        (classmates / "folder").mkdir(parents=True)
        (classmates / "reference.py").write_text(reference(), encoding="utf-8")
        (classmates / "folder" / "yahtzee.py").write_text(reference(), encoding="utf-8")
        world = {"classmate_file": classmates / "reference.py", "classmate_folder": classmates / "folder"}
        klass, out = root / "class", root / "batch-out"
        klass.mkdir()
        alone_paths = {}
        for case in rnd.runnable:
            if "batch" in case.ways:
                lay_out(rnd, case, klass / case.name, "batch", world)
            if "alone" in case.ways:
                alone_paths[case.name] = lay_out(rnd, case, root / "alone" / case.name / "yahtzee", "alone", world)
        bundle = root / "bundle.zip"
        built = subprocess.run([sys.executable, "-m", "autograder", "gradescope", str(bundle)], cwd=REPO,
                               capture_output=True, text=True, timeout=120)
        assert built.returncode == 0, built.stderr
        template = root / "bundle"
        with zipfile.ZipFile(bundle) as archive:
            archive.extractall(template)
        (template / "run_autograder").chmod(0o755)
        t0 = time.monotonic()
        batch = subprocess.Popen([sys.executable, "-m", "autograder", "grade-all", str(klass), "--jobs",
                                  str(rnd.jobs), "--out", str(out), "--no-progress"], cwd=root, env=_env(),
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        got: dict[str, dict] = {"alone": {}, "gradescope": {}}
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            alone = {pool.submit(_alone, rnd.by_name[n], p): n for n, p in alone_paths.items()}
            scope = {pool.submit(_gradescope, rnd, c, template, root / "gs" / c.name, world): c.name
                     for c in rnd.runnable if "gradescope" in c.ways}
            for future, name in {**alone, **scope}.items():
                got["alone" if future in alone else "gradescope"][name] = future.result()
        stdout, stderr = batch.communicate(timeout=900)
        got["batch_run"] = {"code": batch.returncode, "stdout": stdout, "stderr": stderr,
                            "wall": time.monotonic() - t0}
        got["batch"] = _batch_rows(out)
        got["csv"] = list(csv.reader((out / "grades.csv").open(encoding="utf-8"))) if (out / "grades.csv").exists() else []
        got["out"], got["root"], got["planted"] = out, root, planted
        dump = os.environ.get("HOSTILE_DUMP")
        if dump:
            Path(dump).write_text(json.dumps({w: {k: {"score": v["score"], "text": v["text"][:3000]}
                                                  for k, v in got[w].items()} for w in WAYS}, indent=1))
        yield got
    finally:
        for folder in planted:
            shutil.rmtree(folder, ignore_errors=True)
        shutil.rmtree(root, ignore_errors=True)


def _batch_rows(out: Path) -> dict[str, dict]:
    from autograder.grading.gradebook import Gradebook

    rows = {}
    if not (out / "gradebook.sqlite").exists():
        return rows
    with Gradebook(out / "gradebook.sqlite") as book:
        for row in book.rows("yahtzee"):
            txt = out / "feedback" / f"{row.submission_id}.txt"
            md = out / "feedback" / f"{row.submission_id}.md"
            report = row.report if isinstance(row.report, dict) else {}
            hidden = [t.get("output", "") for t in report.get("tests", []) if t.get("visibility") == "hidden"]
            rows[row.submission_id] = {"score": row.score, "status": row.status, "error": row.error,
                                       "text": txt.read_text(encoding="utf-8") if txt.exists() else row.feedback,
                                       "markdown": md.read_text(encoding="utf-8") if md.exists() else "",
                                       "hidden": hidden, "wall": row.wall_time}
    return rows


def got_for(results: dict, case: Case, way: str) -> dict:
    if way == "batch":
        row = results["batch"].get(batch_id(case))
        assert row is not None, f"no row for {case.name}: {results['batch_run']}"
        return row
    return results[way][case.name]


# ---------------------------------------------------------------------------------------------
def check_complete(rnd: Round, attacks: int) -> None:
    """The folder's files are its cases, with at least ATTACKS that are not honest controls."""
    files = {p.stem for p in rnd.folder.glob("*.py")}
    assert files == set(rnd.by_name), (files ^ set(rnd.by_name))
    assert len([c for c in rnd.cases if not c.honest]) >= attacks
    for case in rnd.cases:
        assert case.phrases and case.why and case.score >= 0, case.name
        assert not case.same_as or case.same_as in rnd.by_name, case.name
        assert all(name in rnd.by_name for name in case.joins), case.name
        assert set(case.ways) <= set(WAYS) and case.base in ("solution", "starter", "none"), case.name


def check_case(rnd: Round, case: Case, way: str, results: dict) -> None:
    if not case.runnable:
        pytest.skip(f"needs {case.needs}, which this machine does not give the sandbox")
    got = got_for(results, case, way)
    assert round(got["score"], 4) == case.score, f"{case.name} ({way}): {case.why}\n{got['text'][:4000]}"
    if case.same_as and way in rnd.by_name[case.same_as].ways:
        assert got["score"] == got_for(results, rnd.by_name[case.same_as], way)["score"]
    for phrase in case.phrases:
        assert phrase.lower() in got["text"].lower(), f"{case.name} ({way}) does not say {phrase!r}:\n{got['text'][:3000]}"
    bad = RAW_CONTROL.search(got["text"])
    assert bad is None, f"{case.name} ({way}): a raw control character {bad.group()!r} reaches the reader"
    for hidden in got["hidden"]:
        for word in case.hidden_forbidden:
            assert word not in hidden, f"{case.name} ({way}): hidden feedback shows {word!r}: {hidden[:500]}"
    assert got["wall"] < WALL_BOUND, f"{case.name} ({way}) took {got['wall']:.1f} s"
    if way == "batch":
        assert not RAW_CONTROL.search(got["markdown"])


def check_batch_finished(rnd: Round, results: dict) -> None:
    run = results["batch_run"]
    assert run["code"] == 0, run
    assert not RAW_CONTROL.search(run["stdout"] + run["stderr"]), "grade-all printed a raw control character"
    assert "0 grader failures" in run["stdout"], run["stdout"]
    expected = {batch_id(c) for c in rnd.runnable if "batch" in c.ways}
    assert set(results["batch"]) == expected


def check_hidden_feedback(rnd: Round, results: dict) -> None:
    """The leak cases' hidden checks did run and fail (so the absence of LEAK means something)."""
    for case in [c for c in rnd.runnable if c.hidden_forbidden]:
        for way in ("alone", "gradescope"):
            hidden = got_for(results, case, way)["hidden"]
            assert hidden and any(h for h in hidden), f"{case.name} ({way}) had no failing hidden check"


def module_tests(rnd: Round, name: str, attacks: int) -> dict:
    """The tests every round's file has, named test_NAME_*, with its module fixture `results`:
    `globals().update(module_tests(ROUND, "round3", attacks=10))` in the round's test file."""

    @pytest.fixture(scope="module", name="results")
    def results() -> Iterator[dict]:
        yield from graded(rnd, f"hostile-{name}-")

    def corpus_is_complete() -> None:
        check_complete(rnd, attacks)

    @pytest.mark.parametrize("case,way", rnd.params, ids=rnd.ids)
    def case(case: Case, way: str, results: dict) -> None:
        check_case(rnd, case, way, results)

    def batch_finished_cleanly(results: dict) -> None:
        check_batch_finished(rnd, results)

    def hidden_feedback_is_grader_text(results: dict) -> None:
        """The leak cases' hidden checks did run and fail (so the absence of LEAK means something)."""
        check_hidden_feedback(rnd, results)

    tests = {"corpus_is_complete": corpus_is_complete, "case": case,
             "batch_finished_cleanly": batch_finished_cleanly,
             "hidden_feedback_is_grader_text": hidden_feedback_is_grader_text}
    return {"results": results, **{f"test_{name}_{key}": test for key, test in tests.items()}}
