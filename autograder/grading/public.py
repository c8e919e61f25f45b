"""The public checks of an assignment, and `grade --public`: the same checks check.py and notebooks run.

The check code of each problem is generated from the reference (autograder/notebooks/: the
docstring examples, the public scenarios, the notebook content's checks); the runtime that runs
it is engine/selfcheck.py.  Here the grader runs that same code on a submission, inside the
sandbox (the runtime and the checks are appended to the student's source as one function the
sandbox calls once per problem), so `grade --public`, check.py and a notebook's check cells
cannot disagree on a problem.
"""

from __future__ import annotations

import contextlib
import io
import json
import time
from functools import cache
from pathlib import Path

from ..assignment import DEFAULT_ASSIGNMENT, Assignment, load_assignment
from ..engine import codecache, selfcheck
from ..engine.reporters import problem_list
from ..engine.results import GradeReport, TestResult
from ..engine.sandbox import Limits
from ..notebooks.runtime import SELFCHECK as SELFCHECK_SOURCE
from ..notebooks.runtime import TOOLS

ENTRY = "__autograder_public_checks__"
PROBLEM_TIMEOUT = 2.0            # seconds per problem in the sandbox (check.py: per check, by alarm) ...
SHORT_PROBLEM_TIMEOUT = 0.5      # ... once selfcheck.SLOW_ALLOWED problems ran out of time


def public_checks(assignment: Assignment) -> tuple[dict[int, str], list[str]]:
    """{problem: check code} with the final reference's expected values, and notes on public
    scenarios whose shape no check could be made for."""
    checks, notes, _ = _public_checks(_version(assignment))
    return dict(checks), list(notes)


def unchecked_public(assignment: Assignment) -> dict[int, list[str]]:
    """{problem: [case]}: the public scenario cases no public check could be made of (0: of no one
    problem), which check.py and `grade --public` name after their count."""
    _, _, unchecked = _public_checks(_version(assignment))
    return {number: list(cases) for number, cases in unchecked.items()}


def _version(assignment: Assignment) -> tuple:
    return (assignment.name, str(assignment.reference), assignment.reference.stat().st_mtime_ns)


def _is_kept(data: bytes) -> bool:
    try:
        kept = json.loads(data)
        return (isinstance(kept["checks"], dict) and all(isinstance(v, str) for v in kept["checks"].values())
                and all(isinstance(n, str) for n in kept["notes"])
                and all(isinstance(c, str) for cases in kept["unchecked"].values() for c in cases))
    except (ValueError, KeyError, TypeError, AttributeError):
        return False


@cache
def _public_checks(key: tuple) -> tuple[dict[int, str], list[str], dict[int, list[str]]]:
    """(checks, notes, unchecked cases), made once per machine and kit version (codecache.stored,
    under Assignment.made_from_key: making them builds every stage's notebook and may collect the
    hidden checks, ~1 s of CPU that each `grade --public` process paid)."""
    spec = load_assignment(key[0])

    def build() -> tuple[bytes, bool]:
        checks, notes = _made_checks(spec)
        unchecked = {str(n): cases for n, cases in _unchecked(spec).items()}
        return json.dumps({"checks": {str(n): code for n, code in checks.items()}, "notes": notes,
                           "unchecked": unchecked}).encode(), True

    kept = json.loads(codecache.stored("public-checks", spec.made_from_key(), build, _is_kept))
    return ({int(n): code for n, code in kept["checks"].items()}, kept["notes"],
            {int(n): cases for n, cases in kept["unchecked"].items()})


def _made_checks(assignment: Assignment) -> tuple[dict[int, str], list[str]]:
    from .. import notebooks as nb

    text = assignment.reference.read_text(encoding="utf-8")
    content = nb.load_content(assignment) if nb.has_notebooks(assignment) else {}
    protocol = content.get("protocol_lines", [])
    _, unknown = nb.scenario_checks(assignment, text, protocol)
    notes = [f"{assignment.name}: no public check could be made of {what}" for what in unknown]
    if content:
        with contextlib.redirect_stdout(io.StringIO()):
            builds = nb.build_all(assignment)
        checks: dict[int, str] = {}
        for build in builds:
            checks.update(build.script_checks)   # equal at their stage and in the final reference
        return checks, notes
    base: dict = {"__name__": f"{assignment.name}_reference"}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(text, str(assignment.reference), "exec"), base)
        exec(TOOLS, base)
    checks = {}
    for problem in assignment.problems:
        found = nb.doctest_checks(text, problem)
        found += list(nb.scenario_checks(assignment, text, protocol, problem)[0])
        blocks = []
        namespace = dict(base)
        for index, check in enumerate(found, 1):
            with contextlib.redirect_stdout(io.StringIO()):
                code = nb.render_check(check, namespace, f"{assignment.name} problem {problem.number} "
                                                         f"check {index} ({check.origin})")
            blocks.append((nb.check_label(check), code))
        if blocks:
            checks[problem.number] = nb.checks_code(problem, blocks)
    return checks, notes


def _unchecked(assignment: Assignment) -> dict[int, list[str]]:
    from .. import notebooks as nb
    from ..authoring.promises import collected_checks

    content = nb.load_content(assignment) if nb.has_notebooks(assignment) else {}
    text = assignment.reference.read_text(encoding="utf-8")
    protocol, notebooks = content.get("protocol_lines", []), bool(content)
    found = nb.unchecked_cases(assignment, text, protocol, notebooks=notebooks)
    if found.get(0):        # (cases the suites file: their problem from the hidden checks' ids, collected)
        found = nb.unchecked_cases(assignment, text, protocol, collected_checks(assignment), notebooks)
    return {number: list(cases) for number, cases in sorted(found.items())}


def sandbox_source(source: str, checks: dict[int, str], filename: str, handout: tuple[str, ...] = ()) -> str:
    """The student's SOURCE with one function appended that runs a problem's public checks in the
    module's own namespace with the shared runtime, and returns [(what, status, detail)]."""
    # (the tools know the file's source: a check that runs it as a script has no file here)
    tools = f"{TOOLS}\nSCRIPT_SOURCE = {source!r}\n"
    return (source.rstrip("\n") + "\n\n\n"
            f"def {ENTRY}(number, _runtime={SELFCHECK_SOURCE!r}, _tools={tools!r},\n"
            f"        _checks={checks!r}, _filename={filename!r}, _handout={handout!r}):\n"
            "    engine = {'__name__': 'selfcheck'}\n"
            "    exec(_runtime, engine)\n"
            "    engine['SETTINGS']['filename'] = _filename\n"
            "    engine['HANDOUT'] = _handout\n"
            "    return engine['run_problem'](number, _checks[number], globals(), _tools)\n")


def grade_public(path: str | Path, assignment: str | Assignment = DEFAULT_ASSIGNMENT, stage: str | int = "all",
                 limits: Limits | None = None, extra_hidden: list[str] | None = None) -> GradeReport:
    """Run the public checks of STAGE on the submission at PATH, in the sandbox: one TestResult per
    check (status passed / failed / not started, no points: public checks are a self-check)."""
    from ..engine.feedback import cut
    from ..engine.program import Program
    from ..engine.submission import SubmissionError, load_submission
    from .grade import count_checks, hidden_paths, submission_home

    spec = load_assignment(assignment) if isinstance(assignment, str) else assignment
    started = time.perf_counter()
    report = GradeReport(submission=str(path), assignment=spec.name, stage=str(stage), public_only=True)
    checks, _ = public_checks(spec)
    problems = [p for p in problem_list(spec, stage) if p[0] in checks]
    report.hidden_not_run = count_checks(spec, stage)
    try:
        submission = load_submission(path, spec.student_file, spec.entry)
    except SubmissionError as err:
        report.error = str(err)
        report.tests = [TestResult(f"P{n} {title}", n, s, 0.0, 0.0, "failed", report.error)
                        for n, s, title in problems]
        return report
    report.notes.extend(submission.notes)
    # (all green here is not all green in the grade: the text says which public cases it plays alone,
    # after the count, as check.py does; not a field: the report's data and exports stay as they were)
    report.public_unchecked = unchecked_public(spec)
    wanted = {n: checks[n] for n, _, _ in problems}
    program = Program(sandbox_source(submission.source, wanted, submission.filename, tuple(sorted(spec.handout_names))),
                      submission.filename,
                      limits=limits, hidden_paths=hidden_paths(extra_hidden) + submission_home(path))
    timed_out = 0
    try:
        for number, problem_stage, _ in problems:
            limit = SHORT_PROBLEM_TIMEOUT if timed_out >= selfcheck.SLOW_ALLOWED else PROBLEM_TIMEOUT
            outcome = program.call(ENTRY, number, fresh=True, timeout=limit)
            timed_out += outcome.status == "timeout"
            if outcome.status == "ok" and isinstance(outcome.value, list):
                results = [r for r in outcome.value if isinstance(r, list) and len(r) == 3]
            elif outcome.status in ("syntax_error", "import_error"):
                from ..engine.checks import explain

                report.error = report.error or explain(outcome, "loading your file")
                results = [["loading your file", "failed", report.error]]
            elif outcome.status == "no_function" and outcome.import_prompted:
                # the load stopped at a prompt, before the checks' function appended to the file
                where = outcome.import_prompted.get("line")
                report.error = report.error or (
                    f"Your file asks for input while being loaded (line {where}); start the game under "
                    "`if __name__ == \"__main__\":`")
                results = [["loading your file", "failed", report.error]]
            elif outcome.status == "timeout":
                results = [["the public checks", "failed", selfcheck.timed_out_text(limit)]]
            else:
                results = [["the public checks", "failed",
                            outcome.message or f"The checks stopped ({outcome.status})."]]
            for what, status, detail in results:
                status = status if status in selfcheck.STATUSES else "failed"
                detail = cut(str(detail), 4000)
                hint = next((line[6:] for line in detail.splitlines() if line.startswith("Hint: ")), "")
                report.tests.append(TestResult(f"P{number} {cut(str(what), 200)}", number, problem_stage,
                                               0.0, 0.0, status, detail, hint=hint))
    finally:
        program.close()
    note = selfcheck.time_note(timed_out, PROBLEM_TIMEOUT, SHORT_PROBLEM_TIMEOUT, unit="problem")
    if note:
        report.notes.append(note)
    report.flags = list(program.attempts)
    report.execution_time = round(time.perf_counter() - started, 3)
    return report
