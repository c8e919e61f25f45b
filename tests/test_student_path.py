"""The README's student path as a struggling student meets it: the one-line messages of the kit's
own entry points (a Python without the kit's packages; the student bundle's README)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from autograder.authoring.release import build_release

ROOT = Path(__file__).resolve().parent.parent


def test_a_python_without_the_kits_packages_says_which_python_to_use(tmp_path):
    """`python -m autograder grade ... --public` run by a Python that lacks pytest (here the kit's own
    with -S: no site-packages) is one line naming the missing package and the kit's Python, exit 2,
    not a traceback.  (With an empty cache folder, as on a student's first run: once the kit's
    Python has kept the public checks and the hidden count, this command needs no pytest.)"""
    result = subprocess.run([sys.executable, "-S", "-m", "autograder", "grade", "starter/yahtzee.py", "--public"],
                            capture_output=True, text=True, timeout=120, cwd=str(ROOT),
                            env=dict(os.environ, AUTOGRADER_CACHE_DIR=str(tmp_path / "cache")))
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr and result.stdout == ""
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("error: this Python (") and "has no `" in line
    assert "make install" in line and ".venv/bin/python -m autograder" in line


def test_the_bundle_readme_names_the_notebooks_of_the_stages_it_holds(tmp_path):
    one, _ = build_release(tmp_path / "one", stage=1, names=["yahtzee"])
    three, _ = build_release(tmp_path / "three", stage=3, names=["yahtzee"])
    assert "the Jupyter notebook of stage 1." in (one / "README.md").read_text(encoding="utf-8")
    assert "the Jupyter notebooks of stages 1 to 3." in (three / "README.md").read_text(encoding="utf-8")


def test_check_py_given_a_notebook_says_what_it_checks(tmp_path):
    """A student who runs the bundle's check.py on their notebook reads what check.py checks and where
    a notebook's checks are (it said "raised AttributeError while being loaded: 'NoneType' object
    has no attribute 'loader'")."""
    out, _ = build_release(tmp_path / "bundle", stage=1, names=["yahtzee"])
    notebook = tmp_path / "yahtzee_stage1.ipynb"
    notebook.write_text('{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}', encoding="utf-8")
    result = subprocess.run([sys.executable, str(out / "yahtzee" / "check.py"), str(notebook)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    assert result.stdout == ("yahtzee_stage1.ipynb is not a .py file: check.py checks your yahtzee.py.  A notebook "
                             "runs the same checks in its own check cells (Run All).\n")


def test_grade_all_with_a_python_without_matplotlib_says_so_in_one_line_and_keeps_the_grades(tmp_path):
    """An instructor's `grade-all` run by a Python without matplotlib (here a module on PYTHONPATH that
    fails to import as a missing one does) grades and keeps the rows, then says in one line which
    Python to use: the thread that warms the charts printed its traceback first (pass 23).  Run again
    with the kit's packages, nothing is graded twice and the exports are written."""
    blocked = tmp_path / "blocked"
    blocked.mkdir()
    (blocked / "matplotlib.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'matplotlib'\", name='matplotlib')\n", encoding="utf-8")
    klass, out = tmp_path / "class", tmp_path / "out"
    klass.mkdir()
    (klass / "ann.py").write_text((ROOT / "solution" / "yatzy.py").read_text(encoding="utf-8"), encoding="utf-8")
    command = [sys.executable, "-m", "autograder", "grade-all", str(klass), "--assignment", "yatzy",
               "--out", str(out), "--no-progress", "--jobs", "1"]
    env = {**os.environ, "PYTHONPATH": str(blocked)}
    result = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=str(ROOT), env=env)
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr, result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("error: this Python (") and "has no `matplotlib`" in line and "make install" in line
    again = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=str(ROOT))
    assert again.returncode == 0, (again.stdout, again.stderr)
    assert "0 graded, 1 unchanged (skipped)" in again.stdout
    assert (out / "report.html").is_file() and (out / "grades.csv").read_text(encoding="utf-8").count("\nann,100,") == 1
