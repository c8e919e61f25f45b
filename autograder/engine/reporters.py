"""Reporters: the same GradeReport as terminal text, JSON, Gradescope results.json, or Markdown."""

from __future__ import annotations

import functools
import json
import math
from typing import TYPE_CHECKING, Any

from . import selfcheck
from .escape import fence, markdown_inline, plain
from .results import LOAD_FAILED_HIDDEN, GradeReport, TestResult

if TYPE_CHECKING:
    from ..assignment import Assignment

MARK = {"passed": "PASS", "failed": "FAIL", "skipped": "SKIP", "error": "ERR ", "not started": "TODO"}


@functools.lru_cache(maxsize=4096)
def fmt(points: float) -> str:
    """Points as people write them: at most two decimals (8.7631 -> 8.76, 5.0 -> 5).
    Cached: a report of ~200 checks formats the same few values ~900 times per feedback page;
    equal numbers (5 and 5.0, 0.0 and -0.0) print the same, so the cache cannot change a byte."""
    text = f"{round(points, 2):.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _indent(text: str, prefix: str = "      ") -> str:
    return "\n".join(prefix + line for line in text.splitlines())


def _groups(report: GradeReport) -> dict[int, dict[int, list[TestResult]]]:
    stages: dict[int, dict[int, list[TestResult]]] = {}
    for test in report.tests:
        stages.setdefault(test.stage, {}).setdefault(test.problem, []).append(test)
    return stages


def closing_line(report: GradeReport) -> str:
    """The honest last line: what passed, and what was not run here."""
    if report.public_only:
        return public_closing(report)
    return f"Score: {fmt(report.score)} / {fmt(report.max_score)}"


def problem_titles(assignment_name: str) -> dict[int, str]:
    from ..assignment import load_assignment

    try:
        return {p.number: p.title for p in load_assignment(assignment_name).problems}
    except KeyError:
        return {}


def _said_at_top(output: str, error: str | None) -> bool:
    """Whether a check's OUTPUT is the load ERROR, which a report says once at its top (a hidden
    check says it in grader words: LOAD_FAILED_HIDDEN)."""
    return bool(error) and output in (error, LOAD_FAILED_HIDDEN)


def to_text(report: GradeReport, verbose: bool = False) -> str:
    if report.public_only:
        return public_text(report, verbose)
    titles = problem_titles(report.assignment)
    stage_titles = {}
    try:
        from ..assignment import load_assignment

        stage_titles = {s.number: s.title for s in load_assignment(report.assignment).stages}
    except KeyError:
        pass
    lines = [f"Grading {report.submission} ({report.assignment}, stage {report.stage})"]
    if report.error:
        lines.append(f"!! {report.error}")
        if any(_said_at_top(t.output, report.error) for t in report.tests):
            lines.append("   (no check could run; the checks below all failed for this reason)")
    lines += [f"note: {note}" for note in report.notes]
    for stage, problems in _groups(report).items():
        got = sum(t.score for p in problems.values() for t in p)
        top = sum(t.max_score for p in problems.values() for t in p)
        lines.append("")
        lines.append(f"Stage {stage}: {stage_titles.get(stage, '')}".rstrip(": ") + f"  [{fmt(got)} / {fmt(top)}]")
        for problem, tests in problems.items():
            p_got = sum(t.score for t in tests)
            p_top = sum(t.max_score for t in tests)
            passed = sum(t.status == "passed" for t in tests)
            lines.append(f"  Problem {problem} {titles.get(problem, '')}: {passed}/{len(tests)} checks passed"
                         f"  [{fmt(p_got)} / {fmt(p_top)}]")
            for test in tests:
                if (test.status == "passed" and not verbose and not test.output) or \
                        _said_at_top(test.output, report.error):
                    continue
                lines.append(f"    {MARK[test.status]} {test.name}")
                if test.output:      # a passed check's output is its note ("Not charged: stems from ...")
                    lines.append(_indent(test.output))
    lines.append("")
    lines.append(closing_line(report))
    return plain("\n".join(lines))      # student text never drives the reader's terminal


def to_json(report: GradeReport) -> str:
    return json.dumps(report.to_dict(), indent=2)


def summing_to(values: list[float], total: float) -> list[float]:
    """VALUES with the last non-zero one nudged by a few ulps so that adding them up in order (as
    Gradescope does) gives TOTAL exactly: evenly split check points (6/7 + 6/7 + ...) otherwise add
    up to 99.99999999999994 for a 100-point assignment.  A real difference is left alone."""
    parts = list(values)
    last = next((i for i in range(len(parts) - 1, -1, -1) if parts[i]), None)
    if last is None or sum(parts) == total or abs(sum(parts) - total) > 1e-9:
        return parts
    parts[last] = 0.0
    parts[last] = total - sum(parts)  # exact when the rest is near TOTAL (Sterbenz); else a few ulps off
    for _ in range(64):
        got = sum(parts)
        if got == total:
            break
        parts[last] = math.nextafter(parts[last], math.inf if got < total else -math.inf)
    return parts


def to_gradescope(report: GradeReport) -> dict[str, Any]:
    """Gradescope's results.json: score, execution_time, output, tests[] (name, number, score, ...)."""
    counters: dict[int, int] = {}
    tests = []
    tops = summing_to([t.max_score for t in report.tests], report.max_score)
    for test, top in zip(report.tests, tops):
        counters[test.problem] = counters.get(test.problem, 0) + 1
        tests.append({
            "name": test.name,
            "number": f"{test.problem}.{counters[test.problem]}",
            "score": test.score,
            "max_score": top,
            "status": "passed" if test.status == "passed" else "failed",
            "output": plain(test.output),
            "visibility": "visible" if test.visibility == "visible" else "after_published",
            "tags": [f"stage {test.stage}", f"problem {test.problem}"],
        })
    output = [report.error] if report.error else []
    output += report.notes
    output.append(closing_line(report))
    return {
        "score": report.score,
        "execution_time": report.execution_time,
        "output": plain("\n".join(output)),
        "output_format": "text",
        "stdout_visibility": "hidden",
        "visibility": "visible",
        "tests": tests,
    }


Check = tuple[str, str, str, float, float]       # what a page shows of a check: name, status, output, score, max_score


def check_groups(report: GradeReport) -> dict[int, dict[int, tuple[Check, ...]]]:
    """REPORT's checks by stage, then by problem, in the report's order, each as what a feedback
    page or the Markdown shows of it.  Hashable: a problem's block is made once per distinct one
    and kept (problem_markdown; grading.report.problem_block): in a class most problems are
    passed, or failed the same way, by many students."""
    return {stage: {problem: tuple((t.name, t.status, t.output, t.score, t.max_score) for t in tests)
                    for problem, tests in problems.items()}
            for stage, problems in _groups(report).items()}


@functools.lru_cache(maxsize=1024)
def problem_markdown(problem: int, title: str, checks: tuple[Check, ...], error: str) -> tuple[tuple[str, ...],
                                                                                                tuple[str, ...]]:
    """A problem's lines of the Markdown report: its rows of its stage's table, and what its checks
    said (failures, passed checks' notes; not ERROR, the report's own, said once at the top)."""
    table = tuple(f"| {problem} {title} | {name} | {status} | {fmt(score)} / {fmt(top)} |"
                  for name, status, _, score, top in checks)
    said: list[str] = []
    for name, _, output, _, _ in checks:
        if output and not _said_at_top(output, error):
            said += ["", f"### {markdown_inline(name)}", "", fence(plain(output))]
    return table, tuple(said)


def to_markdown(report: GradeReport, groups: dict[int, dict[int, tuple[Check, ...]]] | None = None) -> str:
    """REPORT as Markdown.  GROUPS: check_groups(REPORT), when the caller has it already."""
    titles = problem_titles(report.assignment)
    lines = [f"# Feedback: {markdown_inline(report.submission)}", "",
             f"**Score: {fmt(report.score)} / {fmt(report.max_score)}**", ""]
    if report.error:
        lines += [f"> **{markdown_inline(report.error)}**", ""]
    lines += [f"- {markdown_inline(note)}" for note in report.notes]
    for stage, problems in (check_groups(report) if groups is None else groups).items():
        lines += ["", f"## Stage {stage}", "", "| Problem | Check | Result | Points |", "|---|---|---|---|"]
        said: list[str] = []
        for problem, checks in problems.items():
            table, notes = problem_markdown(problem, titles.get(problem, ""), checks, report.error)
            lines += table
            said += notes
        lines += said
    lines += ["", closing_line(report), ""]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# The public-only report (grade --public, check.py): the student's view, one line per problem
# ---------------------------------------------------------------------------------------------

def problem_list(assignment: Assignment, stage: str | int = "all") -> list[tuple[int, int, str]]:
    """[(number, stage, title)] of the problems STAGE covers, in the handout's order."""
    chosen = [p for p in assignment.problems if str(stage) == "all" or p.stage == int(stage)]
    return [(p.number, p.stage, p.title) for p in sorted(chosen, key=lambda p: (p.stage, p.number))]


def results_by_problem(report: GradeReport) -> dict[int, list[tuple[str, str, str]]]:
    out: dict[int, list[tuple[str, str, str]]] = {}
    for test in report.tests:
        what = test.name.split(" ", 1)[1] if test.name.startswith(f"P{test.problem} ") else test.name
        out.setdefault(test.problem, []).append((what, test.status, test.output))
    return out


def problem_statuses(report: GradeReport) -> dict[str, str]:
    """{"1": "passed", "2": "failed", ...}: what check.py --json prints for the same file."""
    return {str(n): selfcheck.problem_status(r) for n, r in sorted(results_by_problem(report).items())}


def public_text(report: GradeReport, verbose: bool = False) -> str:
    """The student's view: one line per problem, then the first failure in full (all with VERBOSE)."""
    from ..assignment import load_assignment

    spec = load_assignment(report.assignment)
    lines = [f"Public checks of {report.submission} ({spec.title}, stage {report.stage})"]
    if report.error:
        lines.append(f"!! {report.error}")
    lines += [f"note: {note}" for note in report.notes]
    body = selfcheck.summary(problem_list(spec, report.stage), results_by_problem(report), verbose,
                             hidden_note=HIDDEN_NOTE, calls=spec.calls(),
                             unchecked=getattr(report, "public_unchecked", None))
    return "\n".join(lines) + "\n\n" + body + f"\n{public_closing(report)}"


HIDDEN_NOTE = ("The grader runs more checks of its own when it grades (hidden ones, other dice, whole "
               "games): passing these is a good sign, not a promise.")


def public_closing(report: GradeReport) -> str:
    """The last line of the student's view: what passed, and what runs only at grading."""
    statuses = problem_statuses(report)
    passed = sum(s == "passed" for s in statuses.values())
    head = ("public checks passed" if passed == len(statuses)
            else f"{passed} of {len(statuses)} problems pass their public checks")
    return f"{head}; {report.hidden_not_run} hidden checks run at grading"
