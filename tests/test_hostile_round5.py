"""Round five of the hostile corpus (redteam5, issue 13's seventeenth pass): text and files the grader
itself must handle, written by reading its code after rounds 1-4 (tests/corpus/round5/).

Yahtzee's cases (expected.toml) are graded alone, in ONE `grade-all --jobs 1` batch and through the
Gradescope bundle by tests/helpers/rounds.py (exact score, phrases, plain text, wall time).  This
file adds what the round is about:
  * no text a person reads holds a character that acts on its reader or that no encoder writes
    (lone surrogates, U+2028/U+2029), and the HTML pages hold no live markup a program chose;
  * the sandbox flags (what a program tried, gathered over its hidden requests too) reach the
    student's own page as kinds in the grader's words, never the program's text;
  * nothing handed in beside the program runs in the grader, and the grader started in a folder
    holding a student's files (`cd` into a submission; a class folder with a student's pytest.py)
    imports none of them;
  * every other course (pytzee, yatzy, cs21, swe3006): one batch each with a program raising such
    text, a notebook that only says it is one, and the reference graded after them.
"""

from __future__ import annotations

import concurrent.futures
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.rounds import LIMITS_ENV, REPO, Round, got_for, module_tests

from autograder import toml as tomllib
from autograder.assignment import load_assignment

ROUND = Round(REPO / "tests" / "corpus" / "round5", jobs=1)
globals().update(module_tests(ROUND, "round5", attacks=6))     # results, test_round5_case, ...

UNREADABLE = re.compile("[\u2028\u2029\ud800-\udfff]")        # (a raw control character: rounds.py's check)
LONE = re.compile("[\ud800-\udfff]")        # in HTML a separator is only white space; a lone surrogate no encoder writes
LIVE_MARKUP = ('<script>alert', "<img src=x onerror", '<a href="javascript:', "</textarea><")


def _texts(results: dict) -> list[tuple[str, str]]:
    out = []
    for case in ROUND.runnable:
        for way in ("alone", "batch", "gradescope"):
            if way in case.ways:
                got = got_for(results, case, way)
                out += [(f"{case.name}-{way}", got["text"]), (f"{case.name}-{way}-md", got.get("markdown", ""))]
    run = results["batch_run"]
    return out + [("batch stdout", run["stdout"]), ("batch stderr", run["stderr"])]


def test_round5_no_text_holds_a_separator_or_a_lone_surrogate(results):
    """Text and Markdown feedback, every way, and the batch's own output: lone surrogates only as
    visible escapes, U+2028/U+2029 as escapes or as the line breaks they are (a message's lines are
    shown indented under its check, as a newline in it is)."""
    for label, text in _texts(results):
        bad = UNREADABLE.search(text)
        assert bad is None, f"{label}: {bad.group()!r} reaches the reader"
    surrogates = got_for(results, ROUND.by_name["lone_surrogates"], "batch")["text"]
    assert "\\ud800" in surrogates and "\\udcff" in surrogates


def test_round5_html_pages_hold_no_live_markup(results):
    """The class report and the feedback page of html_in_messages show its markup as text."""
    out = results["out"]
    pages = {"report": (out / "report.html").read_text(encoding="utf-8"),
             "feedback": (out / "feedback" / "html_in_messages.html").read_text(encoding="utf-8")}
    assert "&lt;script&gt;alert(" in pages["feedback"]           # shown, as text
    for name, page in pages.items():
        for live in LIVE_MARKUP:
            assert live not in page, (name, live)
        assert LONE.search(page) is None, name
    gradebook = json.loads((out / "grades.json").read_text(encoding="utf-8"))
    assert {s["id"] for s in gradebook["students"]} == {c.name for c in ROUND.runnable}


def test_round5_nothing_handed_in_beside_the_program_ran(results):
    """files_beside_the_program's package, pytest.py, conftest.py, sitecustomize.py, json.py would
    each write RAN-<module> beside themselves and print FORGED: none did, in any way."""
    ran = [p for p in Path(results["root"]).rglob("RAN-*")]
    assert ran == []
    for label, text in _texts(results):
        assert "FORGED" not in text, label


HIDDEN_ONLY = ("[6, 6, 6, 6, 6]-6", "[2, 2, 2, 2, 2]-1")    # score_upper's hidden calls (round3's HIDDEN_CALLS)


def test_round5_flags_carry_no_hidden_input_to_the_student(results):
    """PROOF ("Public first", docs/threat-model.md): hidden_inputs_in_flags's flags name the files
    its hidden calls tried to open; the instructor's report and CSV show them (the channel is real),
    the student's own feedback page (HTML), text, Markdown and Gradescope output do not."""
    out = results["out"]
    instructor = (out / "report.html").read_text(encoding="utf-8") + (out / "grades.csv").read_text(encoding="utf-8")
    assert all(call in instructor for call in HIDDEN_ONLY)
    page = (out / "feedback" / "hidden_inputs_in_flags.html").read_text(encoding="utf-8")
    assert "Flagged by the sandbox" in page and "opened files outside its folder" in page
    student = [page] + [got_for(results, ROUND.by_name["hidden_inputs_in_flags"], way)[key]
                        for way, key in (("alone", "text"), ("alone", "markdown"), ("batch", "text"),
                                         ("batch", "markdown"), ("gradescope", "text"))]
    for text in student:
        assert "LEAK" not in text and not any(call in text for call in HIDDEN_ONLY), text[:2000]


# --- the folder the grader is started in ---------------------------------------------------------

_SHADOW = ('import os\nopen(os.path.join(os.path.dirname(os.path.abspath(__file__)), "RAN-" + __name__), "w").write("x")\n'
           'raise ImportError("a student file imported by the grader")\n')
SHADOWS = ("pytest", "json", "sqlite3", "jinja2", "socket", "struct", "selectors")


def test_round5_the_grader_imports_nothing_from_the_folder_it_starts_in(tmp_path):
    """A student's folder holding the starter and files named like the modules the grader and its
    fork server import (pytest, json, sqlite3, jinja2, socket, struct, selectors): `python -m
    autograder grade yahtzee.py` and `grade-all .` started IN that folder import none of them (on
    main d3ee52f `grade` ran the student's pytest.py in the grader's process and grade-all's fork
    server its pytest.py and sqlite3.py) and grade the starter: 0 everywhere."""
    folder = tmp_path / "student"
    folder.mkdir()
    (folder / "yahtzee.py").write_text((REPO / "starter" / "yahtzee.py").read_text(encoding="utf-8"), encoding="utf-8")
    for name in SHADOWS:
        (folder / f"{name}.py").write_text(_SHADOW, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(REPO), AUTOGRADER_LIMITS=LIMITS_ENV)
    alone = subprocess.run([sys.executable, "-m", "autograder", "grade", "yahtzee.py", "--format", "json"],
                           cwd=folder, env=env, capture_output=True, text=True, timeout=300)
    assert alone.returncode in (0, 1), alone.stderr[-3000:]
    assert json.loads(alone.stdout)["score"] == 0
    batch = subprocess.run([sys.executable, "-m", "autograder", "grade-all", ".", "--out", str(tmp_path / "out"),
                            "--jobs", "1", "--no-progress"], cwd=folder, env=env, capture_output=True, text=True,
                           timeout=300)
    assert batch.returncode == 0, batch.stderr[-3000:]
    assert "0 grader failures" in batch.stdout
    assert sorted(p.name for p in folder.glob("RAN-*")) == []
    grades = json.loads((tmp_path / "out" / "grades.json").read_text(encoding="utf-8"))
    assert {s["id"]: s["total"] for s in grades["students"]} == {name: 0 for name in (*SHADOWS, "yahtzee")}


# --- the other courses: one batch each -------------------------------------------------------------

COURSES_DIR = REPO / "tests" / "corpus" / "round5" / "courses"
COURSE_CASES = tomllib.loads((COURSES_DIR / "expected.toml").read_text(encoding="utf-8"))["case"]
MAIN_BLOCK = '\nif __name__ == "__main__":'


def _course_notebook(reference: str) -> str:
    """The reference in a notebook that only says it is one (as round5's notebook_not_what_it_says)."""
    cell = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None}
    cells = [{"cell_type": "markdown", "metadata": {}, "source": "# \ud800"}, dict(cell, source=[1, 2]),
             dict(cell, source={"x": 1}), dict(cell, source=reference.splitlines(keepends=True)),
             dict(cell, source=["HALF = '\ud83c'\n", 7])]
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "cells": cells, "metadata": {"autograder": {"stage": -1}}})


def _lay_out_course(course: str, klass: Path) -> None:
    spec = load_assignment(course)
    reference = spec.solution.read_text(encoding="utf-8")
    for case in (c for c in COURSE_CASES if c["course"] == course):
        folder = klass / case["name"]
        folder.mkdir(parents=True)
        if case["layout"] == "notebook":
            (folder / Path(spec.student_file).with_suffix(".ipynb")).write_text(_course_notebook(reference),
                                                                                  encoding="utf-8")
            continue
        text = reference
        if case["layout"] == "snippet":
            at = reference.rfind(MAIN_BLOCK)
            snippet = (COURSES_DIR / f"{course}_{case['name']}.py").read_text(encoding="utf-8")
            text = reference[:at] + "\n\n# --- the hostile part ---\n" + snippet + "\n" + reference[at:]
        (folder / spec.student_file).write_text(text, encoding="utf-8")


@pytest.fixture(scope="module")
def course_batches(tmp_path_factory) -> dict[str, dict]:
    root = tmp_path_factory.mktemp("round5-courses")
    env = dict(os.environ, PYTHONPATH=str(REPO), AUTOGRADER_LIMITS=LIMITS_ENV)

    def batch(course: str) -> dict:
        klass, out = root / course / "class", root / course / "out"
        _lay_out_course(course, klass)
        done = subprocess.run([sys.executable, "-m", "autograder", "grade-all", str(klass), "--assignment", course,
                               "--jobs", "1", "--out", str(out), "--no-progress"], cwd=root, env=env,
                              capture_output=True, text=True, timeout=600)
        grades = json.loads((out / "grades.json").read_text(encoding="utf-8")) if (out / "grades.json").exists() else {}
        students = {s["id"]: s for s in grades.get("students", [])}
        return {"run": done, "students": students, "out": out,
                "feedback": {sid: (out / "feedback" / f"{sid}.txt").read_text(encoding="utf-8") for sid in students},
                "pages": {sid: (out / "feedback" / f"{sid}.html").read_text(encoding="utf-8") for sid in students}}

    courses = sorted({c["course"] for c in COURSE_CASES})
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        return dict(zip(courses, pool.map(batch, courses)))


def test_round5_every_course_batch_finished(course_batches):
    for course, got in course_batches.items():
        assert got["run"].returncode == 0, (course, got["run"].stderr[-3000:])
        assert "0 grader failures" in got["run"].stdout, (course, got["run"].stdout)
        for text in (got["run"].stdout, got["run"].stderr, (got["out"] / "report.html").read_text(encoding="utf-8")):
            assert LONE.search(text) is None, course


@pytest.mark.parametrize("case", COURSE_CASES, ids=[f"{c['course']}-{c['name']}" for c in COURSE_CASES])
def test_round5_course_case(course_batches, case):
    got = course_batches[case["course"]]
    student = got["students"][case["name"]]
    assert student["total"] == pytest.approx(case["score"], abs=1e-4), (case["why"], student["problems"], student["error"])
    text, page = got["feedback"][case["name"]], got["pages"][case["name"]]
    for phrase in case["phrases"]:
        assert phrase.lower() in text.lower(), (phrase, text[:3000])
    assert UNREADABLE.search(text) is None and LONE.search(page) is None
    assert "Traceback" not in text and "internal error" not in text
    for live in LIVE_MARKUP:
        assert live not in page


# --- files of a student's folder the grader reads besides the program ------------------------------

def test_round5_an_nbgrader_timestamp_is_never_read_through_a_link(tmp_path):
    """nbgrader's timestamp.txt lies in the student's folder: a link (to a device, to another
    student's stamp) or a huge file gives no submission time, never a read through it (on main
    d3ee52f `read_text` followed the link and read a file of any size whole)."""
    from autograder.grading.lms import nbgrader_info

    def stamp(name: str) -> Path:
        (tmp_path / name).mkdir()
        return tmp_path / name / "timestamp.txt"

    stamp("plain").write_text("2026-11-20 10:00:00.000000 UTC", encoding="utf-8")
    stamp("to_classmate").symlink_to(tmp_path / "plain" / "timestamp.txt")
    stamp("to_device").symlink_to("/dev/zero")
    stamp("huge").write_bytes(b"2026-11-20 10:00:00 UTC" + b" " * (1 << 20))
    assert nbgrader_info(tmp_path / "plain") == {"lms": "nbgrader", "submitted_at": "2026-11-20T10:00:00+00:00"}
    for name in ("to_classmate", "to_device", "huge"):
        assert nbgrader_info(tmp_path / name) == {"lms": "nbgrader"}, name


def test_round5_a_result_line_never_hands_the_grader_a_lone_surrogate():
    """protocol._parse, the one reader of the sandbox's lines: a lone surrogate escaped or as raw
    UTF-8 bytes, in a key or a value, comes out as its visible escape; a pair stays one character."""
    from autograder.engine.protocol import _parse

    line = b'{"t":"result","\\udcff":["lone \\ud800", "pair \\ud83c\\udfb2", "raw \xed\xa0\x80"],"v":{"k":"\\uDFFF"}}'
    msg = _parse(line)
    assert msg == {"t": "result", "\\udcff": ["lone \\ud800", "pair \U0001F3B2", "raw \\ud800"], "v": {"k": "\\udfff"}}
    json.dumps(msg, ensure_ascii=False).encode("utf-8")          # every str encodes
    assert _parse(b'{"t":"ok","s":"caf\\u00e9 \\\\ud800"}') == {"t": "ok", "s": "caf\u00e9 \\ud800"}
