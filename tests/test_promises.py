"""Promise tables (autograder/authoring/promises.py): every promise of a handout names the checks that keep it."""

from __future__ import annotations

import dataclasses
import shutil

import pytest

from autograder.assignment import available, load_assignment
from autograder.authoring import build, promises

WITH_PROMISES = [name for name in available() if promises.promises_file(load_assignment(name)).is_file()]


def test_yahtzee_and_pytzee_have_promise_tables():
    assert {"yahtzee", "pytzee"} <= set(WITH_PROMISES)


@pytest.mark.parametrize("name", WITH_PROMISES)
def test_every_promise_names_collected_checks_and_every_problem_has_one(name):
    assignment = load_assignment(name)
    found = promises.load_promises(assignment)
    checks = promises.collected_checks(assignment)
    assert len(checks) > len({p.number for p in assignment.problems})
    assert promises.problems_with(assignment, found, checks) == []
    handout = assignment.handout.read_text(encoding="utf-8")
    table = handout.split(promises.BEGIN)[1].split(promises.END)[0]
    assert table == f"\n{promises.promise_table(assignment, found)}\n", "run `python -m autograder build`"


@pytest.mark.parametrize("name", WITH_PROMISES)
def test_every_check_keeps_some_promise(name):
    """The other direction: a check no promise names grades something the handout does not promise."""
    assignment = load_assignment(name)
    found = promises.load_promises(assignment)
    orphans = [check for check in promises.collected_checks(assignment)
               if not any(promises.matches(entry, check) for p in found for entry in p.checks)]
    assert orphans == []


def test_matching_a_check_id():
    assert promises.matches("test_slot", "test_slot[five 6s are a pytzee]")
    assert promises.matches("test_slot[five", "test_slot[five 6s are a pytzee]")
    assert promises.matches("test_used_slot_message", "test_used_slot_message")
    assert not promises.matches("test_game", "test_game_final[x]"), "a bare name is not a prefix of another name"
    assert not promises.matches("test_slot[six", "test_slot[five 6s are a pytzee]")


def test_build_check_fails_on_drift_unknown_checks_and_problems_without_a_promise(tmp_path):
    real = load_assignment("pytzee")
    folder = tmp_path / "pytzee"
    shutil.copytree(real.root, folder, ignore=shutil.ignore_patterns("__pycache__"))
    for view in (real.solution, real.starter):
        (tmp_path / view.parent.name).mkdir(exist_ok=True)
        shutil.copy(view, tmp_path / view.parent.name / view.name)
    assignment = dataclasses.replace(real, root=folder, views=tmp_path)
    assert build.build(assignments=[assignment]) == []          # (the points table names its source's path)
    assert build.build(check=True, assignments=[assignment]) == []

    handout = folder / "handout.md"
    text = handout.read_text(encoding="utf-8")
    handout.write_text(text.replace("| 12 | skip: the roll is ignored", "| 12 | skip: the roll is kept"),
                       encoding="utf-8")
    problems = build.build(check=True, assignments=[assignment])
    assert len(problems) == 1 and "handout.md is out of date" in problems[0]

    toml = folder / "promises.toml"
    data = toml.read_text(encoding="utf-8")
    data = data.replace('checks = ["test_rule[3 of a kind means three of a kind]", '
                        '"test_rule[4 of a kind means four of a kind]"]', 'checks = ["test_rule[5 of a kind"]')
    data = data.replace("problem = 12\n", "problem = 99\n")
    toml.write_text(data, encoding="utf-8")
    problems = build.build(check=True, assignments=[assignment])
    assert any("problem 13" in p and "'test_rule[5 of a kind' matches no collected check" in p for p in problems)
    assert any("there is no problem 99" in p for p in problems)
    assert any("problem 12 (skip: the roll is not counted) has no promise" in p for p in problems)

    toml.write_text(data.replace('checks = ["test_rule[5 of a kind"]', "checks = []"), encoding="utf-8")
    assert any("names no check" in p for p in build.build(check=True, assignments=[assignment]))
    toml.write_text("[[promise]]\nproblem = 'one'\n", encoding="utf-8")
    assert any("promise 1 needs problem (an int)" in p for p in build.build(check=True, assignments=[assignment]))

    toml.unlink()
    assert build.build(check=True, assignments=[assignment]) == [], \
        "no promises.toml: the handout is left alone (a course may keep a table of its own)"
    handout.write_text(text.replace(promises.BEGIN, "").replace(promises.END, "").split("## What the grader")[0]
                       + "## Points\n\n" + text.split("## Points\n")[1], encoding="utf-8")
    assert build.build(assignments=[assignment]) == [], "no promises.toml and no markers: no promise table"


def test_the_table_needs_both_markers():
    assert promises.replace_between(f"a\n{promises.BEGIN}\nold\n{promises.END}\nb", "NEW") == \
        f"a\n{promises.BEGIN}\nNEW\n{promises.END}\nb"
    with pytest.raises(ValueError, match="exactly one"):
        promises.replace_between("no markers", "NEW")
    with pytest.raises(ValueError, match="comes before"):
        promises.replace_between(f"{promises.END}\n{promises.BEGIN}\n", "NEW")
