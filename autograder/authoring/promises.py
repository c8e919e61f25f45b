"""Promise tables: every promise of a handout names the checks that keep it.

An assignment's ``promises.toml`` lists, per problem, each promise its handout makes (a rule,
an edge case, an argument- or input-validation promise, an RNG rule) and the ids of the
hidden-suite checks that keep it::

    [[promise]]
    problem = 4
    text = "a large straight is also a small straight"
    checks = ["test_scoring[a large straight is also a small straight]"]

A check id is a collected check's name (``test_name`` or ``test_name[case]``); an entry matches
the check it names, every case of a parametrized test (``test_name``), or every case whose id
starts with it (``test_name[five of``).  ``python -m autograder build`` renders the table into
the handout between ``<!-- BEGIN PROMISE TABLE -->`` and ``<!-- END PROMISE TABLE -->``;
``build --check`` fails when the table drifted, when an entry matches no collected check,
when a promise names no check, or when a problem of the assignment has no promise.
An assignment without promises.toml has no table (and no such check).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from autograder.assignment import Assignment, tomllib

BEGIN = "<!-- BEGIN PROMISE TABLE -->"
END = "<!-- END PROMISE TABLE -->"
FILE = "promises.toml"


@dataclass(frozen=True)
class Promise:
    problem: int
    text: str
    checks: tuple[str, ...]


def promises_file(assignment: Assignment) -> Path:
    return assignment.root / FILE


def load_promises(assignment: Assignment) -> list[Promise]:
    """The promises of ASSIGNMENT (ValueError naming the entry when one is malformed)."""
    data = tomllib.loads(promises_file(assignment).read_text(encoding="utf-8"))
    found = []
    for index, entry in enumerate(data.get("promise", []), 1):
        problem, text, checks = entry.get("problem"), entry.get("text"), entry.get("checks", [])
        if not isinstance(problem, int) or not isinstance(text, str) or not text.strip() \
                or not isinstance(checks, list) or not all(isinstance(c, str) and c for c in checks):
            raise ValueError(f"promise {index} needs problem (an int), text (a string) and "
                             f"checks (a list of check ids)")
        found.append(Promise(problem, " ".join(text.split()), tuple(checks)))
    return found


class _Collector:
    """A pytest plugin that records every collected check (id, problem) and runs none."""

    def __init__(self) -> None:
        self.checks: dict[str, int | None] = {}
        self.errors: list[str] = []

    def pytest_collection_modifyitems(self, session, config, items) -> None:
        for item in items:
            marker = item.get_closest_marker("problem")
            self.checks[item.name] = marker.args[0] if marker and marker.args else None
        items[:] = []

    def pytest_collectreport(self, report) -> None:
        if report.failed:
            self.errors.append(f"{report.nodeid}: {report.longreprtext[-2000:]}")


_COLLECTED: dict[tuple, dict[str, int | None]] = {}


def collected_checks(assignment: Assignment) -> dict[str, int | None]:
    """Every check of every stage suite of ASSIGNMENT (optional stages too): id -> problem.
    Collected once per process and state of the suite and case files."""
    data = [f for folder in (assignment.suites_dir, assignment.scenarios_dir) if folder.is_dir()
            for f in sorted(folder.rglob("*")) if f.is_file() and "__pycache__" not in f.parts]
    key = (str(assignment.root), os.environ.get("AUTOGRADER_SCENARIOS_DIR"),
           tuple((str(f), f.stat().st_mtime_ns) for f in data))
    if key not in _COLLECTED:
        _COLLECTED[key] = _collect(assignment)
    return dict(_COLLECTED[key])


def _collect(assignment: Assignment) -> dict[str, int | None]:
    import pytest

    from autograder.grading.grade import PYTEST_INI, pytest_env

    files = [str(f) for stage in assignment.stages for f in assignment.suite_files(stage.number)]
    collector = _Collector()
    if not files:
        return {}
    args = [*files, "-c", str(PYTEST_INI), "--rootdir", str(assignment.suites_dir),
            "-p", "no:cacheprovider", "-p", "no:terminal", "--import-mode=importlib",
            "-W", "ignore::pytest.PytestAssertRewriteWarning"]
    old_cwd = os.getcwd()
    try:
        with pytest_env():
            status = pytest.main(args, plugins=[collector])
    finally:
        os.chdir(old_cwd)
    if status not in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED) and not collector.errors:
        collector.errors.append(f"pytest exited with {status!r}")
    if collector.errors:
        raise ValueError("the suites failed to load (so no check id can be verified): " + "; ".join(collector.errors))
    return collector.checks


def matches(entry: str, check: str) -> bool:
    """Whether the check id ENTRY of promises.toml names the collected CHECK."""
    return check == entry or check.startswith(entry + "[") or ("[" in entry and check.startswith(entry))


def problems_with(assignment: Assignment, promises: list[Promise], checks: dict[str, int | None]) -> list[str]:
    """What is wrong with PROMISES: unknown problems or check ids, no checks, problems without one."""
    found = []
    numbers = {p.number for p in assignment.problems}
    for promise in promises:
        where = f"{FILE}: problem {promise.problem}, {promise.text!r}"
        if promise.problem not in numbers:
            found.append(f"{where}: there is no problem {promise.problem}")
        if not promise.checks:
            found.append(f"{where}: names no check (add one to the suite, or cut the sentence)")
        for entry in promise.checks:
            if not any(matches(entry, check) for check in checks):
                found.append(f"{where}: {entry!r} matches no collected check")
    kept = {promise.problem for promise in promises}
    found += [f"{FILE}: problem {n} ({assignment.problem(n).title}) has no promise"
              for n in sorted(numbers - kept)]
    return found


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|")


def promise_table(assignment: Assignment, promises: list[Promise]) -> str:
    """The Markdown promise table: one row per promise, in problem order (stable within one)."""
    rows = [f"<!-- Generated from autograder/assignments/{assignment.name}/{FILE} by "
            f"`python -m autograder build`: edit the promises there, not here. -->",
            "",
            "| Problem | Promise | Checks |",
            "|--:|---|---|"]
    for promise in sorted(promises, key=lambda p: p.problem):
        checks = "<br>".join(f"`{_cell(entry)}`" for entry in promise.checks)
        rows.append(f"| {promise.problem} | {_cell(promise.text)} | {checks} |")
    return "\n".join(rows)


def replace_between(text: str, table: str) -> str:
    """TEXT with TABLE between the promise-table markers (ValueError if they are missing)."""
    begins, ends = text.count(BEGIN), text.count(END)
    if begins != 1 or ends != 1:
        raise ValueError(f"needs exactly one {BEGIN} and one {END} line (found {begins} and {ends})")
    head, rest = text.split(BEGIN)
    if END not in rest:
        raise ValueError(f"{END} comes before {BEGIN}")
    return f"{head}{BEGIN}\n{table}\n{END}{rest.split(END, 1)[1]}"


def update(assignment: Assignment, handout_text: str) -> tuple[str, list[str]]:
    """HANDOUT_TEXT with ASSIGNMENT's promise table rendered in, and the problems found (build's hook).

    No promises.toml: the text unchanged (a course may keep a table of its own there)."""
    where = f"autograder/assignments/{assignment.name}/"
    if not promises_file(assignment).is_file():
        return handout_text, []
    try:
        promises = load_promises(assignment)
        found = problems_with(assignment, promises, collected_checks(assignment))
    except (ValueError, tomllib.TOMLDecodeError) as err:
        return handout_text, [f"{where}{FILE}: {err}"]
    try:
        text = replace_between(handout_text, promise_table(assignment, promises))
    except ValueError as err:
        return handout_text, [f"{where}handout.md: {err}"]
    return text, [f"{where}{problem}" for problem in found]
