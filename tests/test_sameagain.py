"""The same submission gets the same grade, every run (tests/corpus/sameagain/: programs that draw from
somewhere other than the injected random.randint).  Each program is graded three ways: twice in one
grading session (grade_stream), once in a fresh `python -m autograder grade` process, once through
grade-all; every way gives the same score and the same feedback, check by check, and the exact score
expected.toml gives it.  A program that breaks a course's RNG contract loses points in that problem
with feedback that names what it called.  Plus the harness's own entropy: a program reads the same
os.urandom bytes in every run of a request, never the nonce that authenticates its answer.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from autograder import toml as tomllib  # the one TOML shim
from autograder.assignment import load_assignment
from autograder.authoring.edits import apply_edits
from autograder.engine.sandbox import Request, Sandbox

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus" / "sameagain"
PROGRAMS = tomllib.loads((CORPUS / "expected.toml").read_text(encoding="utf-8"))["program"]
COURSES = sorted({p.get("assignment", "yahtzee") for p in PROGRAMS})


def _id(program: dict) -> str:
    return program["name"].replace("/", "-")


def _course(program: dict) -> str:
    return program.get("assignment", "yahtzee")


def _text(program: dict) -> str:
    return apply_edits((CORPUS / program["base"]).read_text(encoding="utf-8"), program["edits"], program["name"])


def _feedback(tests) -> list[tuple]:
    """What the student reads, check by check (dicts of a gradebook row or of `grade --format json`)."""
    return [(t["problem"], t["name"], t["status"], round(t["score"], 4), round(t["max_score"], 4), t["output"],
             t.get("hint") or "") for t in tests]


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict[str, dict[str, tuple[float, list[tuple]]]]:
    """program id -> way -> (score, feedback)."""
    from autograder.grading.grade import grade_stream
    from autograder.grading.grade_all import grade_all
    from autograder.grading.gradebook import Gradebook

    found: dict[str, dict[str, tuple[float, list[tuple]]]] = {_id(p): {} for p in PROGRAMS}
    for course in COURSES:
        programs = [p for p in PROGRAMS if _course(p) == course]
        tmp = tmp_path_factory.mktemp(f"sameagain-{course}")
        student_file = load_assignment(course).student_file
        folders = []
        for program in programs:
            folder = tmp / "class" / _id(program)
            folder.mkdir(parents=True)
            (folder / student_file).write_text(_text(program), encoding="utf-8")
            folders.append(folder)
        # one session, each program twice (the second time after every other program of the course)
        reports: list = []
        grade_stream(iter(folders + folders), reports.append, course, "all")
        for way, half in (("session", reports[:len(folders)]), ("session again", reports[len(folders):])):
            for report in half:
                assert not report.error, report.error
                found[Path(report.submission).name][way] = (
                    report.score, _feedback([t.__dict__ for t in report.tests]))
        # a fresh process each
        for folder in folders:
            done = subprocess.run([sys.executable, "-m", "autograder", "grade", str(folder / student_file),
                                   "--assignment", course, "--format", "json"],
                                  capture_output=True, text=True, cwd=ROOT, timeout=600)
            data = json.loads(done.stdout)
            found[folder.name]["fresh process"] = (round(sum(t["score"] for t in data["tests"]), 4),
                                                   _feedback(data["tests"]))
        # grade-all
        summary = grade_all(tmp / "class", tmp / "out", assignment=course, stage="all", jobs=2, progress=False,
                            exports=False)
        assert summary.graded == len(programs) and not summary.crashed, summary
        with Gradebook(tmp / "out" / "gradebook.sqlite") as book:
            for row in book.rows(course):
                found[row.submission_id]["grade-all"] = (row.score, _feedback(row.tests))
    return found


def test_the_corpus_is_listed_whole():
    assert len({_id(p) for p in PROGRAMS}) == len(PROGRAMS) >= 20
    assert {"yahtzee", "yatzy", "cs21", "swe3006", "pytzee"} <= set(COURSES)
    for program in PROGRAMS:
        assert {"name", "base", "edits", "why", "problems", "predicted", "score"} <= set(program), program["name"]
        assert (CORPUS / program["base"]).is_file()
        compile(_text(program), program["name"], "exec")        # every edit fits its base
        assert not program["problems"] or "phrase" in program, program["name"]


@pytest.mark.parametrize("program", PROGRAMS, ids=_id)
def test_same_grade_every_run(program, graded):
    ways = graded[_id(program)]
    assert set(ways) == {"session", "session again", "fresh process", "grade-all"}, ways.keys()
    first_score, first = ways["session"]
    varies = set(program.get("feedback_varies", ()))      # (a clock-seeded game's dice: see expected.toml)
    for way, (score, feedback) in ways.items():
        assert score == pytest.approx(first_score, abs=1e-4), f"{_id(program)}: {way} {score} != {first_score}"
        assert [t[:5] for t in feedback] == [t[:5] for t in first], f"{_id(program)}: {way}: other checks failed"
        for now, then in zip(feedback, first):
            if now[1] not in varies:
                assert now == then, f"{_id(program)}: {way}: {now[0]} said otherwise"
    assert first_score == pytest.approx(program["score"], abs=1e-3), f"{_id(program)}: {first_score}"


@pytest.mark.parametrize("program", PROGRAMS, ids=_id)
def test_charged_where_the_contract_is(program, graded):
    """An honest program loses nothing; one that breaks the RNG contract loses points in the
    contract's problem (`kit_problems`: where the kit charges it by design), saying what it called."""
    _, feedback = graded[_id(program)]["session"]
    lost: dict[int, float] = {}
    for problem, _, _, score, most, _, _ in feedback:
        if score < most - 1e-9:
            lost[problem] = round(lost.get(problem, 0) + most - score, 4)
    charged = program.get("kit_problems", program["problems"])
    assert sorted(lost) == sorted(charged), f"{_id(program)}: lost {lost}"
    if program["problems"]:
        said = "\n".join(f"{t[1]}\n{t[5]}\n{t[6]}" for t in feedback if t[0] in charged and t[2] != "passed")
        assert program["phrase"].lower() in said.lower(), f"{_id(program)}: never says {program['phrase']!r}"


# -- the harness's own entropy -------------------------------------------------------------------
PROBE = """
import os
import random
import secrets
import sys
import uuid


def probe():
    nonce = None
    frame = sys._getframe()
    while frame is not None:            # the request the harness is serving, as student code finds it
        for value in list(frame.f_locals.values()):
            req = getattr(value, "req", None)
            if type(req) is dict and "nonce" in req:
                nonce = req["nonce"]
        frame = frame.f_back
    own = random.Random()
    return {"urandom": os.urandom(8).hex(), "uuid": uuid.uuid4().hex, "secrets": secrets.token_hex(8),
            "system": random.SystemRandom().random(), "own": own.random(), "choice": random.choice(range(10**9)),
            "nonce": nonce}
"""


def test_a_program_cannot_predict_its_nonce():
    """Every draw a program makes is the same in every run of the same request (fresh process or
    shared worker, another sandbox), yet the nonce the harness authenticates its answer with is new
    each time and is none of them: the harness's own entropy is not the patched os.urandom."""
    runs = []
    for _ in range(2):
        with Sandbox(PROBE, "yahtzee.py") as box:
            for fresh in (True, True, False):
                out = box.run(Request("call", "probe", fresh=fresh))
                assert out.status == "ok", out
                runs.append(out.value)
    nonces = [run.pop("nonce") for run in runs]
    assert all(run == runs[0] for run in runs), runs                  # the same draws, every run
    assert all(isinstance(n, str) and len(n) == 16 for n in nonces), nonces
    assert len(set(nonces)) == len(nonces)                            # a new nonce every request
    drawn = {runs[0]["urandom"], runs[0]["secrets"], runs[0]["uuid"][:16]}
    assert not drawn & set(nonces)


def test_draws_are_reported_and_a_seeded_request_keeps_its_seed():
    """What a program drew besides the injected randint is reported by name (the RNG contract's
    checks read it); a request's seed decides random's draws as before."""
    src = PROBE + """

def seeded():
    return [random.random(), random.choice("abcdef")]
"""
    with Sandbox(src, "yahtzee.py") as box:
        out = box.run(Request("call", "probe"))
        assert out.status == "ok", out
        named = sorted({e[1] for e in out.events if e[0] == "random"})
        assert named == ["Random", "SystemRandom", "choice", "os.urandom"], out.events
        got = box.run(Request("call", "seeded", seed=7)).value
    import random
    expected = random.Random(7)
    assert got == [expected.random(), expected.choice("abcdef")]


def test_a_draw_the_standard_library_makes_for_itself_is_not_reported():
    """tempfile names its files from an own random.Random(): seeded like every draw, but not the
    program's draw (an honest program that logs to a temporary file keeps the RNG contract)."""
    src = """
import random
import tempfile

def logged():
    with tempfile.NamedTemporaryFile("w") as log:
        log.write("x")
    return random.randint(1, 6)

def own():
    return random.Random().random()
"""
    with Sandbox(src, "yahtzee.py") as box:
        for func, named in (("logged", []), ("own", ["Random"])):
            out = box.run(Request("call", func, dice=[4]))
            assert out.status == "ok", out
            assert sorted({e[1] for e in out.events if e[0] == "random"}) == named, out.events
