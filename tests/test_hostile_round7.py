"""Round seven of the hostile corpus (redteam7, pass 20).

Part A, the same grade every run (what pass 19 left around its patches): inside student code
clock_gettime of a wall or monotonic clock and os.times' elapsed are the request's (the CPU clocks
stay the machine's, on purpose: test_round7_the_cpu_clocks_stay_the_machines...), the C generator class
is patched on the class however it is reached (random.Random.__mro__, type(random._inst).__mro__),
and an entropy device opened by any other opener than the patched open is refused the same way
every run.  The sameagain corpus (tests/test_sameagain.py) grades
programs whose grade depends on each, three ways; the probes here read the values themselves.

Part B, the readers (tests/corpus/round7/, graded alone, in one batch and through Gradescope by
tests/helpers/rounds.py): no reader gets a character of Unicode's invisible classes raw, nor a
tower of combining marks, in any text, Markdown, Gradescope, CSV or HTML page.  Each attack's
escaped phrase fails on main 06c731a (its characters were raw there).
"""

from __future__ import annotations

import re
import sys
import unicodedata

import pytest
from helpers.rounds import REPO, Round, module_tests

from autograder.engine import escape, unicode_tables
from autograder.engine.sandbox import Request, Sandbox

ROUND = Round(REPO / "tests" / "corpus" / "round7", jobs=1)
globals().update(module_tests(ROUND, "round7", attacks=7))     # results, test_round7_case, ...

INVISIBLE = re.compile(f"[{unicode_tables.INVISIBLE}]")
TOWER = re.compile(f"[{unicode_tables.MARKS}]{{{escape.MAX_MARKS + 1},}}")


# --- Part B: the readers ------------------------------------------------------------------------

def _unreadable(text: str) -> str | None:
    """The first raw invisible character or combining tower in TEXT (tab and newline are text)."""
    found = INVISIBLE.search(text) or TOWER.search(text)
    return None if found is None else repr(found.group()[:8])


def test_round7_no_reader_gets_an_invisible_character_or_a_tower(results):
    """Every text a person (or a machine) reads of every case, every way: the text and Markdown
    feedback, Gradescope's results, the batch's pages, the class report, the CSV and LMS files."""
    for way in ("alone", "gradescope"):
        for name, got in results[way].items():
            for kind in ("text", "markdown"):
                bad = _unreadable(got.get(kind, ""))
                assert bad is None, f"{name} ({way}, {kind}): {bad} reaches the reader"
    out = results["out"]
    files = [*sorted((out / "feedback").glob("*.*")), out / "report.html", out / "grades.csv",
             out / "canvas_grades.csv", out / "moodle_grades.csv"]
    for path in files:
        if path.suffix in (".html", ".md", ".txt", ".csv"):
            bad = _unreadable(path.read_text(encoding="utf-8"))
            assert bad is None, f"{path.name}: {bad} reaches the reader"
    page = (out / "feedback" / "arabic_letter_mark.html").read_text(encoding="utf-8")
    assert "\\u061c0 / 100\\u061c" in page             # what chromium drew as '100 / 0' on main


def test_plain_escapes_every_character_of_the_classes():
    """escape.plain by class: every code point of Unicode's control, format, separator, surrogate
    and default-ignorable classes (the running Python's database) becomes an ASCII escape; the
    tables are the database's own (regenerated where the versions agree, a superset where the
    running one is older); a letter keeps MAX_MARKS combining marks, and says how many more."""
    for cp in range(sys.maxunicode + 1):
        if unicode_tables.invisible(cp):
            shown = escape.plain(chr(cp))
            assert shown.isascii() and shown.startswith("\\"), hex(cp)
    if unicodedata.unidata_version == unicode_tables.UNICODE_VERSION:
        assert unicode_tables.ranges(unicode_tables.invisible) == unicode_tables.INVISIBLE
        assert unicode_tables.ranges(unicode_tables.mark) == unicode_tables.MARKS
    else:
        assert all(TOWER.match(chr(cp) * (escape.MAX_MARKS + 1)) for cp in range(sys.maxunicode + 1)
                   if unicode_tables.mark(cp) and not unicode_tables.invisible(cp))
    assert escape.plain("\tkept\n") == "\tkept\n" and escape.plain("é ü ñ 🎲 Ω") == "é ü ñ 🎲 Ω"
    assert escape.plain("a\U000e0041") == "a\\U000e0041"          # (not "\ue0041": two characters)
    assert escape.plain("e" + "\u0301" * 4) == "e" + "\u0301" * 4
    assert escape.plain("e" + "\u0301" * 9 + "x") == "e" + "\u0301" * 4 + "[+5 combining marks]x"
    assert escape.csv_cell("\u061c=1+1") == "\\u061c=1+1" and escape.name("a\u3164b") == "a\\u3164b"


# --- Part A: every clock and generator is the request's ----------------------------------------
PROBE = r'''
import _io
import datetime
import io
import os
import random
import time


def today():
    return datetime.date.today().isoformat()


def clock_gettime():
    return [time.clock_gettime(time.CLOCK_REALTIME), time.clock_gettime_ns(time.CLOCK_MONOTONIC),
            time.clock_gettime(time.CLOCK_BOOTTIME)]


def times():
    return os.times().elapsed


def spins_on_clock_gettime():
    started, spins = time.clock_gettime(time.CLOCK_MONOTONIC), 0
    while time.clock_gettime(time.CLOCK_MONOTONIC) - started < 0.25:
        spins += 1
    return spins


def c_class_by_mro():
    return [random.Random.__mro__[-2]().random(), random.Random.__mro__[1]().random()]


def c_class_on_inst():
    return [type(random._inst).__mro__[-2].random(random._inst) for _ in range(3)]


def c_class_seeds_inst():
    random.Random.__mro__[-2].seed(random._inst)
    return random._inst.random()


def openers():
    got = []
    for opener in (lambda: io.FileIO("/dev/urandom"), lambda: _io.FileIO("/dev/random"),
                   lambda: _io.open("/dev/urandom", "rb"),
                   lambda: open("/dev/urandom", "rb", opener=lambda path, flags: os.dup(0) and os.open(path, flags))):
        try:
            got.append(opener().read(8).hex())
        except OSError as err:
            got.append(f"{type(err).__name__} {err.errno}")
    return got


def hashed():
    return [hash("abc"), hash(("x", 1))]
'''
# function -> the random draws it reports (Run.note)
REPORTS = {"today": [], "clock_gettime": [], "times": [], "spins_on_clock_gettime": [],
           "c_class_by_mro": ["Random"], "c_class_on_inst": ["random._inst"], "c_class_seeds_inst": ["random._inst"],
           "openers": [], "hashed": []}


def test_round7_every_clock_generator_and_opener_is_the_same_every_run():
    """On main 06c731a each of these but today() and hashed() read the machine (two sandboxes
    disagreed): clock_gettime and os.times' elapsed read the real clocks, the C
    generator class reached through a __mro__ seeded from the kernel (or drew random._inst's at-fork
    state), and io.FileIO/_io.open/an opener= read /dev/urandom's bytes."""
    runs: dict[str, list] = {name: [] for name in REPORTS}
    for _ in range(2):
        with Sandbox(PROBE, "yahtzee.py") as box:
            for fresh in (True, False, True):
                for name, reports in REPORTS.items():
                    out = box.run(Request("call", name, fresh=fresh))
                    assert out.status == "ok", (name, out)
                    assert sorted({e[1] for e in out.events if e[0] == "random"}) == reports, (name, out.events)
                    runs[name].append(out.value)
                    if name == "c_class_seeds_inst":    # random.seed() by another name, reported as it is
                        assert ["seed", []] in out.events, out.events
    for name, values in runs.items():
        assert all(value == values[0] for value in values), (name, values)
    first = {name: values[0] for name, values in runs.items()}
    assert first["today"] == "2026-01-01"
    wall, mono_ns, boot = first["clock_gettime"]
    assert wall == pytest.approx(1_767_225_601.0, abs=1e-3) and mono_ns // 10**6 == 1_001_000
    assert boot == pytest.approx(1001.0, abs=1e-3)
    assert first["times"] == pytest.approx(1001.0, abs=1e-3)
    assert 240_000 <= first["spins_on_clock_gettime"] <= 250_000     # a tick a read: the wait ended
    assert first["openers"] == ["PermissionError 13"] * 4


def test_round7_the_cpu_clocks_stay_the_machines_and_limits_hold():
    """The CPU clocks are left real on purpose (a spin on process_time spends what it asks: the cost
    corpus's slow programs), clock_gettime of a CPU clock with them; a program spinning on the
    request's clock_gettime forever is still stopped at its limit (the harness's clocks are real)."""
    src = """
import time

def spin():
    while True:
        time.clock_gettime(time.CLOCK_MONOTONIC)

def work():
    started = time.process_time()
    while time.process_time() - started < 0.2:
        pass
    return [time.process_time() - started, time.clock_gettime(time.CLOCK_PROCESS_CPUTIME_ID) > 0.2]
"""
    with Sandbox(src, "yahtzee.py") as box:
        stopped = box.run(Request("call", "spin", timeout=0.5))
        assert stopped.status == "timeout", stopped
        worked = box.run(Request("call", "work"))
    assert worked.status == "ok" and worked.value[0] >= 0.2 and worked.value[1], worked
    assert worked.cpu >= 0.2, worked                  # the 0.2 s asked were spent
