"""A static class report (report.html) and one simple feedback page per student, from the gradebook.

Jinja2 templates (autoescape: everything a student's program produced is escaped) in
autograder/grading/templates/, charts drawn by matplotlib as inline SVG (charts.py).  Static
pages: nothing loaded from outside, readable without script (an optional inline script only makes
the tables sortable), opens from disk in any browser.
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import marshal
import re
import statistics
import time
import types
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..assignment import Assignment
from ..engine.escape import plain
from ..engine.reporters import Check, check_groups, closing_line, problem_titles
from ..engine.reporters import fmt as _fmt
from ..engine.results import GradeReport
from .files import write_atomic as _write
from .gradebook import Row
from .names import file_stems

if TYPE_CHECKING:
    from .charts import Chart, Drawer

try:
    from markupsafe import Markup
except ImportError:  # pragma: no cover - markupsafe comes with Jinja2 (the "report" extra)
    Markup = str

FLAG_BELOW = 0.20          # a test passed by fewer than this share of the class gets flagged
FLAG_TEXT = "check this test: unfair or unclear?"

TEMPLATES = Path(__file__).resolve().parent / "templates"


@functools.lru_cache(maxsize=4096, typed=True)
def fmt(points: float) -> str:
    """Points as people write them: at most two decimals (the suites split points evenly).
    Cached: a feedback page formats the same few values ~450 times (a pure function of the value)."""
    return _fmt(round(float(points), 2))


@functools.lru_cache(maxsize=1)
def _env():
    """One Environment per process: its templates are compiled once, not once per feedback page
    (a class of 39 compiled them 80 times: ~40% of writing the exports), and their compiled code
    is kept in the kit's cache folder (_TemplateCache: ~15 ms of every grade-all)."""
    import jinja2

    class _TemplateCache(jinja2.BytecodeCache):
        """The templates' compiled code, kept as engine.codecache keeps the harness's: under a key
        naming everything the code is made from (the template's name, file and text, this
        Environment's options, Jinja2's and Python's versions), read back only from a file of
        ours that nobody else may write, and the code only (marshal, no pickle).  Any miss, or
        no cache folder: compiled as before.  Only the kit's own templates are ever cached."""

        def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
            data = _codecache().stored("jinja", _template_key(bucket), lambda: (None, False), _is_code)
            if data is not None:
                bucket.code = marshal.loads(data)

        def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
            data = marshal.dumps(bucket.code)
            _codecache().stored("jinja", _template_key(bucket), lambda: (data, True), _is_code)

    return jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)), autoescape=True,
                              undefined=jinja2.StrictUndefined, trim_blocks=False, lstrip_blocks=False,
                              bytecode_cache=_TemplateCache(), finalize=_shown)


def _shown(value: Any) -> Any:
    """Every value a page shows (the Environment's finalize, before autoescape): text as escape.plain
    shows it to every reader (no bidi control reorders a score, no tag character spells hidden text, no
    combining tower covers the lines around it); markup the kit made, and numbers, as they are."""
    return plain(value) if type(value) is str else value      # (Markup is a subclass: kept)


def _codecache():
    from ..engine import codecache

    return codecache


def _template_key(bucket: Any) -> str:
    """What a template's compiled code is made from (_env's _TemplateCache): its name and file
    (bucket.key), its text (bucket.checksum), the Environment's options that the compiler reads,
    Jinja2's version and this interpreter's."""
    import importlib.util
    import sys

    import jinja2

    env = bucket.environment
    options = [getattr(env, name) for name in (
        "block_start_string", "block_end_string", "variable_start_string", "variable_end_string",
        "comment_start_string", "comment_end_string", "line_statement_prefix", "line_comment_prefix",
        "trim_blocks", "lstrip_blocks", "newline_sequence", "keep_trailing_newline", "optimized",
        "autoescape", "is_async")]
    finalize = getattr(env.finalize, "__qualname__", None)     # (compiled into the code when set)
    return repr((bucket.key, bucket.checksum, options, finalize, sorted(env.extensions), jinja2.__version__, sys.version,
                 importlib.util.MAGIC_NUMBER))


def _is_code(data: bytes) -> bool:
    try:
        return isinstance(marshal.loads(data), types.CodeType)
    except (ValueError, EOFError, TypeError):
        return False


def compile_templates() -> None:
    """Compile the report's and the feedback page's templates now (grade-all: while its workers grade)."""
    for name in ("feedback.html.j2", "problem.html.j2", "report.html.j2"):
        _env().get_template(name)


_SUFFIX = re.compile(r"(?<=[A-Za-z])\d+$")


@functools.lru_cache(maxsize=8192, typed=True)
def clean_name(name: str, problem: int) -> str:
    """A check's name as a person reads it: no "P3 " prefix (the page groups by problem) and no
    pytest duplicate-id counter ("five sixes0" -> "five sixes").  Cached: every page of a class
    cleans the same ~200 names."""
    if name.startswith(f"P{problem} "):
        name = name[len(f"P{problem} "):]
    return _SUFFIX.sub("", name)


def _unique(names: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name} ({seen[name]})")
    return out


def histogram_counts(percents: list[float], bins: int = 10) -> list[int]:
    counts = [0] * bins
    for p in percents:
        counts[min(bins - 1, max(0, int(p * bins // 100)))] += 1
    return counts


def sandbox_flags(row: Row) -> list[str]:
    """What the sandbox refused this submission (recorded with its grade)."""
    return [str(f) for f in row.report.get("flags", []) or []]


# A flag's kind, in the grader's words, by how the harness's flag begins (harness/audit.py, outcomes.py).
_FLAG_KINDS = (("opened the file", "opened files outside its folder"), ("listed the folder", "listed folders"),
               ("ran the shell command", "ran shell commands"), ("started the program", "started other programs"),
               ("started a new process", "started new processes"), ("used the network", "used the network"),
               ("sent signal", "sent signals to processes"), ("loaded the C library", "loaded C libraries"),
               ("changed files", "changed or removed files"),
               ("wrote forged grader-protocol lines", "wrote forged grader-protocol lines"))


def student_flags(row: Row) -> list[str]:
    """The flags as the student's own page shows them: each kind once, in the grader's words.

    A flag names what the program chose (a path, a command) during every request of its lives, the
    hidden ones too, so its text could carry a hidden check's input to the student ("Public first",
    docs/threat-model.md); the instructor's pages, CSV and gradebook keep it whole (sandbox_flags)."""
    kinds: dict[str, int] = {}
    for flag in sandbox_flags(row):
        kind = next((words for start, words in _FLAG_KINDS if flag.startswith(start)),
                    "tried something else the assignment never needs")
        kinds[kind] = kinds.get(kind, 0) + 1
    return [kind if n == 1 else f"{kind} ({n} flags)" for kind, n in kinds.items()]


def _stats(values: list[float]) -> dict[str, float]:
    if not values:
        return {"mean": 0.0, "median": 0.0, "p90": 0.0, "max": 0.0}
    ordered = sorted(values)
    p90 = ordered[min(len(ordered) - 1, int(round(0.9 * (len(ordered) - 1))))]
    return {"mean": statistics.fmean(values), "median": statistics.median(values), "p90": p90,
            "max": ordered[-1]}


def check_rates(rows: list[Row]) -> list[dict[str, Any]]:
    """Per test: how many of the submissions that loaded passed it (a broken file says nothing of a test)."""
    table: dict[str, dict[str, Any]] = {}
    for row in rows:
        if row.status != "graded" or row.error:
            continue
        for t in row.tests:
            key = t.get("test_id") or t["name"]
            entry = table.setdefault(key, {"name": t["name"], "problem": t["problem"], "stage": t["stage"],
                                           "visibility": t.get("visibility", "visible"), "passed": 0, "n": 0,
                                           "points": t["max_score"]})
            entry["n"] += 1
            entry["passed"] += t["status"] == "passed"
    out = list(table.values())
    for entry in out:
        entry["rate"] = entry["passed"] / entry["n"] if entry["n"] else 0.0
        entry["flagged"] = entry["n"] > 0 and entry["rate"] < FLAG_BELOW
    return sorted(out, key=lambda e: (e["rate"], e["stage"], e["problem"], e["name"]))


def grouped(rows: list[Row], key: str) -> list[dict[Any, list[dict[str, Any]]]]:
    """Each row's tests by KEY ("stage", "problem"), each group in the row's order (so a sum over
    a group adds the same numbers in the same order as over the row's tests filtered)."""
    out = []
    for row in rows:
        groups: dict[Any, list[dict[str, Any]]] = {}
        for t in row.tests:
            groups.setdefault(t[key], []).append(t)
        out.append(groups)
    return out


def stage_rates(rows: list[Row], spec: Assignment,
                by_stage: list[dict[Any, list[dict[str, Any]]]] | None = None) -> list[dict[str, Any]]:
    """Per stage: share of the points, share of the checks passed.  BY_STAGE: grouped(ROWS, "stage")."""
    out = []
    titles = {s.number: s.title for s in spec.stages}
    by_stage = by_stage if by_stage is not None else grouped(rows, "stage")
    for stage in sorted({t["stage"] for row in rows for t in row.tests}):
        got = top = passed = n = 0.0
        for groups in by_stage:
            tests = groups.get(stage, [])
            got += sum(t["score"] for t in tests)
            top += sum(t["max_score"] for t in tests)
            passed += sum(t["status"] == "passed" for t in tests)
            n += len(tests)
        out.append({"stage": stage, "title": titles.get(stage, ""), "score_share": got / top if top else 0.0,
                    "pass_rate": passed / n if n else 0.0, "tests": n})
    return out


def common_hints(rows: list[Row], limit: int = 10) -> list[tuple[str, int]]:
    """Hints by how many students got them (a hint counts once per student)."""
    counter: collections.Counter[str] = collections.Counter()
    for row in rows:
        counter.update({t["hint"] for t in row.tests if t.get("hint")})
    return counter.most_common(limit)


def stage_times(rows: list[Row]) -> dict[int, list[float]]:
    """Per stage, each submission's summed check time (seconds)."""
    out: dict[int, list[float]] = collections.defaultdict(list)
    for row in rows:
        per: dict[int, float] = collections.defaultdict(float)
        for t in row.tests:
            per[t["stage"]] += float(t.get("elapsed", 0.0))
        for stage, seconds in per.items():
            out[stage].append(seconds)
    return dict(sorted(out.items()))


# --- the class report -----------------------------------------------------------------------------

def problem_rates(rows: list[Row], spec: Assignment, rates: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per problem: points, mean earned, share of loaded students with full marks, check pass rate, checks."""
    loaded = grouped([r for r in rows if r.status == "graded" and not r.error], "problem")
    out = []
    for problem in sorted(spec.problems, key=lambda p: (p.stage, p.number)):
        earned, full = [], 0
        for groups in loaded:
            tests = groups.get(problem.number, [])
            if not tests:
                continue
            got = sum(t["score"] for t in tests)
            top = sum(t["max_score"] for t in tests)
            earned.append(got)
            full += got >= top - 1e-9
        checks = [r for r in rates if r["problem"] == problem.number]
        if not checks:
            continue
        passed = sum(r["passed"] for r in checks)
        n = sum(r["n"] for r in checks)
        labels = _unique([clean_name(r["name"], problem.number) for r in checks])
        ordered = sorted(zip(labels, checks), key=lambda item: item[1]["rate"])
        out.append({"number": problem.number, "title": problem.title, "stage": problem.stage,
                    "points": fmt(problem.points), "mean": fmt(statistics.fmean(earned)) if earned else "-",
                    "full": full, "full_rate": full / len(earned) if earned else 0.0,
                    "pass_rate": passed / n if n else 0.0,
                    "checks": [dict(r, label=label, points=fmt(r["points"])) for label, r in ordered]})
    return out


def hint_students(rows: list[Row]) -> list[dict[str, Any]]:
    """Each hint with the students who got it, most common first."""
    table: dict[str, list[str]] = collections.defaultdict(list)
    for row in rows:
        for hint in sorted({t["hint"] for t in row.tests if t.get("hint")}):
            table[hint].append(row.submission_id)
    return [{"hint": h, "students": ids} for h, ids in sorted(table.items(), key=lambda i: (-len(i[1]), i[0]))]


@dataclasses.dataclass
class Figures:
    """The class report's numbers that its tables and its charts share (class_figures)."""

    percents: list[float]
    rates: list[dict[str, Any]]
    stages: list[dict[str, Any]]
    problems: list[dict[str, Any]]
    charts: dict[str, Chart]            # the report's key -> (function, args, kwargs) that draws it


def class_figures(rows: list[Row], spec: Assignment) -> Figures:
    """ROWS' figures, and the charts to draw from them: made before the other exports, so a drawer
    (charts.Drawer) draws while those are written."""
    from . import charts

    percents = [100 * r.score / r.max_score if r.max_score else 0.0 for r in rows]
    rates = check_rates(rows)
    titles = problem_titles(spec.name)
    for r in rates:
        r["label"] = clean_name(r["name"], r["problem"])
        r["problem_title"] = titles.get(r["problem"], "")
    by_stage = grouped(rows, "stage")
    stages = stage_rates(rows, spec, by_stage)
    for s in stages:
        got = [sum(t["score"] for t in groups.get(s["stage"], [])) for groups in by_stage]
        top = max((sum(t["max_score"] for t in groups.get(s["stage"], [])) for groups in by_stage), default=0.0)
        s["mean"], s["max"] = (fmt(statistics.fmean(got)) if got else "-"), fmt(top)
        s["tests"] = int(s["tests"])
    problems = problem_rates(rows, spec, rates)
    stage_bars = [(f"Stage {s['stage']} {s['title']}", s["pass_rate"]) for s in stages]
    problem_bars = [(f"P{p['number']} {p['title']}", p["full_rate"]) for p in problems]
    wanted: dict[str, Chart] = {"histogram": (charts.histogram, (percents,), {})}
    if stages:
        wanted["stage_chart"] = (charts.rate_bars, (stage_bars, "stage-rates", "Checks passed, per stage",
                                                    FLAG_BELOW), {})
    if problems:
        wanted["problem_chart"] = (charts.rate_bars, (problem_bars, "problem-rates",
                                                      "Students with full marks, per problem"),
                                   {"axis": "% of students with full marks"})
    return Figures(percents, rates, stages, problems, wanted)


def render_report(rows: list[Row], spec: Assignment, extra_sections: list[dict[str, Any]] | None = None,
                  lms_files: list[str] | None = None, late: dict[str, dict[str, Any]] | None = None,
                  drawer: Drawer | None = None, figures: Figures | None = None,
                  missing: list[dict[str, Any]] | None = None) -> str:
    """The class report.  EXTRA_SECTIONS: [{"id", "title", "html"}] appended after the per-check
    detail (html is trusted markup the caller built with escaping, e.g. a jinja2 Markup).
    DRAWER: the process that draws the charts (charts.Drawer: grade-all's), if any; FIGURES:
    class_figures(ROWS, SPEC), when the caller has them already.  MISSING: the summaries (export.summarize)
    of the gradebook's rows the last run did not find, listed apart (ROWS: the others)."""
    from ..coach.leaderboard import leaderboard_html  # empty unless stage 5 was graded
    from . import charts

    figures = figures or class_figures(rows, spec)
    percents, rates, stages, problems = figures.percents, figures.rates, figures.stages, figures.problems
    scores = [r.score for r in rows]
    max_score = max((r.max_score for r in rows), default=0.0)
    loaded = [r for r in rows if r.status == "graded" and not r.error]
    sections = list(extra_sections or [])
    students = []
    missing = missing or []
    files = file_stems([*(row.submission_id for row in rows), *(s["id"] for s in missing)])   # feedback/<stem>.html:
    #                                                                                          unique on any disk
    board = leaderboard_html(rows, files=files)
    if board:                                    # it brings its own heading
        sections.insert(0, {"id": "leaderboard", "nav": "strategy contest", "title": "", "html": board})
    for row, pct in zip(rows, percents):
        students.append({"id": row.submission_id, "file": files[row.submission_id], "score": row.score,
                         "score_text": f"{fmt(row.score)} / {fmt(row.max_score)}", "percent": f"{pct:.0f}",
                         "passed": sum(t["status"] == "passed" for t in row.tests), "tests": len(row.tests),
                         "note": row.error.splitlines()[0][:120] if row.error else "",
                         "flags": sandbox_flags(row), "late": _late_cell((late or {}).get(row.submission_id)),
                         "time": f"{row.wall_time:.2f}"})
    timing = [("wall clock (s)", _stats([r.wall_time for r in rows])), ("CPU (s)", _stats([r.cpu_time for r in rows]))]
    timing += [(f"stage {stage} checks (s)", _stats(values)) for stage, values in stage_times(rows).items()]
    drawn = dict(zip(figures.charts, charts.draw(list(figures.charts.values()), drawer)))    # (by other processes)
    context = {
        "title": f"{spec.title}: class report", "spec": spec, "rows": rows,
        "generated": time.strftime("%Y-%m-%d %H:%M"), "grader_version": rows[0].grader_version if rows else "-",
        "mean": fmt(round(statistics.fmean(scores), 1)) if scores else "-", "max_score": fmt(max_score),
        "median": fmt(round(statistics.median(scores), 1)) if scores else "-",
        "full_marks": sum(1 for r in rows if r.max_score and r.score >= r.max_score),
        "not_loaded": len(rows) - len(loaded), "loaded": len(loaded),
        **{key: Markup(drawn[key]) if key in drawn else "" for key in ("histogram", "stage_chart", "problem_chart")},
        "stages": stages, "problems": problems, "flagged": [r for r in rates if r["flagged"]],
        "flag_percent": f"{FLAG_BELOW:.0%}", "flag_text": FLAG_TEXT,
        "refused": [s for s in students if s["flags"]], "late_count": sum(1 for s in students if s["late"]),
        "hints": hint_students(rows), "files": files, "students": students, "timing": timing,
        "total_wall": f"{sum(r.wall_time for r in rows):.1f}", "total_cpu": f"{sum(r.cpu_time for r in rows):.1f}",
        "extra_sections": [dict(s, html=Markup(s["html"])) for s in sections],
        "lms_files": lms_files or [],
        "missing": [{"id": s["id"], "file": files[s["id"]], "score_text": f"{fmt(s['total'])} / {fmt(s['max'])}",
                     "graded_at": s["graded_at"]} for s in missing],
    }
    return _env().get_template("report.html.j2").render(**context)


def _late_cell(summary: dict[str, Any] | None) -> str:
    if not summary or not summary.get("late"):
        return ""
    return f"late {summary['late_by']}" + (f", -{fmt(summary['penalty'])}" if summary.get("penalty") else "")


def write_report(rows: list[Row], spec: Assignment, out: Path, extra_sections: list[dict[str, Any]] | None = None,
                 lms_files: list[str] | None = None, late: dict[str, dict[str, Any]] | None = None,
                 drawer: Drawer | None = None, figures: Figures | None = None,
                 missing: list[dict[str, Any]] | None = None) -> Path:
    path = Path(out) / "report.html"
    _write(path, render_report(rows, spec, extra_sections, lms_files, late, drawer, figures, missing))
    return path


# --- a student's feedback page --------------------------------------------------------------------

def render_feedback(row: Row, report: GradeReport, late: str = "", strategy_plot: str = "",
                    groups: dict[int, dict[int, tuple[Check, ...]]] | None = None) -> str:
    """One student's page: per stage, per problem (failing checks in full, passing ones folded away).
    It links nowhere, so it still works when handed to the student on its own.  GROUPS:
    reporters.check_groups(REPORT), when the caller has it already."""
    from ..assignment import load_assignment

    try:
        spec = load_assignment(report.assignment)
        stage_titles = {s.number: s.title for s in spec.stages}
    except KeyError:
        stage_titles = {}
    titles = problem_titles(report.assignment)
    groups = check_groups(report) if groups is None else groups
    stages = []
    for stage, (got, top) in report.stage_scores().items():
        problems = groups[stage]
        stages.append({"number": stage, "title": stage_titles.get(stage, ""), "points": f"{fmt(got)} / {fmt(top)}",
                       "problems": [problem_block(problem, titles.get(problem, ""), problems[problem])
                                    for problem in sorted(problems)]})
    headline = closing_line(report) if report.public_only else f"Score: {fmt(report.score)} / {fmt(report.max_score)}"
    context = {"title": f"Feedback: {row.submission_id}", "student": row.submission_id, "headline": headline,
               "error": report.error, "notes": report.notes, "flags": student_flags(row), "late": late,
               "stages": stages, "graded_at": row.graded_at, "strategy_plot": strategy_plot}
    return _env().get_template("feedback.html.j2").render(**context)


@functools.lru_cache(maxsize=1024)
def problem_block(number: int, title: str, checks: tuple[Check, ...]) -> Markup:
    """A problem's block of a feedback page (problem.html.j2: failing checks in full, passing ones
    folded away), made from nothing but its arguments: made once per distinct problem and kept
    (a class's pages repeat most of theirs: 92 distinct of 780 in the honest 39)."""
    names = _unique([clean_name(check[0], number) for check in checks])
    shown = [{"name": name, "status": status, "output": output,    # a passed check's output: its note
              "points": f"{fmt(score)} / {fmt(top)}"} for name, (_, status, output, score, top) in zip(names, checks)]
    failing = [c for c in shown if c["status"] != "passed"]
    problem = {"number": number, "title": title, "checks": shown, "failing": failing,
               "passing": [c for c in shown if c["status"] == "passed"], "passed": len(shown) - len(failing),
               "all_passed": not failing,
               "points": f"{fmt(sum(c[3] for c in checks))} / {fmt(sum(c[4] for c in checks))}"}
    return _env().get_template("problem.html.j2").module.problem(problem)


def write_feedback_page(row: Row, report: GradeReport, path: Path, late: str = "",
                        groups: dict[int, dict[int, tuple[Check, ...]]] | None = None) -> None:
    """The page, and stage 5's plot next to it; the page carries the plot inline (a data: URI), so
    it still shows when the page alone is handed to the student.  GROUPS: as render_feedback's."""
    import base64

    from ..coach.leaderboard import feedback_plot

    plot = feedback_plot(row.tests, Path(path).with_name(f"{Path(path).stem}-strategy.png"))    # (the page's stem)
    inline = "data:image/png;base64," + base64.b64encode(plot.read_bytes()).decode("ascii") if plot else ""
    _write(path, render_feedback(row, report, late, inline, groups))
