"""The class report (report.html) and the feedback pages, rendered by a real headless Chromium.

Two gradebooks.  One is filled with constructed grades (no grading needed), so the expectations are
exact: one check is passed by 1 of 6 loaded submissions (< 20 %: flagged), one student could not be
loaded, hints repeat.  The other comes from a real `grade-all` batch over a class built so that a
check must be flagged: the reference, five copies of a mutant that fails the same checks (so 1 of 6
loaded submissions passes them) and a syntax error.  Chromium takes a screenshot (decoded here with
zlib: it must not be blank) and dumps the DOM (the histogram svg, per-check pass rates, the flagged
check, the most common hints, one link per student to a feedback page that exists).  No page
loads anything from the network.

Chromium: /usr/bin/chromium (Debian package `chromium`; .ci/run installs it).  Missing under CI=true
is a failure, elsewhere a skip with the reason.
"""

from __future__ import annotations

import os
import re
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from autograder.assignment import load_assignment
from autograder.engine.results import GradeReport, TestResult
from autograder.grading.export import write_exports
from autograder.grading.gradebook import Gradebook
from autograder.grading.report import FLAG_TEXT, check_rates, histogram_counts

SPEC = load_assignment("yahtzee")
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_TIMEOUT = 60
REPO = Path(__file__).resolve().parent.parent
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
    assert '<svg id="histogram"' in html and "<script src" not in html.lower()
    flagged = re.search(r'<table class="flagged-checks sortable">.*?</table>', html, re.S).group(0)
    rows = re.findall(r'<tr class="flagged">.*?</tr>', flagged, re.S)
    assert len(rows) == 1 and "straights" in rows[0] and FLAG_TEXT in rows[0]
    # top-down: summary, stages, problems, flagged checks, ..., every check (collapsed)
    order = [html.index(f'<h2 id="{part}">') for part in ("summary", "stages", "problems", "flagged", "hints",
                                                            "students", "checks")]
    assert order == sorted(order)
    problems = re.search(r'<table class="problems sortable">.*?</table>', html, re.S).group(0)
    assert re.search(r'<td class="num">4</td><td><a href="#p4-checks">Small and Large Straight</a></td>'
                     r'<td class="num">1</td><td class="num">6</td>', problems), "problem 4 with its table points"
    assert html.count('<details class="checks"') == len({c[1] for c in CHECKS})
    for student in STUDENTS:
        assert f'href="feedback/{student}.html"' in html
        assert (out / "feedback" / f"{student}.html").is_file()
        assert (out / "feedback" / f"{student}.md").is_file()
    assert "3</td><td>" + HINT in html.replace('<td class="num">', "<td>"), "the hint and its 3 students"
    assert 'id="timing"' in html and "stage 1 checks" in html


def test_feedback_page_escapes_output(out):
    page = (out / "feedback" / "ben.html").read_text(encoding="utf-8")
    assert "&lt;b&gt;ben&lt;/b&gt;" in page and "<b>ben</b>" not in page
    assert "href=" not in page, "a page handed to the student on its own has no link that could break"
    gus = (out / "feedback" / "gus.html").read_text(encoding="utf-8")
    assert "syntax error on line 12" in gus


def test_histogram_bins():
    from autograder.grading.charts import histogram

    assert histogram_counts([0, 5, 55, 100, 100, 99.9]) == [2, 0, 0, 0, 0, 1, 0, 0, 0, 3]
    svg = histogram([0, 5, 55, 100, 100, 99.9])
    assert 'data-values="2,0,0,0,0,1,0,0,0,3"' in svg
    assert ">students<" in svg and ">score (% of the maximum)<" in svg, "axis labels are text in the SVG"
    assert "<script" not in svg and "http://" not in svg.replace('xmlns="http://www.w3.org/2000/svg"', "") \
        .replace('xmlns:xlink="http://www.w3.org/1999/xlink"', "")


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
    return subprocess.run(command, capture_output=True, text=True, timeout=CHROMIUM_TIMEOUT,
                          stdin=subprocess.DEVNULL)


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
    assert re.search(r'<svg id="histogram"[^>]*data-values="[\d,]+"', text)
    assert re.search(r'<tr class="flagged">.*straights.*' + re.escape(FLAG_TEXT), text, re.S)
    links = re.findall(r'<a class="student" href="feedback/([^"]+)\.html">', text)
    assert links == STUDENTS


def test_feedback_page_renders_in_chromium(out, tmp_path):
    dom = _run_chromium(tmp_path, "--dump-dom", (out / "feedback" / "dev.html").as_uri())
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert "Feedback: dev" in dom.stdout and "Score: 4 / 10" in dom.stdout


# --- a report from a real batch ---------------------------------------------------------------------

SOLUTION = (REPO / "solution" / "yahtzee.py").read_text(encoding="utf-8")
MUTANT_FIND = "    if max(face_counts(dice).values()) >= n:\n        return sum(dice)"
MUTANT_REPLACE = ("    counts = face_counts(dice)\n    if max(counts.values()) >= n:\n"
                  "        return sum(die for die in dice if counts[die] >= n)")
MUTANT_HINT = "Three of a Kind scores the sum of ALL five dice, not only the three matching ones."
BATCH_STUDENTS = ["broken", "m1", "m2", "m3", "m4", "m5", "ref"]


@pytest.fixture(scope="module")
def batch_out(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("report-batch")
    klass, out = root / "class", root / "out"
    klass.mkdir()
    assert SOLUTION.count(MUTANT_FIND) == 1
    (klass / "ref.py").write_text(SOLUTION, encoding="utf-8")
    for i in range(1, 6):
        (klass / f"m{i}.py").write_text(SOLUTION.replace(MUTANT_FIND, MUTANT_REPLACE), encoding="utf-8")
    (klass / "broken.py").write_text(SOLUTION.replace("def score_upper(dice, face):", "def score_upper(dice, face)"),
                                     encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "autograder", "grade-all", str(klass), "--out", str(out),
                           "--jobs", "2", "--no-progress"], capture_output=True, text=True, cwd=root,
                          env=dict(os.environ, PYTHONPATH=str(REPO)), stdin=subprocess.DEVNULL, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "7 submissions, 7 graded" in done.stdout
    return out


def test_batch_report_renders_in_chromium(batch_out, tmp_path):
    report = batch_out / "report.html"
    shot = tmp_path / "batch-report.png"
    done = _run_chromium(tmp_path, f"--screenshot={shot}", "--window-size=1200,1600", report.as_uri())
    assert shot.is_file() and shot.stat().st_size > 1000, done.stderr[-2000:]
    width, height, rows = decode_png(shot.read_bytes())
    assert (width, height) == (1200, 1600)
    bpp = len(rows[0]) // width
    colours = {rows[y][x:x + 3] for y in range(0, height, 4) for x in range(0, width * bpp, bpp * 4)}
    white = sum(1 for y in range(0, height, 4) for x in range(0, width * bpp, bpp * 4)
                if rows[y][x:x + 3] == b"\xff\xff\xff")
    samples = (height // 4) * (width // 4)
    assert len(colours) > 50, f"a nearly blank screenshot: {len(colours)} colours"
    assert white < 0.97 * samples, f"{white}/{samples} sampled pixels are white"

    dom = _run_chromium(tmp_path, "--dump-dom", report.as_uri())
    assert dom.returncode == 0, dom.stderr[-2000:]
    text = dom.stdout
    # The histogram: 10 bins; 6 of 7 students in 90-100 %, the syntax error in 0-10 %.
    svg = re.search(r'<svg id="histogram".*?</svg>', text, re.S)
    assert svg, "no histogram svg in the DOM"
    assert 'data-values="1,0,0,0,0,0,0,0,0,6"' in svg.group(0)
    # Per-check pass rates: the three P2 checks the mutant fails are passed by 1 of the 6 that loaded
    # (the two P6 dispatcher checks that reach its score_of_a_kind through score were too, before pass
    # 16: score returning what its own score_of_a_kind gives is no longer charged again in P6).
    tests_tables = "".join(re.findall(r'<table class="tests">.*?</table>', text, re.S))
    rates = re.findall(r"<small>\((\d+)/(\d+)\)</small>", tests_tables)
    assert rates and all(n == "6" for _, n in rates), "rates are over the 6 submissions that loaded"
    assert rates.count(("1", "6")) == 3 and rates.count(("6", "6")) == len(rates) - 3
    flagged_table = re.search(r'<table class="flagged-checks sortable">.*?</table>', text, re.S).group(0)
    flagged = re.findall(r'<tr class="flagged">(.*?)</tr>', flagged_table, re.S)
    assert len(flagged) == 3 and all(FLAG_TEXT in row for row in flagged)     # (5, with P6's two, before pass 16)
    assert sum("<td>2 Three and Four of a Kind</td>" in row for row in flagged) == 3
    assert sum("<td>6 Checking dice and the score dispatcher</td>" in row for row in flagged) == 0
    assert 'class="flag"' in flagged[0]
    # The most common hints: the mutant's, for its 5 students.
    hints = re.search(r'<h2 id="hints">.*?</table>', text, re.S)
    assert hints and re.search(r'<td class="num">5</td><td>' + re.escape(MUTANT_HINT), hints.group(0))
    linked = re.search(re.escape(MUTANT_HINT) + r"</td><td>(.*?)</td>", hints.group(0), re.S).group(1)
    assert re.findall(r'<a class="hint-student" href="feedback/(\w+)\.html">', linked) == ["m1", "m2", "m3", "m4", "m5"]
    # One link per student, to a feedback page that exists.
    links = re.findall(r'<a class="student" href="(feedback/[^"]+\.html)">([^<]+)</a>', text)
    assert [name for _, name in links] == BATCH_STUDENTS
    for href, name in links:
        page = batch_out / href
        assert page.is_file(), href
        assert f"Feedback: {name}" in page.read_text(encoding="utf-8")


EXTERNAL = re.compile(r"""(?:src|href|action|poster|data)\s*=\s*["']?\s*(?:https?:)?//|url\(\s*["']?\s*(?:https?:)?//|@import""",
                      re.I)


def test_pages_load_nothing_from_outside(batch_out):
    pages = [batch_out / "report.html", *sorted((batch_out / "feedback").glob("*.html"))]
    assert len(pages) == 1 + len(BATCH_STUDENTS)
    for page in pages:
        html = page.read_text(encoding="utf-8")
        found = EXTERNAL.findall(html)
        assert not found, f"{page.name} loads from outside: {found[:3]}"
        assert "<script src" not in html.lower() and "<link" not in html.lower(), page.name
        assert "<script" not in html.lower() or page.name == "report.html", "feedback pages have no script"


def _screenshot(tmp_path: Path, page: Path, size: str, name: str, *extra: str) -> tuple[int, int, list[bytes]]:
    shot = tmp_path / name
    done = _run_chromium(tmp_path, f"--screenshot={shot}", f"--window-size={size}", *extra, page.as_uri())
    assert shot.is_file() and shot.stat().st_size > 1000, done.stderr[-2000:]
    width, height, rows = decode_png(shot.read_bytes())
    bpp = len(rows[0]) // width
    colours = {rows[y][x:x + 3] for y in range(0, height, 4) for x in range(0, width * bpp, bpp * 4)}
    assert len(colours) > 30, f"{name}: a nearly blank screenshot ({len(colours)} colours)"
    return width, height, rows


def graded_problems(out: Path) -> list[int]:
    """The problems the batch graded (every problem of the stages `grade-all --stage all` runs), in order."""
    with Gradebook(out / "gradebook.sqlite") as book:
        numbers = {t["problem"] for row in book.rows(SPEC.name) for t in row.tests}
    return [p.number for p in sorted(SPEC.problems, key=lambda p: (p.stage, p.number)) if p.number in numbers]


def test_pages_read_without_script_and_on_a_narrow_window(batch_out, tmp_path):
    """Without script every table is complete (the page as written IS the DOM a script-less browser
    shows: the only script turns the headers into sort buttons; headless Chromium cannot capture with
    script disabled, so the written HTML is asserted); at 390 px wide (a phone) the report and a feedback page render with text and charts."""
    report = batch_out / "report.html"
    written = report.read_text(encoding="utf-8")
    assert written.count("<script>") == 1 and "<button" not in written
    students = re.search(r'<table class="students sortable">.*?</table>', written, re.S).group(0)
    assert re.findall(r'<a class="student" href="feedback/([^"]+)\.html">', students) == BATCH_STUDENTS
    problems = re.search(r'<table class="problems sortable">.*?</table>', written, re.S).group(0)
    assert problems.count('<tr class="problem">') == len(graded_problems(batch_out))
    with_script = _run_chromium(tmp_path, "--dump-dom", report.as_uri()).stdout
    assert '<button type="button">' in with_script, "the optional script makes the headers sort buttons"
    width, _, _ = _screenshot(tmp_path, report, "390,2400", "narrow-report.png")
    assert width == 390
    _screenshot(tmp_path, batch_out / "feedback" / "m1.html", "390,1600", "narrow-feedback.png")
    _screenshot(tmp_path, batch_out / "feedback" / "m1.html", "1000,1600", "feedback.png")


def test_feedback_page_groups_by_problem_and_folds_passing_checks(batch_out, tmp_path):
    dom = _run_chromium(tmp_path, "--dump-dom", (batch_out / "feedback" / "m1.html").as_uri())
    assert dom.returncode == 0, dom.stderr[-2000:]
    text = dom.stdout
    problems = re.findall(r'<details class="problem"( open="")? id="problem-(\d+)">', text)
    assert [int(n) for _, n in problems] == graded_problems(batch_out)
    with Gradebook(batch_out / "gradebook.sqlite") as book:
        m1 = next(r for r in book.rows(SPEC.name) if r.submission_id == "m1")
    failing = sorted({t["problem"] for t in m1.tests if t["status"] != "passed"})
    assert 2 in failing
    assert [int(n) for is_open, n in problems if is_open] == failing, "only the failing problems are open"
    assert text.count('<details class="passing">') == len(graded_problems(batch_out))
    assert not re.search(r"[a-z]\d+ <span class=\"points\">", text), "no pytest id counters in check names"
    assert 'class="points">0 / ' in text and "white-space:nowrap" in text
    assert "href=" not in text
    assert MUTANT_HINT in text
