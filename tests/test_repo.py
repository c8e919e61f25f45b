"""Repository-wide promises: ruff clean, every verb of the CLI offered and documented."""

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
VERBS = ["grade", "grade-all", "demo", "build", "notebooks", "scenarios", "release", "mutants", "bench", "gradescope",
         "coach"]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=REPO, capture_output=True, text=True, timeout=120)


def test_ruff_is_clean():
    result = run("-m", "ruff", "check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_help_lists_every_verb_with_examples():
    result = run("-m", "autograder", "--help")
    assert result.returncode == 0
    for verb in VERBS:
        assert f"    {verb}" in result.stdout, verb
    assert "exit status" in result.stdout and "examples:" in result.stdout


@pytest.mark.parametrize("verb", VERBS)
def test_each_verb_has_its_own_help(verb):
    result = run("-m", "autograder", verb, "--help")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("usage: python -m autograder " + verb)


def test_no_command_prints_help_and_exits_2():
    result = run("-m", "autograder")
    assert result.returncode == 2 and "usage:" in result.stdout


def test_unknown_assignment_is_bad_usage():
    result = run("-m", "autograder", "grade", "solution/yahtzee.py", "--assignment", "nope")
    assert result.returncode == 2
    assert "unknown assignment 'nope'" in result.stderr and "yahtzee" in result.stderr


def test_readme_commands_exist_in_the_makefile():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    assert readme.index("make demo") < 400 and readme.index("make test") < 400
    for target in ("demo", "test", "play", "bench"):
        assert f"\n{target}:" in makefile, target
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert "make test" in ci


def test_stage_choices_come_from_the_chosen_assignment():
    result = run("-m", "autograder", "grade", "solution/pytzee.py", "--assignment", "pytzee", "--stage", "3")
    assert result.returncode == 2 and "pytzee has no stage 3: choose 1, 2 or all" in result.stderr, result.stderr
    result = run("-m", "autograder", "grade-all", "samples/class", "--stage", "9", "--no-progress", "--out",
                 str(REPO / "no-such-out"))
    assert result.returncode == 2 and "yahtzee has no stage 9: choose 1, 2, 3, 4, 5 or all" in result.stderr
    assert not (REPO / "no-such-out").exists()


def test_the_engine_and_the_grading_verbs_name_no_assignment():
    """An assignment is content: nothing under autograder/engine/ or autograder/grading/ names one."""
    from autograder.assignment import available

    names = [name.lower() for name in available()]
    for folder in ("engine", "grading"):
        for path in sorted((REPO / "autograder" / folder).rglob("*")):
            if path.is_file() and path.suffix in (".py", ".j2", ".ini"):
                text = path.read_text(encoding="utf-8").lower()
                assert not [n for n in names if n in text], (path, [n for n in names if n in text])
