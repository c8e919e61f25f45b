"""The starter generator (autograder/authoring/build.py) and the files it generates."""

from __future__ import annotations

import dataclasses
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.programs import load

from autograder.assignment import Problem, available, load_assignment
from autograder.authoring import build

ROOT = Path(__file__).resolve().parent.parent
YAHTZEE = load_assignment("yahtzee")
FENCE = re.compile(r"^\s*# (BEGIN|END) PROBLEM (\d+)\s*$")


def outside_fences(text: str) -> list[str]:
    """The lines of TEXT outside the outermost fenced regions (fence lines kept), after the
    module docstring: written independently of build.py, to check it."""
    lines = text.splitlines(keepends=True)
    quote = lines[0][:3]
    assert quote in ('"""', "'''")
    start = next(i for i, line in enumerate(lines) if quote in (line[3:] if i == 0 else line)) + 1
    kept, depth = [], 0
    for line in lines[start:]:
        match = FENCE.match(line)
        if match and match[1] == "BEGIN":
            if depth == 0:
                kept.append(line)
            depth += 1
        elif match:
            depth -= 1
            if depth == 0:
                kept.append(line)
        elif depth == 0:
            kept.append(line)
    assert depth == 0
    return kept


# ---------------------------------------------------------------------------
# The repository
# ---------------------------------------------------------------------------

BUILT = [name for name in available() if load_assignment(name).reference.is_file()]


def test_yahtzee_is_built():
    assert "yahtzee" in BUILT


@pytest.mark.parametrize("name", BUILT)
def test_build_check_passes_on_the_repo(name):
    assert build.build(check=True, names=[name]) == []


def test_main_check_exits_0(capsys):
    assert build.main(["--check", "yahtzee"]) == 0
    assert "up to date" in capsys.readouterr().out


def test_main_unknown_assignment_exits_2(capsys):
    assert build.main(["--check", "no-such-assignment"]) == 2
    assert "unknown assignment" in capsys.readouterr().err


def test_the_solution_fences_match_the_table():
    assert build.validate(YAHTZEE.reference.read_text(encoding="utf-8"), YAHTZEE) == []


def test_starter_equals_solution_outside_fences():
    solution = YAHTZEE.solution.read_text(encoding="utf-8")
    starter = YAHTZEE.starter.read_text(encoding="utf-8")
    assert outside_fences(starter) == outside_fences(solution)
    assert solution.splitlines()[0] == starter.splitlines()[0], "the docstring's summary line stays"


def test_starter_stubs_every_outer_region_with_its_problem():
    starter = YAHTZEE.starter.read_text(encoding="utf-8")
    raised = re.findall(r'raise NotImplementedError\("Problem (\d+): (.*) \((\w+)\)"\)', starter)
    expected = []
    for fence in build.outer_fences(YAHTZEE.reference.read_text(encoding="utf-8")):
        expected.append((str(fence.number), YAHTZEE.problem(fence.number).title, fence.function))
    assert raised == expected
    assert len(raised) == 27                     # problems 4, 5, 6, 10 and 18 fence several functions; 21, 22: stage 5
    numbers = {int(n) for n, _, _ in raised}
    assert numbers == set(range(1, 19)) | {21, 22}, "19, 20 and 23 are nested inside 12, 14, 15, 21 and 22"
    assert starter.count("# *** YOUR CODE HERE ***") == 27
    assert "# (Problem 19 also goes in this region, in stage 4: see the handout.)" in starter
    assert starter.count("# (Problem 20 also goes in this region") == 2
    assert "# BEGIN PROBLEM 19" not in starter and "# BEGIN PROBLEM 20" not in starter
    assert "Starter file:" in starter and "(handout-yahtzee.md)" in starter
    assert "reference solution" not in starter


def test_starter_imports_and_every_stub_names_its_problem():
    starter = load(YAHTZEE.starter, "yahtzee_starter_under_test")
    assert starter.roll_dice(0) == []
    assert starter.face_counts([1, 1, 2, 3, 3]) == {1: 2, 2: 1, 3: 2}
    cases = {
        "score_upper": (([1, 2, 3, 4, 5], 1), 1), "score_of_a_kind": (([1, 2, 3, 4, 5], 3), 2),
        "score_full_house": (([1, 2, 3, 4, 5],), 3), "score_large_straight": (([1, 2, 3, 4, 5],), 4),
        "score_chance": (([1, 2, 3, 4, 5],), 5), "score": (("Chance", [1, 2, 3, 4, 5]), 6),
        "format_dice": (([1, 2, 3, 4, 5],), 7), "parse_keep": (("1",), 8),
        "find_category": (("Chance",), 10), "new_scorecard": ((), 13), "final_score": (({},), 14),
        "play_game": ((), 16), "upper_bonus": (({},), 17), "joker_score": (("Chance", [1] * 5), 18),
    }
    for name, (args, number) in cases.items():
        with pytest.raises(NotImplementedError, match=rf"^Problem {number}: .*\({name}\)$"):
            getattr(starter, name)(*args)


def test_running_the_starter_stops_at_the_missing_problem():
    result = subprocess.run([sys.executable, str(YAHTZEE.starter), "5"], input="", capture_output=True,
                            text=True, timeout=60, cwd=ROOT)
    assert result.returncode != 0
    assert result.stderr.strip().splitlines()[-1] == (
        "NotImplementedError: Problem 16: Playing the whole game (play_game)")


def test_handout_points_table_is_generated_from_the_table():
    handout = YAHTZEE.handout.read_text(encoding="utf-8")
    table = handout.split(build.TABLE_BEGIN)[1].split(build.TABLE_END)[0]
    rows = [line for line in table.splitlines() if line.startswith("| ") and line[2:3].isdigit()]
    assert [int(row.split("|")[1]) for row in rows] == [p.number for p in YAHTZEE.problems]
    core = [row for row in rows if not YAHTZEE.is_optional(int(row.split("|")[2]))]
    assert sum(int(row.split("|")[5]) for row in core) == YAHTZEE.total_points == 100
    for stage in YAHTZEE.stages:
        note = " (optional, graded on its own, not in the total)" if stage.optional else ""
        assert f"**Stage {stage.number} subtotal: {stage.title}{note}** | | " \
               f"**{int(YAHTZEE.stage_points(stage.number))}**" in table
    assert "| | | **Total** | | **100** |" in table


def test_handout_names_every_function_and_the_protocol():
    handout = YAHTZEE.handout.read_text(encoding="utf-8")
    for problem in YAHTZEE.problems:
        for function in problem.functions:
            assert f"`{function}(" in handout, function
    for fact in ("Dice: ", "Scored N points in CATEGORY.", "Round N", "Upper Bonus:", "Yahtzee Bonus:",
                 "Total:", "Final score: N", "DEBUG:", "random.randint(1, 6)", "63 or more",
                 "python -m autograder grade starter/yahtzee.py --public", "--stage"):
        assert fact in handout, fact


def test_handout_sample_game_is_what_the_reference_prints():
    """Replay the handout's printf command (its answers) on the reference and compare."""
    handout = YAHTZEE.handout.read_text(encoding="utf-8")
    command = re.search(r"```\n(printf '%s\\n' \\\n.*?\| python solution/yahtzee\.py (\d+))\n```", handout, re.S)
    assert command, "the sample game's command is missing"
    seed = command[2]
    script = subprocess.run(["bash", "-c", command[1].rsplit("|", 1)[0]], capture_output=True, text=True,
                            timeout=60).stdout
    result = subprocess.run([sys.executable, "solution/yahtzee.py", seed], input=script, capture_output=True,
                            text=True, timeout=60, cwd=ROOT)
    shown = handout.split(f"$ python solution/yahtzee.py {seed}\n", 1)[1].split("```", 1)[0]
    prompts = r"(\(e\.g\. 1 3 5; Enter keeps all; 0 re-rolls all\): |in which category\? )[^\n]*\n"
    assert result.stdout.strip("\n") == re.sub(prompts, r"\1", shown).strip("\n")


# ---------------------------------------------------------------------------
# The generator on small synthetic files
# ---------------------------------------------------------------------------

TITLES = {1: "First", 2: "Second", 3: "Third"}

NESTED = '''"""A module."""


def f(x):
    """Doc."""
    y = 1
    # BEGIN PROBLEM 1
    y = x + 1
    # BEGIN PROBLEM 2
    y *= 2
    # END PROBLEM 2
    return y
    # END PROBLEM 1


def g(x):
    if x:
        # BEGIN PROBLEM 3
        return 3
        # END PROBLEM 3
    return 0
'''


def test_generator_nested_fences_vanish_with_their_outer_region():
    starter = build.generate_starter(NESTED, TITLES)
    assert starter.startswith('"""A module.\n\nStarter file:')
    assert '''def f(x):
    """Doc."""
    y = 1
    # BEGIN PROBLEM 1
    # *** YOUR CODE HERE ***
    # (Problem 2 also goes in this region: see the handout.)
    raise NotImplementedError("Problem 1: First (f)")
    # END PROBLEM 1


def g(x):
    if x:
        # BEGIN PROBLEM 3
        # *** YOUR CODE HERE ***
        raise NotImplementedError("Problem 3: Third (g)")
        # END PROBLEM 3
    return 0
''' in starter
    assert "PROBLEM 2" not in starter and "y *= 2" not in starter
    module = {}
    exec(compile(starter, "starter", "exec"), module)
    assert module["g"](0) == 0
    with pytest.raises(NotImplementedError, match="Problem 3: Third"):
        module["g"](1)


def test_generator_repeated_numbers_stub_each_region():
    text = ('def a():\n    # BEGIN PROBLEM 1\n    return 1\n    # END PROBLEM 1\n\n\n'
            'def b():\n    # BEGIN PROBLEM 1\n    return 2\n    # END PROBLEM 1\n')
    starter = build.generate_starter(text, {1: "Both"})
    assert 'raise NotImplementedError("Problem 1: Both (a)")' in starter
    assert 'raise NotImplementedError("Problem 1: Both (b)")' in starter
    assert "return 1" not in starter and "return 2" not in starter


def test_generator_keeps_everything_outside_fences_byte_for_byte():
    text = ("# no docstring\r\nimport os  \r\n\r\ndef a():\r\n\t# BEGIN PROBLEM 1\r\n\treturn 1\r\n"
            "\t# END PROBLEM 1\r\n\r\nX = 'a \"# BEGIN PROBLEM 9\" in a string'\r\n")
    starter = build.generate_starter(text, {1: 'Quote " and \\ backslash'})
    assert starter == ("# no docstring\r\nimport os  \r\n\r\ndef a():\r\n\t# BEGIN PROBLEM 1\r\n"
                       "\t# *** YOUR CODE HERE ***\r\n"
                       "\traise NotImplementedError(\"Problem 1: Quote \\\" and \\\\ backslash (a)\")\r\n"
                       "\t# END PROBLEM 1\r\n\r\nX = 'a \"# BEGIN PROBLEM 9\" in a string'\r\n")
    module = {}
    exec(compile(starter, "starter", "exec"), module)
    with pytest.raises(NotImplementedError) as err:
        module["a"]()
    assert str(err.value) == 'Problem 1: Quote " and \\ backslash (a)'


def test_generator_region_starting_with_a_clause_keeps_a_header():
    text = ("def f(x):\n    if x is None:\n        return 0\n    # BEGIN PROBLEM 1\n    elif x < 0:\n"
            "        return -1\n    # END PROBLEM 1\n    # BEGIN PROBLEM 2\n    else:\n        return 1\n"
            "    # END PROBLEM 2\n")
    starter = build.generate_starter(text, {1: "One", 2: "Two"})
    assert ("    # BEGIN PROBLEM 1\n    # *** YOUR CODE HERE *** (this region is an elif clause: replace it)\n"
            "    elif True:\n        raise NotImplementedError(\"Problem 1: One (f)\")\n    # END PROBLEM 1\n"
            "    # BEGIN PROBLEM 2\n    # *** YOUR CODE HERE *** (this region is an else clause: replace it)\n"
            "    else:\n        raise NotImplementedError(\"Problem 2: Two (f)\")\n") in starter
    module = {}
    exec(compile(starter, "starter", "exec"), module)
    assert module["f"](None) == 0
    with pytest.raises(NotImplementedError, match="Problem 1: One"):
        module["f"](5)


def test_generator_fence_at_module_level_names_the_table_functions():
    text = "# BEGIN PROBLEM 1\nX = 1\n# END PROBLEM 1\n"
    starter = build.generate_starter(text, [Problem(1, 1, "Setup", 1, ())])
    assert 'raise NotImplementedError("Problem 1: Setup (module level)")' in starter


@pytest.mark.parametrize("text, message", [
    ("def f():\n    # BEGIN PROBLEM 1\n    return 1\n", "line 2: '# BEGIN PROBLEM 1' is never closed"),
    ("def f():\n    return 1\n    # END PROBLEM 1\n", "line 3: '# END PROBLEM 1' has no matching"),
    ("def f():\n    # BEGIN PROBLEM 1\n    # BEGIN PROBLEM 2\n    return 1\n    # END PROBLEM 1\n"
     "    # END PROBLEM 2\n", "line 5: '# END PROBLEM 1' closes '# BEGIN PROBLEM 2' opened at line 3"),
    ("def f():\n    # BEGIN PROBLEM one\n    return 1\n    # END PROBLEM 1\n", "line 2: malformed fence"),
    ("def f():\n    # begin problem 1\n    return 1\n    # END PROBLEM 1\n", "line 2: malformed fence"),
])
def test_generator_rejects_unbalanced_fences_clearly(text, message):
    with pytest.raises(build.FenceError) as err:
        build.generate_starter(text, {1: "One", 2: "Two"})
    assert message in str(err.value)
    assert isinstance(err.value, ValueError)


def test_validate_fence_numbers_against_the_table():
    text = ("def f():\n    # BEGIN PROBLEM 1\n    return 1\n    # END PROBLEM 1\n\n\n"
            "def g():\n    # BEGIN PROBLEM 7\n    return 7\n    # END PROBLEM 7\n")
    problems = build.validate(text, {1: "One", 2: "Two"})
    assert problems == ["line 8: PROBLEM 7 is not in the problem table",
                        "problem 2 (Two) has no '# BEGIN PROBLEM 2' fence"]
    with pytest.raises(build.FenceError):
        build.generate_starter(text, {1: "One", 2: "Two"})


def test_validate_fences_against_the_table_functions():
    text = ("def f():\n    # BEGIN PROBLEM 1\n    return 1\n    # END PROBLEM 1\n\n\n"
            "def g():\n    return 2\n")
    table = [Problem(1, 1, "One", 1, ("g",))]
    assert build.validate(text, table) == [
        "line 2: PROBLEM 1 is fenced in f, but the table lists it for g",
        "problem 1 lists g, which holds no PROBLEM 1 fence",
    ]
    assert build.validate(text, [Problem(1, 1, "One", 1, ("f",))]) == []


def test_validate_reports_invalid_python():
    assert build.validate("def f(:\n    pass\n", {1: "One"})[0].startswith("the file is not valid Python")


def test_update_handout_needs_both_markers():
    text = f"intro\n{build.TABLE_BEGIN}\nold\n{build.TABLE_END}\nend\n"
    assert build.update_handout(text, "NEW") == f"intro\n{build.TABLE_BEGIN}\nNEW\n{build.TABLE_END}\nend\n"
    with pytest.raises(ValueError, match="exactly one"):
        build.update_handout("no markers\n", "NEW")
    with pytest.raises(ValueError, match="comes before"):
        build.update_handout(f"{build.TABLE_END}\n{build.TABLE_BEGIN}\n", "NEW")


def test_build_writes_then_check_detects_drift(tmp_path):
    folder = tmp_path / "yahtzee"             # an assignment folder of its own, views beside it
    folder.mkdir()
    solution = folder / "reference.py"
    solution.write_text(YAHTZEE.reference.read_text(encoding="utf-8"), encoding="utf-8")
    handout = folder / "handout.md"
    handout.write_text(f"# Handout\n\n{build.TABLE_BEGIN}\n{build.TABLE_END}\n", encoding="utf-8")
    assignment = dataclasses.replace(YAHTZEE, root=folder, views=tmp_path)

    problems = build.build(check=True, assignments=[assignment])
    assert len(problems) == 3
    assert "solution/yahtzee.py is missing (it is made from " in problems[0] and "reference.py" in problems[0]
    assert "starter/yahtzee.py is missing (it is made from " in problems[1]
    assert "run `python -m autograder build`" in problems[1]
    assert "handout.md is out of date with the points table" in problems[2]
    assert not assignment.starter.exists()

    assert build.build(assignments=[assignment]) == []
    assert assignment.starter.read_text(encoding="utf-8") == YAHTZEE.starter.read_text(encoding="utf-8")
    assert assignment.solution.read_text(encoding="utf-8") == solution.read_text(encoding="utf-8")
    assert "| | | **Total** | | **100** |" in handout.read_text(encoding="utf-8")
    assert build.build(check=True, assignments=[assignment]) == []

    solution.write_text(solution.read_text(encoding="utf-8").replace("return sum(dice)\n    # END PROBLEM 5",
                                                                     "return sum(dice) + 0\n    # END PROBLEM 5"),
                        encoding="utf-8")
    problems = build.build(check=True, assignments=[assignment])
    assert len(problems) == 1 and "solution/yahtzee.py is out of date with" in problems[0], \
        "a change inside a fence changes the solution's copy, not the starter"
    solution.write_text(solution.read_text(encoding="utf-8").replace("NUM_ROUNDS = 13", "NUM_ROUNDS = 12"),
                        encoding="utf-8")
    problems = build.build(check=True, assignments=[assignment])
    assert len(problems) == 2 and "starter/yahtzee.py is out of date with" in problems[1]

    solution.write_text(solution.read_text(encoding="utf-8").replace("    # END PROBLEM 7\n", "", 1),
                        encoding="utf-8")
    problems = build.build(assignments=[assignment])
    assert any("'# BEGIN PROBLEM 7' is never closed" in p for p in problems)
    assert "NUM_ROUNDS = 13" in assignment.starter.read_text(encoding="utf-8"), "nothing written on errors"


# ---------------------------------------------------------------------------
# One folder per assignment: files by convention, samples as edits of the reference
# ---------------------------------------------------------------------------

def test_content_files_are_found_by_convention_in_the_assignment_folder():
    folder = ROOT / "autograder" / "assignments" / "yahtzee"
    assert (YAHTZEE.reference, YAHTZEE.handout, YAHTZEE.notebook_content, YAHTZEE.mutants, YAHTZEE.samples,
            YAHTZEE.plan) == tuple(folder / n for n in ("reference.py", "handout.md", "notebooks.toml",
                                                         "mutants.toml", "samples.toml", "plan.py"))
    assert YAHTZEE.solution == ROOT / "solution" / "yahtzee.py" and YAHTZEE.starter == ROOT / "starter" / "yahtzee.py"
    assert YAHTZEE.solution.read_bytes() == YAHTZEE.reference.read_bytes()


def test_an_assignment_toml_with_the_old_path_keys_still_loads(tmp_path, monkeypatch):
    from autograder import assignment as assignment_module

    folder = tmp_path / "old"
    folder.mkdir()
    table = (ROOT / "autograder" / "assignments" / "pytzee" / "assignment.toml").read_text(encoding="utf-8")
    (folder / "assignment.toml").write_text(table.replace('name = "pytzee"', 'name = "old"\nsolution = "x/y.py"\n'
                                                          'starter = "s/y.py"\nhandout = "docs/h.md"'))
    monkeypatch.setattr(assignment_module, "ASSIGNMENTS_DIR", tmp_path)
    old = assignment_module.load_assignment.__wrapped__("old")
    assert old.reference == folder / "reference.py" and old.handout == folder / "handout.md"
    assert "solution" not in old.extra and "handout" not in old.extra


def _sample_assignment(tmp_path, samples: str):
    folder = tmp_path / "yahtzee"
    folder.mkdir()
    (folder / "reference.py").write_text(YAHTZEE.reference.read_text(encoding="utf-8"), encoding="utf-8")
    (folder / "samples.toml").write_text(samples, encoding="utf-8")
    return dataclasses.replace(YAHTZEE, root=folder, views=tmp_path)


def test_samples_are_edits_of_the_reference_generated_and_drift_checked(tmp_path):
    assignment = _sample_assignment(tmp_path, '''view = "class"
header = "A student's file.\\n\\nAuthor: {author}\\n"
[[sample]]
name = "ann"
author = "Ann"
edits = [{ find = "NUM_ROUNDS = 13", replace = "NUM_ROUNDS = 12" }]
[[sample]]
name = "sam"
base = "starter"
''')
    assert build.build(assignments=[assignment]) == []
    ann = (tmp_path / "class" / "ann.py").read_text(encoding="utf-8")
    assert ann.startswith('"""A student\'s file.\n\nAuthor: Ann\n"""\n') and "NUM_ROUNDS = 12" in ann
    assert (tmp_path / "class" / "sam.py").read_text(encoding="utf-8") == YAHTZEE.starter.read_text(encoding="utf-8")
    assert build.build(check=True, assignments=[assignment]) == []

    (tmp_path / "class" / "ann.py").write_text(ann.replace("12", "11"), encoding="utf-8")
    (tmp_path / "class" / "zed.py").write_text("x = 1\n", encoding="utf-8")
    problems = build.build(check=True, assignments=[assignment])
    assert any("class/ann.py is out of date with" in p and "samples.toml" in p for p in problems), problems
    assert any("class/zed.py is not a sample of" in p for p in problems), problems


def test_a_sample_edit_that_no_longer_fits_is_named(tmp_path):
    assignment = _sample_assignment(tmp_path, '''view = "class"
[[sample]]
name = "bea"
edits = [{ find = "NO SUCH TEXT", replace = "x" }]
''')
    problems = build.build(assignments=[assignment])
    assert len(problems) == 1 and "sample bea: edit 1: its find text occurs 0 times" in problems[0], problems
    assert not (tmp_path / "class").exists(), "nothing written on errors"


def test_demo_of_an_assignment_without_samples_says_what_to_write():
    result = subprocess.run([sys.executable, "-m", "autograder", "demo", "--assignment", "pytzee"], cwd=ROOT,
                            capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert result.returncode == 2 and "pytzee has no sample class: write autograder/assignments/pytzee/samples.toml" \
        in result.stderr, result.stderr
