"""The pytest plugin that turns a stage suite into graded, student-readable results.

Markers on each test:  problem(N), weight(W), points(P), visibility("visible"|"hidden"),
                       depends("test_name", ...), own_functions (an integration check: no substitution).
Points are shared out at collection (share_points): each check of problem N without a points(P)
marker gets its weight's share (default 1) of the table's points for N less the explicit points;
the last such check takes the rounding remainder (4 decimals), so the problem adds up exactly.
A bug costs points once, by construction: every call a check of stage N makes runs with the
reference's versions of the functions graded in other stages in place of the student's
(Assignment.substitution), except in the checks marked own_functions.  A function graded in two
stages cannot be substituted in the later one: a later failure with the same aspect (Fail(aspect=))
as an earlier stage's failed check of that function is not charged again (engine/charge.py).
Fixtures:              student, reference (Programs), assignment, record_property (a check says something when it passes).

pytest collects the suites once per session; then each check runs through a light runner
(light.py: setup checks, the test function with its parameters and fixtures, the verdict) rather than
pytest's per-item protocol (hooks, reports, capture, logging: about 0.5 ms per check, 185 checks
per student).  A check that asks for a fixture other than the plugin's (student, reference,
assignment, record_property) or carries any other marker goes through pytest's protocol as before.  A grader-side hang is stopped by the same SIGALRM backstop as
pytest-timeout (the ini's `timeout`) and recorded the same way.

This file holds the plugin's session (fixtures, collection, the loop over submissions and checks,
a check's setup and markers); with its two parts, mixed in: light.py (the light runner) and
rows.py (a check's row from how it ended, and the rows' bookkeeping after the checks).
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass

import pytest

from . import guards, verdicts
from .ahead import PUBLIC, public_keys
from .charge import excuse_repeats, excuse_same_difference, skip
from .checks import explain, take_trivial
from .confirm import Confirm
from .feedback import Fail
from .guards import BACKSTOP_S
from .instage import InStage
from .light import LightRunner, _light_call
from .points import closest, closest_markers, marker_arg, share_points
from .program import Program
from .results import LOAD_FAILED_HIDDEN, TestResult
from .rows import Rows
from .sandbox import Outcome

VERDICTS = True         # False: every check runs for every submission (the tests compare both)
# This process's CPU in the checks themselves (its grading thread, every collected check of every
# submission): grade-all's workers report it, so the bench tells the checks from what is around them.
CHECKS_CPU = [0.0]


@dataclass(frozen=True)
class _Check:
    """What a collected check's markers and docstring say, read once per session (the same for
    every submission the session grades), not once per check per student."""
    problem: int
    points: float
    hidden: bool
    stage: int
    title: str
    own: bool                 # own_functions: no substitution
    depends: tuple
    family: str               # the test function's name (originalname)
    name: str                 # "test_x[param]"
    substitute: dict | None   # what its calls run with (Assignment.substitution), None: the student's own
    nodeid: str               # item.nodeid (a property pytest computes at every read)
    kin: tuple                # (family, problem): the checks no_points_for_nothing compares it with


class GradingPlugin(Rows, LightRunner, InStage, Confirm):
    """One pytest session, many submissions: the suites are collected once, then every
    collected check runs against each submission in turn (see pytest_runtestloop)."""

    def __init__(self, assignment, reference: Program, public_only: bool = False,
                 next_submission=None, deliver=None, plan: dict | None = None, record: bool = False,
                 light: bool = True, trace: bool = True):
        self.assignment = assignment
        self._reference = reference
        self._handout_names = assignment.handout_names
        self.plan = plan              # check id -> the requests a correct program gets (refcache)
        self.record = record          # record the plan the checks ask of each student (refcache)
        self.recorded_plan: dict[str, list] | None = None
        self.light = light
        # TRACE False: a session of one known submission (grade()): no later one could be given a
        # verdict its checks leave (verdicts.py), so they are not traced (~15 us a check)
        self.light_verdicts = light and VERDICTS and trace and not record
        self._items: list = []
        self._plan_from: dict[str, int] = {}
        self._plan_flat: list = []
        self._public_keys: frozenset[str] = frozenset()     # the plan's public requests (ahead.public_keys)
        self._hidden: dict[str, bool] = {}                   # check id -> whether it is hidden
        self._checks: dict[int, tuple[pytest.Item, _Check]] = {}
        self._read: tuple[list, list] | None = None         # read_checks: (the items, how each runs)
        self._substitutions: dict[int, dict] = {}
        self._functions: dict[int, frozenset[str]] = {}      # problem -> its functions' bare names
        self.public_only = public_only
        self.next_submission = next_submission    # () -> (Program, load_failure, context) | None
        self.deliver = deliver                    # (plugin, context) -> None, after each submission
        self.hidden_not_run = 0
        self.collection_errors: list[str] = []
        self.verdicts = verdicts.Store()          # the checks' verdicts, as data (verdicts.py)
        self.begin(None, "no submission")

    def bind(self, reference: Program, next_submission, deliver, plan: dict | None = None) -> None:
        """A plugin made without them (a session prepared before a fork: its collection needs
        neither) gets the reference, its submissions and the plan before the session runs."""
        self._reference = reference
        self.plan = plan
        self.next_submission = next_submission
        self.deliver = deliver
        self.verdicts = verdicts.Store()

    def begin(self, student: Program | None, load_failure: str | None) -> None:
        """Reset the per-submission state and load STUDENT once."""
        self._student = student
        if student is not None:
            student.calls = self.assignment.extra.get("calls", {})     # timeout memory ([calls])
            student.handout_names = self._handout_names
            student.timing = self._reference            # trial limits from the reference's CPU times
            student.public_keys = self._public_keys     # public first (ahead.py): never None here
            student.public_check[0] = True              # (the load probe: its outcome is shown)
        self.results: list[TestResult] = []
        self.by_name: dict[str, list[TestResult]] = {}
        self.notes: list[str] = []
        self.internal_errors: list[str] = []
        self.load_failure = load_failure
        self._started: dict[str, float] = {}
        self._trivial: set[int] = set()                 # results a do-nothing function could pass
        self._family: dict[int, tuple[str, int]] = {}   # result -> (test function, problem)
        self._called: dict[int, frozenset[str]] = {}     # result -> the student's functions it called
        self._aspect: dict[int, str] = {}               # failed result -> what differed (engine/charge.py)
        self._sole: dict[int, str] = {}                 # failed result -> its game's sole difference (charge.py)
        self._run: dict[int, str] = {}                  # ... and the run it read, when checks share one
        self._lent_rows: list = []                      # rows whose text was withheld (lent.py)
        if student is not None and load_failure is None:
            if self.record:
                student.recorded = []
            early = student.loaded_early    # grade(): probed and prefetched while pytest collected
            self._probe_load(early[0] if early else None)   # first, alone: a file that does not load needs no plan
            if self._plan_flat and not self.record and self.load_failure is None and not early:
                student.prefetch(self._plan_flat[len(self.plan.get("", [])):])

    # -- fixtures ---------------------------------------------------------------------------
    @pytest.fixture
    def student(self) -> Program:
        return self._student

    @pytest.fixture
    def reference(self) -> Program:
        return self._reference

    @pytest.fixture(name="assignment")
    def assignment_fixture(self):
        return self.assignment

    @pytest.fixture(name="record_property")
    def record_property_fixture(self, request):
        """pytest's record_property (its junitxml plugin is off in grading sessions): a check
        may say something even when it passes, record_property("feedback", text)."""
        def record(name: str, value: object) -> None:
            request.node.user_properties.append((name, value))
        return record

    # -- loading ------------------------------------------------------------------------------
    def _probe_load(self, outcome: Outcome | None = None) -> None:
        """Load the student's file once: a syntax error fails every check with one clear message.
        (OUTCOME: the probe already ran, Program.load_early.)"""
        outcome = outcome or self._student.load_probe()
        if outcome.status in ("syntax_error", "import_error"):
            self.load_failure = explain(outcome, "loading your file")
        elif outcome.status not in ("no_function", "ok"):
            self.load_failure = f"Loading your file failed: {outcome.message or outcome.status}"
        if outcome.import_prompted:
            where = outcome.import_prompted.get("line")
            self.notes.append(
                f"Your file asks for input when it is imported (line {where}). The grader ignored the "
                "rest of the file from there; start the game under `if __name__ == \"__main__\":`."
            )
        elif outcome.import_stdout.strip():
            self.notes.append("Your file prints when it is imported; the grader ignored that output.")

    # -- collection ---------------------------------------------------------------------------
    def pytest_collection_modifyitems(self, session, config, items) -> None:
        share_points(items, self.assignment)      # first: the public run gives each check the same points
        if not self.public_only:
            return
        kept = [i for i in items if marker_arg(i, "visibility", "visible") != "hidden"]
        deselected = [i for i in items if i not in kept]
        self.hidden_not_run = len(deselected)
        if deselected:
            config.hook.pytest_deselected(items=deselected)
        items[:] = kept

    def pytest_collectreport(self, report) -> None:
        if report.failed:
            self.collection_errors.append(f"{report.nodeid}: {report.longreprtext[-3000:]}")

    # -- running ------------------------------------------------------------------------------
    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session) -> bool:
        if self.collection_errors or self.next_submission is None:
            return True                       # the caller reports a collection error as a grader fault
        items = session.items
        self._prepare_plan(items)
        light = self.read_checks(items)
        backstop = float(session.config.getini("timeout") or BACKSTOP_S) if _has_ini(session, "timeout") \
            else BACKSTOP_S
        with guards.backstop_handler(), guards.frozen():
            self._grade_each(items, light, backstop)
        return True

    def read_checks(self, items) -> list:
        """Each collected check's markers read (_check) and how it runs (a _LightCall, or False:
        pytest's protocol), once per session and ITEMS, before the first submission (a single grade:
        while its plan still runs; a session prepared before grade-all's fork: in the fork server,
        once for every worker, preloading.prepare_session).  Nothing here depends on a submission."""
        known = self._read
        if known is not None and known[0] is items and len(known[1]) == len(items):
            return known[1]
        light = [self.light and self._light_ok(item) for item in items]
        for index, item in enumerate(items):
            try:
                self._check(item)
            except Exception:       # noqa: BLE001 -- a bad marker: raised again in that check's setup, as before
                pass
            if light[index]:
                light[index] = _light_call(item)
        self._read = (items, light)
        return light

    def _grade_each(self, items, light: list, backstop: float) -> None:
        """Every submission next_submission gives, through every collected check."""
        while (job := self.next_submission()) is not None:
            student, load_failure, context = job
            self.begin(student, load_failure)
            watched = guards.backstop_is_ours(backstop)
            started = time.thread_time()
            with guards.watch(backstop) if watched else contextlib.nullcontext():
                self._check_each(items, light, student, watched)
                if not self.record:
                    self.confirm_lent(items, light, watched)       # a lent check's own text (lent.py)
                    self.retry_in_stage(items, light, watched)     # charge once within a stage (instage.py)
            CHECKS_CPU[0] += time.thread_time() - started
            if student is not None and student.recorded is not None:
                self.recorded_plan = _plan_of(student.recorded, student.memo_reads, self._hidden)
                student.recorded = None
            if student is not None:
                student.drop_plan()
            source = getattr(student, "source", None)
            excuse_repeats(self.results, self._aspect, self.assignment, source)
            excuse_same_difference(self.results, self._sole, self.assignment, source, self._run)
            # after the excuses: a check excused there ran right but for a difference charged already,
            # a real answer that vouches for its function's do-nothing checks (and one excused that a
            # do-nothing function could pass counts only beside such a real pass, as any other)
            self.no_points_for_nothing()
            self.deliver(self, context)

    def _check_each(self, items, light: list, student: Program | None, watched: bool) -> None:
        """Every collected check of one submission (WATCHED: under guards.watch's backstop)."""
        plan = student is not None and self.plan is not None and self.load_failure is None
        for index, item in enumerate(items):
            call = light[index]
            if student is not None:
                student.item = nodeid = call.nodeid if call else item.nodeid
                student.public_check[0] = not self._hidden.get(nodeid, True)
                if plan and student.wants_resync():
                    student.resync(self._plan_flat[self._plan_from.get(nodeid, len(self._plan_flat)):])
            if call:
                self._run_light(item, call, watched)
            else:
                # pytest tears down towards the next item IT runs: light checks skip its setup stack
                nextitem = next((items[j] for j in range(index + 1, len(items)) if not light[j]), None)
                with guards.pause():
                    item.config.hook.pytest_runtest_protocol(item=item, nextitem=nextitem)

    # -- the request plan -----------------------------------------------------------------------
    def _prepare_plan(self, items) -> None:
        """The plan of the collected checks, flat and in order; where each check's part starts."""
        self._plan_flat, self._plan_from = [], {}
        self._hidden = {}
        for item in items:
            try:
                self._hidden[item.nodeid] = self._check(item).hidden
            except Exception:    # noqa: BLE001 -- a bad marker: raised again in its setup; hidden meanwhile
                self._hidden[item.nodeid] = True
        self._public_keys = public_keys(self.plan)
        if not self.plan:
            return
        self._plan_flat.extend(self.plan.get("", []))
        for item in items:
            self._plan_from[item.nodeid] = len(self._plan_flat)
            self._plan_flat.extend(self.plan.get(item.nodeid, []))

    # -- the light runner -------------------------------------------------------------------------
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        self._setup(item, time.perf_counter(), keep=True)

    def _setup(self, item: pytest.Item, started: float, keep: bool = False) -> _Check:
        """ITEM's setup: its _check, once it may run.  STARTED: its start (TestResult.elapsed), kept
        for _record when KEEP (pytest's protocol; the light runner hands it over itself)."""
        # one item runs once per submission in a batch: what it said about the last one is not for this one
        if item.user_properties:
            item.user_properties[:] = [p for p in item.user_properties if p[0] != "feedback"]
        take_trivial()
        check = self._check(item)
        if keep:
            self._started[check.nodeid] = started
        if self._student is not None:
            self._student.called.clear()
            self._student.substitute = check.substitute
        if self.load_failure:           # a hidden check says it in grader words (the error's text may be the program's)
            raise Fail(self.load_failure, hidden=LOAD_FAILED_HIDDEN, show_values=False)
        for name in check.depends:
            earlier = self.by_name.get(name, [])
            failed = [r for r in earlier if r.status != "passed"]
            if failed:      # (a skip for a run's failure is that run's: charged once with it, charge.py)
                sole = self._sole.get(id(failed[0]))
                skip(f"can't check until \"{failed[0].name}\" passes", sole=sole,
                     run=self._run.get(id(failed[0])) if sole else None)
        return check

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call) -> pytest.TestReport:
        """Record the result and return a bare report.

        pytest's own report renders a source-code traceback for every failure (~20 ms each);
        students never see it, so it is skipped.
        """
        if call.when == "call" or (call.when == "setup" and call.excinfo is not None):
            self._record(item, call)
        if call.excinfo is None:
            outcome, longrepr = "passed", None
        elif call.excinfo.errisinstance(pytest.skip.Exception):
            outcome = "skipped"
            longrepr = (str(item.path), item.location[1], str(call.excinfo.value.msg))
        else:
            outcome, longrepr = "failed", str(call.excinfo.value)[:500]
        return pytest.TestReport(item.nodeid, item.location, {}, outcome, longrepr, call.when,
                                 duration=call.duration, start=call.start, stop=call.stop)

    def _check(self, item: pytest.Item) -> _Check:
        """ITEM's markers, read once (after collection: share_points has given it its points)."""
        known = self._checks.get(id(item))
        if known is not None and known[0] is item:
            return known[1]
        markers = closest_markers(item)
        problem = int(marker_arg(item, "problem", 0, markers))
        marker = closest(item, "depends", markers)
        stage = self._stage_of(problem)
        own = closest(item, "own_functions", markers) is not None
        sub = None if own or not stage else self._substitution(stage)
        check = _Check(problem=problem, points=float(marker_arg(item, "points", 0, markers)),
                       hidden=marker_arg(item, "visibility", "visible", markers) == "hidden",
                       stage=stage, title=test_title(item, problem), own=own,
                       depends=tuple(marker.args) if marker else (),
                       family=getattr(item, "originalname", item.name), name=item.name,
                       substitute=sub if sub and sub["names"] else None, nodeid=item.nodeid,
                       kin=(getattr(item, "originalname", item.name), problem))
        self._checks[id(item)] = (item, check)
        return check

    def _substitution(self, stage: int) -> dict:
        """Assignment.substitution(STAGE), once per session (one dict shared by its checks' requests:
        nothing changes it)."""
        known = self._substitutions.get(stage)
        if known is None:
            known = self._substitutions[stage] = self.assignment.substitution(stage)
        return known

    def _stage_of(self, problem: int) -> int:
        try:
            return self.assignment.problem(problem).stage
        except KeyError:
            return 0


def _has_ini(session, name: str) -> bool:
    try:
        session.config.getini(name)
    except ValueError:
        return False
    return True


def _plan_of(recorded: list, memo_reads: list, hidden: dict[str, bool]) -> dict[str, list]:
    """The recorded requests by check id, and under PUBLIC those whose outcome a public check
    reads: its own requests, and those of the memos it read again (MEMO_READS: (check, a, b),
    RECORDED[a:b] the memo's COMPUTE's); the load probe's ("") is public."""
    plan: dict[str, list] = {}
    for item, request in recorded:
        plan.setdefault(item, []).append(request)
    public = [request for item, request in recorded if not hidden.get(item, False)]
    for item, start, end in memo_reads:
        if not hidden.get(item, False):
            public.extend(request for _, request in recorded[start:end])
    plan[PUBLIC] = public
    return plan


def test_title(item: pytest.Item, problem: int) -> str:
    """"P3 Full House: five of a kind is not a full house" from the docstring and the param id."""
    doc = (getattr(item, "function", None).__doc__ or "").strip().splitlines()
    title = doc[0].rstrip(".") if doc else getattr(item, "originalname", item.name)
    callspec = getattr(item, "callspec", None)
    if callspec is not None and callspec.id:
        title = f"{title}: {callspec.id}"
    return f"P{problem} {title}" if problem else title
