"""The kit works installed, not only from a checkout: a wheel, a scratch venv, a folder elsewhere.

One wheel (pip wheel --no-deps: the package and its data, no dependencies) is installed into a
scratch venv that borrows this venv's dependencies through a .pth file (so nothing is downloaded),
and run from a folder outside the checkout: the reference gets full marks, and the verbs that
need the repository's files say so and exit 2.
"""

from __future__ import annotations

import json
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from autograder.assignment import load_assignment

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(python of a scratch venv with the wheel installed, a working folder outside the checkout)."""
    tmp = tmp_path_factory.mktemp("install")
    wheels = tmp / "wheels"
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(ROOT)],
                           capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    assert built.returncode == 0, built.stdout + built.stderr
    wheel = next(wheels.glob("*.whl"))
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp / "venv")], check=True, timeout=120)
    python = tmp / "venv" / "bin" / "python"
    done = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "-q",
                           str(wheel)], capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stdout + done.stderr
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    (Path(site) / "kit-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    work = tmp / "elsewhere"
    work.mkdir()
    return python, work, wheel


def run(installed, *args: str, timeout: int = 300) -> subprocess.CompletedProcess:
    python, work, _ = installed
    return subprocess.run([str(python), "-m", "autograder", *args], cwd=work, capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)


def test_the_wheel_holds_every_assignment_file(installed):
    names = set(zipfile.ZipFile(installed[2]).namelist())
    for name in ("yahtzee", "pytzee"):
        spec = load_assignment(name)
        for path in spec.root.rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts and "refcache" not in path.parts:
                assert path.relative_to(ROOT).as_posix() in names, path
    for data in ("autograder/engine/pytest.ini", "autograder/grading/templates/report.html.j2"):
        assert data in names


def test_installed_package_grades_from_outside_the_checkout(installed):
    python, work, _ = installed
    where = subprocess.run([str(python), "-c", "import autograder; print(autograder.__file__)"], cwd=work,
                           capture_output=True, text=True, check=True).stdout
    assert str(ROOT) not in where, where
    (work / "pytzee.py").write_text(load_assignment("pytzee").reference.read_text(encoding="utf-8"))
    result = run(installed, "grade", "pytzee.py", "--assignment", "pytzee", "--format", "json")
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert report["score"] == report["max_score"] == load_assignment("pytzee").total_points


@pytest.mark.parametrize("verb", [["build", "--check"], ["gradescope", "out.zip"]])
def test_verbs_that_need_the_repository_say_so(installed, verb):
    result = run(installed, *verb, timeout=60)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "needs a checkout of the kit's repository" in result.stderr and "Traceback" not in result.stderr
    assert not (installed[1] / "out.zip").exists()
