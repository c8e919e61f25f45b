"""A static class report (report.html) and one simple feedback page per student, from the gradebook.

Plain HTML and inline SVG: no JavaScript, no server, opens from disk in any browser.
"""

from __future__ import annotations

import collections
import html
import os
import statistics
import time
from pathlib import Path
from typing import Any

from .assignment import Assignment
from .engine.reporters import closing_line, problem_titles
from .engine.reporters import fmt as _fmt
from .engine.results import GradeReport
from .gradebook import Row

FLAG_BELOW = 0.20          # a test passed by fewer than this share of the class gets flagged
FLAG_TEXT = "check this test: unfair or unclear?"

CSS = """
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:2em auto;max-width:1100px;
     padding:0 1em;color:#1d2733;background:#fff}
h1{margin-bottom:.2em} h2{margin-top:1.8em;border-bottom:2px solid #e3e8ef;padding-bottom:.2em}
.sub{color:#5b6b7f} table{border-collapse:collapse;width:100%;margin:.6em 0}
th,td{text-align:left;padding:.3em .6em;border-bottom:1px solid #e3e8ef;vertical-align:top}
th{background:#f4f6f9} td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.cards{display:flex;gap:1em;flex-wrap:wrap} .card{background:#f4f6f9;border-radius:8px;padding:.7em 1.1em}
.card b{display:block;font-size:1.5em}
tr.flagged td{background:#fff4e5} .flag{color:#a34700;font-weight:600;white-space:nowrap}
.barcell{white-space:nowrap} .bar{display:inline-block;height:.8em;background:#3d7bd9;border-radius:2px;vertical-align:middle}
.barbox{display:inline-block;width:120px;background:#e3e8ef;border-radius:2px;margin-right:.5em}
.status-passed{color:#1a7f37} .status-failed,.status-error{color:#b42318} .status-skipped{color:#7a5b00}
pre{background:#f4f6f9;padding:.6em;border-radius:6px;white-space:pre-wrap;overflow-wrap:anywhere}
.error{color:#b42318;font-weight:600} a{color:#1f5fbf}
"""


def fmt(points: float) -> str:
    """Points as people write them: at most two decimals (the suites split points evenly)."""
    return _fmt(round(float(points), 2))


def esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


def page(title: str, body: str) -> str:
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{esc(title)}</title><style>{CSS}</style></head>\n<body>\n{body}\n</body></html>\n")


def _write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


# --- pieces ---------------------------------------------------------------------------------------

def histogram_svg(percents: list[float], bins: int = 10, width: int = 640, height: int = 260) -> str:
    """Score histogram: BINS bars over 0..100 %, the last bin closed (100 % lands in 90-100)."""
    counts = [0] * bins
    for p in percents:
        counts[min(bins - 1, max(0, int(p * bins // 100)))] += 1
    top = max(counts) or 1
    left, bottom, right, head = 40, 40, 10, 20
    plot_w, plot_h = width - left - right, height - bottom - head
    bar_w = plot_w / bins
    parts = [f'<svg id="histogram" class="histogram" xmlns="http://www.w3.org/2000/svg" width="{width}" '
             f'height="{height}" viewBox="0 0 {width} {height}" role="img" '
             f'aria-label="Histogram of scores in percent">',
             f'<title>Scores: {len(percents)} submissions</title>',
             f'<line x1="{left}" y1="{head + plot_h}" x2="{left + plot_w}" y2="{head + plot_h}" stroke="#5b6b7f"/>',
             f'<line x1="{left}" y1="{head}" x2="{left}" y2="{head + plot_h}" stroke="#5b6b7f"/>']
    for i, count in enumerate(counts):
        h = plot_h * count / top
        x = left + i * bar_w
        y = head + plot_h - h
        lo, hi = i * 100 // bins, (i + 1) * 100 // bins
        parts.append(f'<rect class="bin" x="{x + 2:.1f}" y="{y:.1f}" width="{bar_w - 4:.1f}" height="{h:.1f}" '
                     f'fill="#3d7bd9"><title>{lo}-{hi}%: {count}</title></rect>')
        if count:
            parts.append(f'<text x="{x + bar_w / 2:.1f}" y="{y - 4:.1f}" font-size="12" text-anchor="middle">'
                         f'{count}</text>')
        parts.append(f'<text x="{x + bar_w / 2:.1f}" y="{head + plot_h + 16}" font-size="11" '
                     f'text-anchor="middle" fill="#5b6b7f">{lo}-{hi}</text>')
    parts.append(f'<text x="{left + plot_w / 2}" y="{height - 6}" font-size="12" text-anchor="middle" '
                 f'fill="#5b6b7f">score (% of max)</text>')
    parts.append(f'<text x="12" y="{head + plot_h / 2}" font-size="12" text-anchor="middle" fill="#5b6b7f" '
                 f'transform="rotate(-90 12 {head + plot_h / 2})">students</text>')
    parts.append("</svg>")
    return "".join(parts)


def rate_bars_svg(items: list[tuple[str, float]], svg_id: str, width: int = 640) -> str:
    """Horizontal bars, one per (label, share 0..1)."""
    row_h, label_w = 28, 230
    height = row_h * len(items) + 10
    parts = [f'<svg id="{svg_id}" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" role="img">']
    bar_max = width - label_w - 60
    for i, (label, share) in enumerate(items):
        y = 5 + i * row_h
        parts.append(f'<text x="0" y="{y + 17}" font-size="13">{esc(label)}</text>')
        parts.append(f'<rect x="{label_w}" y="{y + 4}" width="{bar_max}" height="18" fill="#e3e8ef"/>')
        parts.append(f'<rect x="{label_w}" y="{y + 4}" width="{bar_max * share:.1f}" height="18" '
                     f'fill="{"#3d7bd9" if share >= FLAG_BELOW else "#d97706"}"/>')
        parts.append(f'<text x="{label_w + bar_max + 8}" y="{y + 17}" font-size="13">{100 * share:.0f}%</text>')
    parts.append("</svg>")
    return "".join(parts)


def _bar(share: float) -> str:
    return (f'<span class="barbox"><span class="bar" style="width:{100 * share:.0f}%"></span></span>'
            f"{100 * share:.0f}%")


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


def stage_rates(rows: list[Row], spec: Assignment) -> list[dict[str, Any]]:
    out = []
    titles = {s.number: s.title for s in spec.stages}
    for stage in sorted({t["stage"] for row in rows for t in row.tests}):
        got = top = passed = n = 0.0
        for row in rows:
            tests = [t for t in row.tests if t["stage"] == stage]
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

def render_report(rows: list[Row], spec: Assignment) -> str:
    percents = [100 * r.score / r.max_score if r.max_score else 0.0 for r in rows]
    scores = [r.score for r in rows]
    max_score = max((r.max_score for r in rows), default=0.0)
    loaded = [r for r in rows if r.status == "graded" and not r.error]
    body = [f"<h1>{esc(spec.title)}: class report</h1>",
            f'<p class="sub">{len(rows)} submissions, generated {esc(time.strftime("%Y-%m-%d %H:%M"))}; '
            f"grader {esc(rows[0].grader_version if rows else '-')}</p>"]
    body.append('<div class="cards">'
                f'<div class="card">submissions<b>{len(rows)}</b></div>'
                f'<div class="card">mean score<b>{fmt(round(statistics.fmean(scores), 1)) if scores else "-"}'
                f" / {fmt(max_score)}</b></div>"
                f'<div class="card">median<b>{fmt(round(statistics.median(scores), 1)) if scores else "-"}</b></div>'
                f'<div class="card">full marks<b>{sum(1 for r in rows if r.max_score and r.score >= r.max_score)}'
                f"</b></div>"
                f'<div class="card">could not be graded<b>{len(rows) - len(loaded)}</b></div></div>')

    body.append('<h2 id="scores">Score distribution</h2>')
    body.append(histogram_svg(percents))

    stages = stage_rates(rows, spec)
    body.append('<h2 id="stages">Stages</h2>')
    if stages:
        body.append(rate_bars_svg([(f"Stage {s['stage']} {s['title']}", s["pass_rate"]) for s in stages],
                                  "stage-rates"))
        body.append('<table class="stages"><tr><th>Stage</th><th class="num">checks</th><th>checks passed</th>'
                    "<th>points earned</th></tr>")
        for s in stages:
            body.append(f"<tr><td>Stage {s['stage']}: {esc(s['title'])}</td><td class=\"num\">{s['tests']:.0f}</td>"
                        f"<td>{_bar(s['pass_rate'])}</td><td>{_bar(s['score_share'])}</td></tr>")
        body.append("</table>")

    rates = check_rates(rows)
    flagged = [r for r in rates if r["flagged"]]
    titles = problem_titles(spec.name)
    body.append('<h2 id="tests">Checks, hardest first</h2>')
    body.append(f'<p class="sub">Pass rates over the {len(loaded)} submissions that loaded. Checks passed by fewer '
                f"than {FLAG_BELOW:.0%} are flagged: {len(flagged)}.</p>")
    body.append('<table class="tests"><tr><th>Check</th><th>Problem</th><th class="num">points</th>'
                "<th>passed</th><th></th></tr>")
    for r in rates:
        flag = f'<span class="flag">{FLAG_TEXT}</span>' if r["flagged"] else ""
        hidden = " <small>(hidden)</small>" if r["visibility"] == "hidden" else ""
        body.append(f'<tr class="{"flagged" if r["flagged"] else "test"}"><td>{esc(r["name"])}{hidden}</td>'
                    f"<td>{r['problem']} {esc(titles.get(r['problem'], ''))}</td>"
                    f"<td class=\"num\">{fmt(r['points'])}</td>"
                    f"<td class=\"barcell\">{_bar(r['rate'])} <small>({r['passed']}/{r['n']})</small></td>"
                    f"<td>{flag}</td></tr>")
    body.append("</table>")

    hints = common_hints(rows)
    body.append('<h2 id="hints">Most common hints</h2>')
    if hints:
        body.append('<table class="hints"><tr><th class="num">students</th><th>hint</th></tr>')
        body += [f'<tr><td class="num">{n}</td><td>{esc(h)}</td></tr>' for h, n in hints]
        body.append("</table>")
    else:
        body.append("<p>No recognised mistakes.</p>")

    wall = _stats([r.wall_time for r in rows])
    cpu = _stats([r.cpu_time for r in rows])
    body.append('<h2 id="timing">Grading time</h2>')
    body.append('<table class="timing"><tr><th>per submission</th><th class="num">mean</th>'
                '<th class="num">median</th><th class="num">90th pct</th><th class="num">max</th></tr>')
    for label, s in (("wall clock (s)", wall), ("CPU (s)", cpu)):
        body.append(f"<tr><td>{label}</td>" + "".join(f'<td class="num">{s[k]:.2f}</td>'
                                                       for k in ("mean", "median", "p90", "max")) + "</tr>")
    for stage, values in stage_times(rows).items():
        s = _stats(values)
        body.append(f"<tr><td>stage {stage} checks (s)</td>"
                    + "".join(f'<td class="num">{s[k]:.2f}</td>' for k in ("mean", "median", "p90", "max"))
                    + "</tr>")
    body.append(f"</table><p class=\"sub\">Total grading work: {sum(r.wall_time for r in rows):.1f} s wall, "
                f"{sum(r.cpu_time for r in rows):.1f} s CPU.</p>")

    from .coach.leaderboard import leaderboard_html  # empty unless stage 5 was graded

    body.append(leaderboard_html(rows))
    body.append('<h2 id="students">Students</h2>')
    body.append('<table class="students"><tr><th>id</th><th class="num">score</th><th class="num">%</th>'
                '<th class="num">checks passed</th><th>note</th><th class="num">time (s)</th></tr>')
    for row, pct in zip(rows, percents):
        sid = esc(row.submission_id)
        note = esc(row.error.splitlines()[0][:120]) if row.error else ""
        body.append(f'<tr><td><a class="student" href="feedback/{sid}.html">{sid}</a></td>'
                    f'<td class="num">{fmt(row.score)} / {fmt(row.max_score)}</td><td class="num">{pct:.0f}</td>'
                    f'<td class="num">{sum(t["status"] == "passed" for t in row.tests)}/{len(row.tests)}</td>'
                    f'<td class="{"error" if row.error else ""}">{note}</td>'
                    f'<td class="num">{row.wall_time:.2f}</td></tr>')
    body.append("</table>")
    body.append('<p class="sub">Also here: <a href="grades.csv">grades.csv</a>, '
                '<a href="grades.json">grades.json</a>, gradebook.sqlite.</p>')
    return page(f"{spec.title}: class report", "\n".join(body))


def write_report(rows: list[Row], spec: Assignment, out: Path) -> Path:
    path = Path(out) / "report.html"
    _write(path, render_report(rows, spec))
    return path


# --- a student's feedback page --------------------------------------------------------------------

def render_feedback(row: Row, report: GradeReport, strategy_plot: str = "") -> str:
    titles = problem_titles(report.assignment)
    score_line = f"Score: {fmt(report.score)} / {fmt(report.max_score)}"
    body = ["<p><a href=\"../report.html\">&larr; class report</a></p>",
            f"<h1>Feedback: {esc(row.submission_id)}</h1>",
            f"<p><b>{esc(closing_line(report)) if report.public_only else score_line}</b></p>"]
    if report.error:
        body.append(f'<p class="error">{esc(report.error)}</p>')
    if report.notes:
        body.append("<ul>" + "".join(f"<li>{esc(n)}</li>" for n in report.notes) + "</ul>")
    for stage, (got, top) in report.stage_scores().items():
        body.append(f"<h2>Stage {stage} <small>{fmt(got)} / {fmt(top)}</small></h2>")
        body.append('<table><tr><th>Problem</th><th>Check</th><th>Result</th><th class="num">points</th></tr>')
        for t in (t for t in report.tests if t.stage == stage):
            body.append(f"<tr><td>{t.problem} {esc(titles.get(t.problem, ''))}</td><td>{esc(t.name)}"
                        + (f"<pre>{esc(t.output)}</pre>" if t.output and t.status != "passed" else "")
                        + f'</td><td class="status-{esc(t.status)}">{esc(t.status)}</td>'
                        f'<td class="num">{fmt(t.score)} / {fmt(t.max_score)}</td></tr>')
        body.append("</table>")
    if strategy_plot:
        body.append(f'<h2>Your strategy against optimal play</h2><p><img alt="score distribution" '
                    f'src="{esc(strategy_plot)}" width="800"></p>')
    body.append(f'<p class="sub">Graded {esc(row.graded_at)}; also as <a href="{esc(row.submission_id)}.md">'
                f'Markdown</a> and <a href="{esc(row.submission_id)}.txt">text</a>.</p>')
    return page(f"Feedback: {row.submission_id}", "\n".join(body))


def write_feedback_page(row: Row, report: GradeReport, path: Path) -> None:
    from .coach.leaderboard import feedback_plot

    plot = feedback_plot(row.tests, Path(path).with_name(f"{row.submission_id}-strategy.png"))
    _write(path, render_feedback(row, report, plot.name if plot else ""))
