"""The class report (report.html) and the feedback pages, rendered by a real headless Chromium.

The gradebook is filled with constructed grades (no grading needed), so the expectations are exact:
one check is passed by 1 of 6 loaded submissions (< 20 %: flagged), one student could not be loaded,
hints repeat.  Chromium takes a screenshot (decoded here with zlib: it must not be blank) and dumps
the DOM (the histogram svg, the flagged check, one link per student).

Chromium: /usr/bin/chromium (Debian package `chromium`; .ci/run installs it).  Missing under CI=true
is a failure, elsewhere a skip with the reason.
"""

from __future__ import annotations

import os
import re
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

from autograder.assignment import load_assignment
from autograder.engine.results import GradeReport, TestResult
from autograder.export import write_exports
from autograder.gradebook import Gradebook
from autograder.report import FLAG_TEXT, check_rates, histogram_svg

SPEC = load_assignment("yahtzee")
CHROMIUM = Path("/usr/bin/chromium")
STUDENTS = ["ana", "ben", "cleo", "dev", "eli", "fay", "gus"]
HINT = "Three of a Kind scores the sum of ALL five dice, not only the three matching ones."

# (name, problem, stage, points): check "straights" is passed only by ana.
CHECKS = [("P1 ones", 1, 1, 2.0), ("P2 three of a kind", 2, 1, 3.0), ("P4 straights", 4, 1, 3.0),
          ("P7 format dice", 7, 2, 2.0)]


def _report(student: str) -> GradeReport:
    report = GradeReport(submission=student, assignment=SPEC.name)
    if student == "gus":
        report.error = "Your file has a syntax error on line 12: expected ':'"
    for number, (name, problem, stage, points) in enumerate(CHECKS):
        passed = (student != "gus" and
                  (name != "P4 straights" or student == "ana") and
                  (name != "P2 three of a kind" or student in ("ana", "ben", "cleo")))
        hint = HINT if name == "P2 three of a kind" and not passed and student != "gus" else ""
        report.tests.append(TestResult(
            name=name, problem=problem, stage=stage, score=points if passed else 0.0, max_score=points,
            status="passed" if passed else "failed", output="" if passed else f"Returned 0 <b>{student}</b>",
            hint=hint, elapsed=0.01 * (number + 1), test_id=f"suite::check{number}"))
    return report


@pytest.fixture(scope="module")
def out(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("report")
    with Gradebook(out / "gradebook.sqlite") as book:
        for i, student in enumerate(STUDENTS):
            report = _report(student)
            book.record(assignment=SPEC.name, submission_id=student, content_hash=f"h{i}", stage="all",
                        report=report, feedback=f"feedback for {student}", wall_time=0.5 + i / 10,
                        cpu_time=0.3, grader_version="test")
        written = write_exports(book, SPEC, out)
    assert out / "report.html" in written
    return out


# --- the HTML itself -------------------------------------------------------------------------------

def test_rates_flag_the_check_nearly_everyone_fails(out):
    with Gradebook(out / "gradebook.sqlite") as book:
        rates = {r["name"]: r for r in check_rates(book.rows(SPEC.name))}
    assert rates["P4 straights"]["n"] == 6, "the student whose file did not load is not counted"
    assert rates["P4 straights"]["passed"] == 1 and rates["P4 straights"]["flagged"]
    assert not rates["P2 three of a kind"]["flagged"] and rates["P2 three of a kind"]["rate"] == 0.5
    assert not rates["P1 ones"]["flagged"]


def test_report_html_has_every_part(out):
    html = (out / "report.html").read_text(encoding="utf-8")
    assert '<svg id="histogram"' in html and "<script" not in html.lower()
    assert html.count(FLAG_TEXT) == 1
    row = re.search(r'<tr class="flagged">.*?</tr>', html, re.S).group(0)
    assert "P4 straights" in row
    for student in STUDENTS:
        assert f'href="feedback/{student}.html"' in html
        assert (out / "feedback" / f"{student}.html").is_file()
        assert (out / "feedback" / f"{student}.md").is_file()
    assert "3</td><td>" + HINT in html.replace('<td class="num">', "<td>"), "the hint and its 3 students"
    assert 'id="timing"' in html and "stage 1 checks" in html


def test_feedback_page_escapes_output(out):
    page = (out / "feedback" / "ben.html").read_text(encoding="utf-8")
    assert "&lt;b&gt;ben&lt;/b&gt;" in page and "<b>ben</b>" not in page
    assert 'href="../report.html"' in page
    gus = (out / "feedback" / "gus.html").read_text(encoding="utf-8")
    assert "syntax error on line 12" in gus


def test_histogram_bins():
    svg = histogram_svg([0, 5, 55, 100, 100, 99.9])
    counts = [int(m) for m in re.findall(r"<title>\d+-\d+%: (\d+)</title>", svg)]
    assert counts == [2, 0, 0, 0, 0, 1, 0, 0, 0, 3]


# --- in a real browser -----------------------------------------------------------------------------

def _chromium() -> Path:
    if CHROMIUM.exists():
        return CHROMIUM
    if os.environ.get("CI") == "true":
        pytest.fail("/usr/bin/chromium is missing under CI (.ci/run installs the Debian package chromium)")
    pytest.skip("/usr/bin/chromium is not installed (apt-get install chromium)")


def _run_chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    profile = tmp_path / "profile"
    profile.mkdir(exist_ok=True)
    command = [str(_chromium()), "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--no-first-run", "--disable-component-update", "--disable-sync", f"--user-data-dir={profile}",
               *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=90, stdin=subprocess.DEVNULL)


def decode_png(data: bytes) -> tuple[int, int, list[bytes]]:
    """(width, height, rows of RGB(A) bytes) of an 8-bit non-interlaced RGB or RGBA PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, color, _, _, interlace = header
    assert depth == 8 and color in (2, 6) and interlace == 0, f"unexpected PNG format {header}"
    bpp = 3 if color == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    assert len(raw) == height * (stride + 1)
    rows, prev = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if kind == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 0xFF
        elif kind == 2:
            line = bytearray((a + b) & 0xFF for a, b in zip(line, prev))
        elif kind == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 0xFF
        elif kind == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b, c = prev[i], prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        rows.append(bytes(line))
        prev = line
    return width, height, [bytes(r) for r in rows]


def test_report_renders_in_chromium(out, tmp_path):
    shot = tmp_path / "report.png"
    url = (out / "report.html").as_uri()
    done = _run_chromium(tmp_path, f"--screenshot={shot}", "--window-size=1200,1600", url)
    assert shot.is_file() and shot.stat().st_size > 1000, done.stderr[-2000:]
    width, height, rows = decode_png(shot.read_bytes())
    assert (width, height) == (1200, 1600)
    bpp = len(rows[0]) // width
    colours: set[bytes] = set()
    dark = 0
    for y in range(0, height, 4):
        row = rows[y]
        for x in range(0, width * bpp, bpp * 4):
            pixel = row[x:x + 3]
            colours.add(pixel)
            dark += sum(pixel) < 300
    assert len(colours) > 50, f"a nearly blank screenshot: {len(colours)} colours"
    assert dark > 200, "no text or bars drawn"

    dom = _run_chromium(tmp_path, "--dump-dom", url)
    assert dom.returncode == 0, dom.stderr[-2000:]
    text = dom.stdout
    assert re.search(r'<svg id="histogram"[^>]*>.*<rect class="bin"', text, re.S)
    assert re.search(r'<tr class="flagged">.*P4 straights.*' + re.escape(FLAG_TEXT), text, re.S)
    links = re.findall(r'<a class="student" href="feedback/([^"]+)\.html">', text)
    assert links == STUDENTS


def test_feedback_page_renders_in_chromium(out, tmp_path):
    dom = _run_chromium(tmp_path, "--dump-dom", (out / "feedback" / "dev.html").as_uri())
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert "Feedback: dev" in dom.stdout and "Score: 4 / 10" in dom.stdout
