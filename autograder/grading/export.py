"""Exports of a gradebook: grades.csv (one row per student, LMS-friendly), grades.json, feedback/ files.

Everything is rewritten from the gradebook after each batch, so the files always match it (a
student's feedback files are written as the grade is stored, FeedbackWriter; the batch's end
leaves those alone).
"""

from __future__ import annotations

import csv
import json
import queue
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..assignment import Assignment
from ..engine import reporters
from ..engine.escape import csv_cell, plain
from ..engine.results import GradeReport
from . import lms
from .files import write_atomic as _write
from .gradebook import Gradebook, Row
from .names import file_stems

if TYPE_CHECKING:
    from .charts import Drawer


def _num(value: float) -> float | int:
    value = round(float(value), 2)
    return int(value) if value == int(value) else value


def summarize(row: Row, spec: Assignment, policy: lms.LatePolicy | None = None,
              report: GradeReport | None = None, stem: str | None = None) -> dict[str, Any]:
    """One student's grade as plain data: totals, per stage, per problem, late work, sandbox flags.
    REPORT: row.grade_report() when the caller has it already; STEM: its files' (names.file_stems)."""
    report = report or row.grade_report()
    stages = report.stage_scores()
    problems = report.problem_scores()
    info = dict(report.submission_info)
    late = (policy or lms.LatePolicy()).assess(row.submission_id, info, row.score)
    return {
        "id": row.submission_id,
        "total": _num(row.score),
        "max": _num(row.max_score),
        "percent": round(100 * row.score / row.max_score, 1) if row.max_score else 0.0,
        "status": row.status if not row.error or row.status != "graded" else "error",
        "error": row.error,
        "stages": {str(s.number): [_num(stages[s.number][0]), _num(stages[s.number][1])]
                   for s in spec.stages if s.number in stages},
        "problems": {str(p.number): [_num(problems[p.number][0]), _num(problems[p.number][1])]
                     for p in spec.problems if p.number in problems},
        "tests_passed": sum(t["status"] == "passed" for t in row.tests),
        "tests": len(row.tests),
        "hints": sorted({t["hint"] for t in row.tests if t.get("hint")}),
        "wall_time": row.wall_time,
        "cpu_time": row.cpu_time,
        "content_hash": row.content_hash,
        "stage": row.stage,
        "grader_version": row.grader_version,
        "graded_at": row.graded_at,
        "feedback": f"feedback/{stem or row.submission_id}.md",
        "submitted_at": info.get("submitted_at", ""),
        "lms": info.get("lms", ""), "lms_id": info.get("lms_id", ""), "lms_name": info.get("lms_name", ""),
        "due": late["due"], "extension": late["extension"], "late": late["late"], "late_by": late["late_by"],
        "days_late": late["days_late"], "penalty": _num(late["penalty"]),
        "final": _num(max(0.0, row.score - late["penalty"])),
        "sandbox_flags": list(report.flags),
    }


def csv_header(spec: Assignment) -> list[str]:
    return (["id", "total", "max", "percent"] + [f"stage{s.number}" for s in spec.stages]
            + [f"p{p.number}" for p in spec.problems] + ["status", "graded_at"]
            + ["lms_id", "submitted_at", "due", "late", "late_by", "penalty", "final", "sandbox_flags"])


def csv_row(summary: dict[str, Any], spec: Assignment) -> list[Any]:
    """Stages and problems not graded (no suite yet, or another --stage) are left empty."""
    stages = [summary["stages"].get(str(s.number), [""])[0] for s in spec.stages]
    problems = [summary["problems"].get(str(p.number), [""])[0] for p in spec.problems]
    row = ([summary["id"], summary["total"], summary["max"], summary["percent"]] + stages + problems
           + [summary["status"], summary["graded_at"]]
           + [summary["lms_id"], summary["submitted_at"], summary["due"], "yes" if summary["late"] else "",
              summary["late_by"], summary["penalty"], summary["final"], "; ".join(summary["sandbox_flags"])])
    return [csv_cell(cell) for cell in row]        # an id like "=HYPERLINK(...)" stays text


def _late_text(summary: dict[str, Any]) -> str:
    if not summary["late"]:
        return ""
    text = f"late {summary['late_by']}".strip()
    if summary["penalty"]:
        text += f" (-{summary['penalty']} points: {summary['final']} counted)"
    return text


def write_feedback_files(row: Row, summary: dict[str, Any], feedback: Path,
                         report: GradeReport | None = None, stem: str | None = None) -> set[str]:
    """ROW's feedback/<stem>.{md,txt,html} (SUMMARY: summarize(row, ...); REPORT: row.grade_report(),
    when the caller has it; STEM: names.file_stems', default the id); the names it may write."""
    from .report import write_feedback_page

    report = report or row.grade_report()
    report.submission = row.submission_id
    groups = reporters.check_groups(report)        # (the page's and the Markdown's problems: kept, made once each)
    stem = stem or row.submission_id
    _write(feedback / f"{stem}.md", reporters.to_markdown(report, groups))
    _write(feedback / f"{stem}.txt", plain(row.feedback) + "\n")
    write_feedback_page(row, report, feedback / f"{stem}.html", late=_late_text(summary), groups=groups)
    return feedback_names(stem)


def feedback_names(stem: str) -> set[str]:
    """The files of feedback/ that belong to a student whose files' STEM it is (names.file_stems;
    stage 5's plot: report.write_feedback_page)."""
    return {f"{stem}.{ext}" for ext in ("md", "txt", "html")} | {f"{stem}-strategy.png"}


class FeedbackWriter:
    """grade-all writes each student's feedback files the moment the grade is stored (the parent
    is idle while the workers grade), from the row it stored (never read back); write_exports then
    reuses those rows and their summaries and leaves their files alone.

    BACKGROUND: write() only queues the row and a thread writes the files, so the parent's loop
    hands the workers their next submissions at once, however long a page takes (a stage-5 page
    draws a plot: ~0.6 s the first time); finish() waits for the queue and raises what failed."""

    def __init__(self, book: Gradebook, spec: Assignment, out: Path, background: bool = False,
                 ids: Iterable[str] = ()):
        """IDS: the run's students (with the gradebook's, the ids whose files' names must not clash)."""
        self.book, self.spec = book, spec
        self.stems = file_stems([*book.ids(spec.name), *ids])
        self.feedback = Path(out) / "feedback"
        self.feedback.mkdir(parents=True, exist_ok=True)
        self.policy = lms.LatePolicy.from_json(book.get_meta(f"late_policy:{spec.name}"))
        self.rows: dict[str, Row] = {}              # submission id -> the row whose files were written
        self.queued: dict[str, Row] = {}            # ... -> the row last given to write()
        self.summaries: dict[str, dict[str, Any]] = {}
        self._queue: queue.SimpleQueue | None = None
        self._error: BaseException | None = None
        if background:
            self._queue = queue.SimpleQueue()
            self._thread = threading.Thread(target=self._drain, name="grade-all-feedback", daemon=True)
            self._thread.start()

    def write(self, row: Row) -> None:
        self.queued[row.submission_id] = row
        if self._queue is not None:
            self._queue.put(row)
        else:
            self._write(row)

    def _write(self, row: Row) -> None:
        report = row.grade_report()
        stem = self.stems.get(row.submission_id, row.submission_id)
        summary = summarize(row, self.spec, self.policy, report, stem)
        write_feedback_files(row, summary, self.feedback, report, stem)
        self.rows[row.submission_id], self.summaries[row.submission_id] = row, summary

    def _drain(self) -> None:
        while (row := self._queue.get()) is not None:
            if self._error is None:             # after a failure the rest are left to write_exports
                try:
                    self._write(row)
                except BaseException as err:  # noqa: BLE001 - raised again by finish()
                    self._error = err

    def stop(self) -> None:
        """Wait until every queued row's files are written (the thread ends; nothing raised)."""
        if self._queue is not None:
            self._queue.put(None)
            self._thread.join()
            self._queue = None

    def finish(self) -> None:
        """stop(), then raise what writing the files raised."""
        self.stop()
        if self._error is not None:
            error, self._error = self._error, None
            raise error


def write_exports(book: Gradebook, spec: Assignment, out: Path, written: FeedbackWriter | None = None,
                  drawer: Drawer | None = None) -> list[Path]:
    """Write grades.csv, grades.json, feedback/<id>.{md,txt,html} and report.html; return the main paths.
    WRITTEN: the feedback files of these rows are already up to date (same grade, same late policy).
    DRAWER: the process that draws the report's charts (charts.Drawer), if any."""
    from .report import class_figures, write_report

    found = book.found(spec.name)       # (None: every row; else a row whose id the last run did not find
    #                                      is listed as missing, apart from the class's figures and LMS files)

    def current(rows: list[Row]) -> list[Row]:
        return rows if found is None else [row for row in rows if row.submission_id in found]

    early = None            # the charts' rows and figures, sent to DRAWER before the last pages are written
    if drawer is not None and written is not None:
        known = current(book.rows_reusing(spec.name, written.queued))
        early = (known, class_figures(known, spec))
        drawer.send(list(early[1].charts.values()))     # drawn while we write the rest
    if written is not None:
        written.finish()
    out = Path(out)
    policy = lms.LatePolicy.from_json(book.get_meta(f"late_policy:{spec.name}"))
    fresh = written.rows if written is not None and written.policy == policy else {}
    rows = book.rows_reusing(spec.name, fresh) if fresh else book.rows(spec.name)
    stems = file_stems(row.submission_id for row in rows)
    if fresh:               # (a row whose files' name the class now gives otherwise is written again)
        fresh = {sid: row for sid, row in fresh.items() if written.stems.get(sid, sid) == stems.get(sid)}
    summaries = [written.summaries[row.submission_id] if fresh.get(row.submission_id) is row
                 else summarize(row, spec, policy, stem=stems[row.submission_id]) for row in rows]
    shown = current(rows)
    if len(shown) < len(rows):
        summaries = [dict(summary, status="missing") if summary["id"] not in found else summary
                     for summary in summaries]
    now = [summary for summary in summaries if summary["status"] != "missing"]
    feedback = out / "feedback"
    feedback.mkdir(parents=True, exist_ok=True)
    if early is not None and len(early[0]) == len(shown) and all(a is b for a, b in zip(early[0], shown)):
        figures = early[1]
    else:                   # (other rows: other figures; a drawer sent other charts gives way: charts.draw)
        figures = class_figures(shown, spec)
        if drawer is not None:
            drawer.send(list(figures.charts.values()))

    import io

    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(csv_header(spec))
    for summary in summaries:
        writer.writerow(csv_row(summary, spec))
    _write(out / "grades.csv", buffer.getvalue())

    top = _num(max((r.max_score for r in rows), default=spec.total_points))
    _write(out / "canvas_grades.csv", lms.canvas_csv(now, spec.title, top))      # (to import: this run's only)
    _write(out / "moodle_grades.csv", lms.moodle_csv(now, top))

    _write(out / "grades.json", json.dumps({
        "assignment": spec.name,
        "max_points_in_table": _num(spec.total_points),
        "late_policy": json.loads(policy.to_json()),
        "students": summaries,
    }, indent=2))

    keep = set()
    for row, summary in zip(rows, summaries):
        if fresh.get(row.submission_id) is row:
            keep.update(feedback_names(stems[row.submission_id]))
            continue
        keep.update(write_feedback_files(row, summary, feedback, stem=stems[row.submission_id]))
    for stale in feedback.iterdir():
        if stale.name not in keep:
            stale.unlink()
    late = {s["id"]: s for s in summaries}
    if drawer is None:      # charts drawn here, the last in a forked child: no other thread then
        book.checkpointed()
    missing = [summary for summary in summaries if summary["status"] == "missing"]
    report_path = write_report(shown, spec, out, lms_files=["canvas_grades.csv", "moodle_grades.csv"], late=late,
                               drawer=drawer, figures=figures, missing=missing)
    return [out / "grades.csv", out / "canvas_grades.csv", out / "moodle_grades.csv", out / "grades.json",
            feedback, report_path]
