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
import random as random_module
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


# -- draws around random's module functions (pass 19) -------------------------------------------
AROUND = """
import _random
import os
import pathlib
import random

_BOUND = random._inst.randint          # taken at import, before any request


def inst_choice():
    return [random._inst.choice(range(1000)) for _ in range(3)]


def inst_bound():
    return [_BOUND(1, 10**9) for _ in range(3)]


def wrapped_original():
    original = getattr(random.random, "__wrapped__", None)
    return None if original is None else original()


def unbound_on_inst():
    got = []
    for cls in (random.Random, _random.Random):
        try:
            got.append(cls.random(random._inst))
        except TypeError as err:       # (the patched classes: random._inst is none of theirs)
            got.append(type(err).__name__)
    return got


def c_random():
    return [_random.Random().random(), _random.Random().getrandbits(32)]


def getrandom():
    return os.getrandom(8).hex()


def dev_urandom():
    with open("/dev/urandom", "rb") as handle:
        return handle.read(8).hex()


def dev_random_unbuffered():
    with open("/dev/random", "rb", buffering=0) as handle:
        return handle.read(8).hex()


def dev_urandom_other_path():
    return pathlib.Path("/dev/./urandom").open("rb").read(8).hex()


def os_open_refused():
    try:
        fd = os.open("/dev/urandom", os.O_RDONLY)
    except PermissionError as err:
        return f"refused {err.errno}"
    try:
        return os.read(fd, 8).hex()
    finally:
        os.close(fd)


def through_choice():
    return random.choice(range(1000))
"""
# function -> what it reports (Run.note; random's functions report themselves)
AROUND_REPORTS = {"inst_choice": ["random._inst"], "inst_bound": ["random._inst"], "wrapped_original": [],
                  "unbound_on_inst": ["Random"], "c_random": ["Random"], "getrandom": ["os.getrandom"],
                  "dev_urandom": ["open('/dev/urandom')"], "dev_random_unbuffered": ["open('/dev/random')"],
                  "dev_urandom_other_path": ["open('/dev/urandom')"], "os_open_refused": [],
                  "through_choice": ["choice"]}


def test_draws_around_random_functions_are_the_requests():
    """Every way around random's wrapped functions (random's own generator used directly or bound
    before the request, the wrapper's original, its methods taken unbound from the classes, the C
    generator made directly, os.getrandom, an entropy device opened by any path) draws the same
    numbers in every run of the same request (fresh processes and the shared worker, in two
    sandboxes), is reported by what it called, and no draw the harness makes for its own dice is;
    os.open of an entropy device is refused the same way every time."""
    runs: dict[str, list] = {name: [] for name in AROUND_REPORTS}
    for _ in range(2):
        with Sandbox(AROUND, "yahtzee.py") as box:
            for fresh in (True, False, True, False):
                for name, reports in AROUND_REPORTS.items():
                    out = box.run(Request("call", name, fresh=fresh))
                    assert out.status == "ok", (name, out)
                    assert sorted({e[1] for e in out.events if e[0] == "random"}) == reports, (name, out.events)
                    runs[name].append(out.value)
    for name, values in runs.items():
        assert all(value == values[0] for value in values), (name, values)
    assert runs["wrapped_original"][0] is None                 # no way to the generator's C method
    assert runs["unbound_on_inst"][0] == ["TypeError", "TypeError"]
    assert runs["os_open_refused"][0] == "refused 13"
    assert runs["getrandom"][0] != runs["dev_urandom"][0]     # (each request its own stream: its content)


def test_the_graders_dice_are_randint_s_numbers_and_not_the_students_draws():
    """A seeded request's dice (the harness's draws.randint, around the generator's reporting
    class) are exactly what random.randint gives on that seed, and report nothing."""
    src = """
import random

def dice():
    return [random.randint(1, 6) for _ in range(50)] + [random.randint(0, 10**12)]
"""
    with Sandbox(src, "yahtzee.py") as box:
        out = box.run(Request("call", "dice", seed=11))
    assert out.status == "ok", out
    expected = random_module.Random(11)
    assert out.value == [expected.randint(1, 6) for _ in range(50)] + [expected.randint(0, 10**12)]
    assert not [e for e in out.events if e[0] == "random"], out.events


# -- the clock (pass 19) ------------------------------------------------------------------------
CLOCKS = """
import datetime
import time
from datetime import datetime as dt
from time import perf_counter

STARTED = time.time()                  # read at import


def readings():
    t0, p0 = time.monotonic(), perf_counter()
    time.sleep(0.05)
    end = time.time() + 0.25
    spins = 0
    while time.time() < end:           # waits on the clock: ends
        spins += 1
    return {"since_import": time.time() - STARTED, "monotonic": time.monotonic() - t0,
            "perf": perf_counter() - p0, "ns": [time.time_ns(), time.monotonic_ns(), time.perf_counter_ns()],
            "spins": spins, "now": dt.now().isoformat(), "utcnow": datetime.datetime.utcnow().isoformat(),
            "today": datetime.datetime.today().isoformat(), "ctime": time.ctime(), "asctime": time.asctime(),
            "strftime": time.strftime("%Y-%m-%d %H:%M:%S"), "localtime": list(time.localtime()),
            "gmtime": list(time.gmtime()), "given": time.strftime("%Y", time.gmtime(0)),
            "kind": type(dt.now()).__name__, "is_datetime": isinstance(dt.now(), datetime.datetime)}


def sleeps_past_its_limit():
    while True:
        time.sleep(0.05)
"""


def test_the_clock_a_program_reads_is_the_requests():
    """What a program reads from the clock (time's wall and monotonic clocks, the calendar, datetime's
    now) is the same in every run of the same request, fresh process or shared worker, in two
    sandboxes: it starts at a fixed time and moves by a tick a read and by what time.sleep slept
    (which really sleeps); a loop waiting on it ends.  The harness's own limits keep the machine's
    clock: a program that sleeps forever is stopped at its limit."""
    runs, took = [], []
    for _ in range(2):
        with Sandbox(CLOCKS, "yahtzee.py") as box:
            for fresh in (True, False, True, False):
                out = box.run(Request("call", "readings", fresh=fresh))
                assert out.status == "ok", out
                runs.append(out.value)
                took.append(out.elapsed)
            stopped = box.run(Request("call", "sleeps_past_its_limit", timeout=0.5))
            assert stopped.status == "timeout", stopped
    assert all(run == runs[0] for run in runs), runs
    first = runs[0]
    assert first["now"].startswith("2026-01-01T00:00:01") and first["strftime"].startswith("2026-01-01 00:00:01")
    assert first["since_import"] == pytest.approx(1.0 + 0.05 + 0.25, abs=0.01)
    assert first["monotonic"] == pytest.approx(0.30, abs=0.01) and first["perf"] == pytest.approx(0.30, abs=0.01)
    assert 200_000 <= first["spins"] <= 250_000              # a tick (1 us) a read: the wait ended
    assert first["given"] == "1970" and first["kind"] == "datetime" and first["is_datetime"]
    assert min(took) >= 0.05                                 # the sleep was real
