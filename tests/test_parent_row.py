"""grade-all's parent, per row: each problem's block of a feedback page and of the Markdown is made
once per distinct problem and kept (report.problem_block, reporters.problem_markdown), a new
gradebook has 16 KiB pages and stores a row in one statement, a stored row's checks are made
without TestResult.__init__.  Each shortcut must give exactly what the long way gives (the long
way: the page and the Markdown as they were made before, written out here).  Constructed grades
(no grading): the whole file takes ~1 s.
"""

from __future__ import annotations

import collections
import sqlite3

import pytest

from autograder.assignment import load_assignment
from autograder.engine import reporters
from autograder.engine.escape import fence, markdown_inline, plain
from autograder.engine.results import GradeReport, TestResult
from autograder.grading import report as pages
from autograder.grading.gradebook import PAGE_SIZE, Gradebook, Row, Stored

SPEC = load_assignment("yahtzee")

# The feedback page's template as it was before its problems' blocks moved to problem.html.j2.
OLD_PAGE = """{% extends "base.html.j2" %}
{% block body %}
<h1>Feedback: {{ student }}</h1>
<p><b class="points">{{ headline }}</b></p>
{% if late %}<p class="sub">{{ late }}</p>{% endif %}
{% if error %}<p class="error">{{ error }}</p>{% endif %}
{% if flags %}<div class="alert"><b>Flagged by the sandbox: this program tried to do what the assignment never needs</b> (the sandbox refuses or contains it):<ul>{% for flag in flags %}<li>{{ flag }}</li>{% endfor %}</ul></div>{% endif %}
{% if notes %}<ul class="notes">{% for note in notes %}<li>{{ note }}</li>{% endfor %}</ul>{% endif %}
{% for stage in stages %}
<h2>Stage {{ stage["number"] }}: {{ stage["title"] }} <small class="points">{{ stage["points"] }}</small></h2>
{% for p in stage["problems"] %}
<details class="problem"{% if not p["all_passed"] %} open{% endif %} id="problem-{{ p["number"] }}">
<summary>Problem {{ p["number"] }} {{ p["title"] }} <span class="points">{{ p["points"] }}</span>: {{ p["passed"] }}/{{ p["checks"]|length }} checks passed</summary>
{% for c in p["failing"] %}<div class="check">
<h3 class="status-{{ c["status"]|replace(' ', '-') }}">{{ c["status"] }}: {{ c["name"] }} <small class="points">{{ c["points"] }}</small></h3>
{% if c["output"] %}<pre>{{ c["output"] }}</pre>{% endif %}
</div>{% endfor %}
{% if p["passing"] %}<details class="passing"><summary>{{ p["passing"]|length }} passing check{{ 's' if p["passing"]|length != 1 }}</summary><ul>
{% for c in p["passing"] %}<li class="status-passed">{{ c["name"] }} <span class="points">{{ c["points"] }}</span>{% if c["output"] %}<pre>{{ c["output"] }}</pre>{% endif %}</li>{% endfor %}
</ul></details>{% endif %}
</details>
{% endfor %}
{% endfor %}
{% if strategy_plot %}<h2>Your strategy against optimal play</h2>
<p><img class="chart" alt="the distribution of your strategy's scores against optimal play" src="{{ strategy_plot }}" width="800"></p>
{% endif %}
<p class="sub">Graded {{ graded_at }}. The same feedback is in {{ student }}.md and {{ student }}.txt next to this page.</p>
{% endblock %}"""


def old_page(row: Row, report: GradeReport, late: str = "") -> str:
    """render_feedback as it was: every problem's block rendered for every page."""
    stage_titles = {s.number: s.title for s in SPEC.stages}
    titles = reporters.problem_titles(report.assignment)
    grouped: dict[tuple[int, int], list] = collections.defaultdict(list)
    for t in report.tests:
        grouped[(t.stage, t.problem)].append(t)
    stages = []
    for stage, (got, top) in report.stage_scores().items():
        problems = []
        for problem in sorted(p for s, p in grouped if s == stage):
            tests = grouped[(stage, problem)]
            names = pages._unique([pages.clean_name(t.name, problem) for t in tests])
            checks = [{"name": name, "status": t.status, "output": t.output,
                       "points": f"{pages.fmt(t.score)} / {pages.fmt(t.max_score)}"} for name, t in zip(names, tests)]
            failing = [c for c in checks if c["status"] != "passed"]
            problems.append({"number": problem, "title": titles.get(problem, ""), "checks": checks,
                             "failing": failing, "passing": [c for c in checks if c["status"] == "passed"],
                             "passed": len(checks) - len(failing), "all_passed": not failing,
                             "points": f"{pages.fmt(sum(t.score for t in tests))} / "
                                       f"{pages.fmt(sum(t.max_score for t in tests))}"})
        stages.append({"number": stage, "title": stage_titles.get(stage, ""),
                       "points": f"{pages.fmt(got)} / {pages.fmt(top)}", "problems": problems})
    context = {"title": f"Feedback: {row.submission_id}", "student": row.submission_id,
               "headline": f"Score: {pages.fmt(report.score)} / {pages.fmt(report.max_score)}",
               "error": report.error, "notes": report.notes, "flags": pages.student_flags(row), "late": late,
               "stages": stages, "graded_at": row.graded_at, "strategy_plot": ""}
    return pages._env().from_string(OLD_PAGE).render(**context)


def old_markdown(report: GradeReport) -> str:
    """reporters.to_markdown as it was: every check's lines made for every report."""
    titles = reporters.problem_titles(report.assignment)
    lines = [f"# Feedback: {markdown_inline(report.submission)}", "",
             f"**Score: {reporters.fmt(report.score)} / {reporters.fmt(report.max_score)}**", ""]
    if report.error:
        lines += [f"> **{markdown_inline(report.error)}**", ""]
    lines += [f"- {markdown_inline(note)}" for note in report.notes]
    for stage, problems in reporters._groups(report).items():
        lines += ["", f"## Stage {stage}", "", "| Problem | Check | Result | Points |", "|---|---|---|---|"]
        for problem, tests in problems.items():
            for test in tests:
                lines.append(f"| {problem} {titles.get(problem, '')} | {test.name} | {test.status} | "
                             f"{reporters.fmt(test.score)} / {reporters.fmt(test.max_score)} |")
        said = [t for p in problems.values() for t in p if t.output and t.output != report.error]
        for test in said:
            lines += ["", f"### {markdown_inline(test.name)}", "", fence(plain(test.output))]
    lines += ["", reporters.closing_line(report), ""]
    return "\n".join(lines)


def _report(student: str, variant: int) -> GradeReport:
    """A report whose problems 1 and 7 are the same for every VARIANT (all passed; one check's note),
    problem 2 failed in a way of its own, a stage's problems interleaved, a name used twice."""
    report = GradeReport(submission=student, assignment=SPEC.name, notes=[f"note <{student}>"],
                         flags=["tried to open a socket"] if variant == 2 else [])
    checks = [(1, 1, "P1 three threes", "passed", 0.8, 0.8, ""),
              (2, 1, "P2 pairs0", "failed" if variant else "passed", 0.0 if variant else 1.5, 1.5,
               f"expected 3, got {variant} <&> `x` ```" if variant else ""),
              (1, 1, "P1 five sixes", "passed", 0.8, 0.8, "Not charged: stems from P2"),
              (2, 1, "P2 pairs1", "skipped", 0.0, 1.5, "skipped: P2 failed first"),
              (2, 1, "P2 pairs0", "passed", 1.5, 1.5, ""),
              (7, 2, "P7 full house", "passed", 2.0, 2.0, ""),
              (13, 3, "P13 a game", "error" if variant == 3 else "passed", 0.0 if variant == 3 else 3.0, 3.0,
               "\x1b[2Jboom" if variant == 3 else "")]
    for problem, stage, name, status, score, top, output in checks:
        report.tests.append(TestResult(name=name, problem=problem, stage=stage, score=score, max_score=top,
                                       status=status, output=output, test_id=f"suite::{name}"))
    if variant == 4:
        report.error = "the program does not load"
        for t in report.tests:
            t.status, t.score, t.output = "failed", 0.0, report.error
    return report


def _row(report: GradeReport) -> Row:
    data = report.to_dict()
    return Row(assignment=SPEC.name, submission_id=report.submission, content_hash="", stage="all", status="graded",
               score=report.score, max_score=report.max_score, tests=data["tests"], report=data, feedback="",
               error=report.error, wall_time=0.0, cpu_time=0.0, grader_version="", graded_at="2026-11-25T08:00:00.000",
               source="", times_graded=1)


def test_each_problems_block_is_made_once_and_every_page_and_markdown_is_what_it_was():
    pages.problem_block.cache_clear()
    reporters.problem_markdown.cache_clear()
    reports = [_report(f"s{i}", i % 5) for i in range(10)]
    for report in reports + reports:                    # cold, then every block kept
        row = _row(report)
        assert pages.render_feedback(row, report, late="late 1 day") == old_page(row, report, late="late 1 day")
        assert reporters.to_markdown(report) == old_markdown(report)
        groups = reporters.check_groups(report)
        assert reporters.to_markdown(report, groups) == old_markdown(report)
        assert pages.render_feedback(row, report, groups=groups) == old_page(row, report)
    # 40 problems on 10 pages (made 4 times each), 12 distinct (P1 and P7: 2 each, every check failed in variant 4;
    # P2: 5, one a variant; P13: 3): each block made once, not once per page
    for made in (pages.problem_block.cache_info(), reporters.problem_markdown.cache_info()):
        assert made.currsize == made.misses == 12 and made.hits == 160 - 12


def test_a_problems_block_is_made_from_its_arguments_alone():
    checks = (("P3 a check", "failed", "<script>", 0.0, 1.0), ("P3 a check", "passed", "", 1.0, 1.0))
    block = pages.problem_block(3, "Full <House>", checks)
    assert block == pages.problem_block(3, "Full <House>", tuple(list(c) and c for c in checks))
    assert "&lt;script&gt;" in block and "Full &lt;House&gt;" in block and "a check (2)" in block
    assert block.startswith("\n<details class=\"problem\" open id=\"problem-3\">") and block.endswith("</details>\n")
    other = pages.problem_block(3, "Full <House>", (checks[0][:2] + ("<style>",) + checks[0][3:], checks[1]))
    assert other != block and "&lt;style&gt;" in other


def test_a_stored_rows_checks_are_the_checks_init_makes():
    report = _report("ana", 1)
    data = report.to_dict()
    again = GradeReport.from_dict(data)
    assert again == report and again.to_dict() == data
    assert [list(vars(t)) for t in again.tests] == [list(vars(t)) for t in report.tests]
    # fields missing (an older row) or in another order: made by __init__, its defaults filled in
    partial = {"name": "x", "problem": 1, "stage": 1, "score": 1.0, "max_score": 1.0, "status": "passed"}
    shuffled = dict(reversed(list(data["tests"][0].items())))
    made = GradeReport.from_dict({**data, "tests": [partial, shuffled]}).tests
    assert made == [TestResult(**partial), report.tests[0]] and made[0].test_id == "" and made[0].elapsed == 0.0
    with pytest.raises(TypeError):                      # an unknown field: refused as before
        GradeReport.from_dict({**data, "tests": [{**partial, "nonsense": 1}]})


def test_a_new_gradebook_has_larger_pages_and_an_old_one_keeps_its_own(tmp_path):
    report = _report("ana", 1)
    with Gradebook(tmp_path / "new.sqlite") as book:
        assert book.db.execute("PRAGMA page_size").fetchone() == (PAGE_SIZE,) == (16384,)
    old = sqlite3.connect(tmp_path / "old.sqlite")
    old.execute("PRAGMA page_size = 4096")
    old.execute("CREATE TABLE t (x)")
    old.close()
    with Gradebook(tmp_path / "old.sqlite") as book:
        assert book.db.execute("PRAGMA page_size").fetchone() == (4096,)
        for times in (1, 2, 3):
            row = book.store(assignment=SPEC.name, submission_id="ana", content_hash="h", stage="all",
                             stored=Stored.of(report.to_dict()), feedback="f", wall_time=0.0, cpu_time=0.0,
                             grader_version="v", keep=True)
            assert row.times_graded == times and not book.db.in_transaction   # committed, nothing left open
            other = sqlite3.connect(tmp_path / "old.sqlite")                  # what another reader sees
            assert other.execute("SELECT times_graded FROM grades").fetchall() == [(times,)]
            other.close()
        assert book.rows(SPEC.name) == [row]


def test_the_bench_reads_the_parents_cpu_a_row_in_the_middle_half(tmp_path):
    import json

    from autograder.authoring.bench import batch

    lines = [{"event": "start", "at": 1000.1, "cpu": 0.05}, {"event": "first-row", "at": 1000.9, "cpu": 0.2},
             {"event": "middle", "at": 1001.5, "cpu": 0.25, "stored": 10},
             {"event": "middle", "at": 1003.0, "cpu": 0.31, "stored": 30},
             {"event": "graded", "at": 1004.0, "cpu": 0.5},
             {"event": "worker-exit", "at": 1004.1, "cpu": 0.4, "children": 1.6},
             {"event": "end", "at": 1004.25, "cpu": 0.72, "children": 0.08}]
    trace = tmp_path / "trace.jsonl"
    trace.write_text("".join(json.dumps(line) + "\n" for line in lines))
    got = batch.accounting(trace, 1000.0, wall=4.3, cpu=5.0, n=40, jobs=2)
    assert abs(got["per_row"] - 0.003) < 1e-12 and "forks drawing), 3.00 ms a row in the middle half, workers" in got["text"]
    trace.write_text("".join(json.dumps(line) + "\n" for line in lines if line["event"] != "middle"))
    got = batch.accounting(trace, 1000.0, wall=4.3, cpu=5.0, n=40, jobs=2)
    assert got["per_row"] is None and "middle half" not in got["text"] and "forks drawing), workers" in got["text"]
