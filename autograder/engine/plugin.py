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
(setup checks, the test function with its parameters and fixtures, the verdict) rather than
pytest's per-item protocol (hooks, reports, capture, logging: about 0.5 ms per check, 185 checks
per student).  A check that asks for a fixture other than the plugin's (student, reference,
assignment, record_property) or carries any other marker goes through pytest's protocol as before.  A grader-side hang is stopped by the same SIGALRM backstop as
pytest-timeout (the ini's `timeout`) and recorded the same way.
"""

from __future__ import annotations

import contextlib
import re
import sys
import time
import traceback
from dataclasses import dataclass

import pytest
from _pytest.outcomes import Exit

from . import guards, verdicts
from .charge import excuse_repeats
from .checks import _TRIVIAL, GraderFault, explain, take_trivial
from .feedback import Fail
from .guards import BACKSTOP_S
from .points import closest, closest_markers, marker_arg, share_points
from .program import Program
from .results import TestResult
from .sandbox import Outcome

FIXTURES = frozenset({"student", "reference", "assignment"})
VERDICTS = True         # False: every check runs for every submission (the tests compare both)
# This process's CPU in the checks themselves (its grading thread, every collected check of every
# submission): grade-all's workers report it, so the bench tells the checks from what is around them.
CHECKS_CPU = [0.0]
LIGHT_FIXTURES = FIXTURES | {"record_property"}       # the plugin's own record_property (below)
MARKERS = frozenset({"problem", "points", "weight", "visibility", "depends", "parametrize", "own_functions"})


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


# TestResult's fields in the order _record passes them (positionally)
_ROW = ("name", "problem", "stage", "score", "max_score", "status", "output", "visibility", "hint", "elapsed", "test_id")
if tuple(TestResult.__dataclass_fields__) != _ROW:      # pragma: no cover -- a reordered TestResult
    raise ImportError(f"engine/plugin.py passes a TestResult's fields in the order {_ROW}")

HIDDEN_WITHHELD = ("This hidden check failed.  Its usual feedback would repeat text your program chose "
                   "(an exception's name or message), so it is not shown.")


class GradingPlugin:
    """One pytest session, many submissions: the suites are collected once, then every
    collected check runs against each submission in turn (see pytest_runtestloop)."""

    def __init__(self, assignment, reference: Program, public_only: bool = False,
                 next_submission=None, deliver=None, plan: dict | None = None, record: bool = False,
                 light: bool = True):
        self.assignment = assignment
        self._reference = reference
        self.plan = plan              # check id -> the requests a correct program gets (refcache)
        self.record = record          # record the plan the checks ask of each student (refcache)
        self.recorded_plan: dict[str, list] | None = None
        self.light = light
        self.light_verdicts = light and VERDICTS and not record
        self._items: list = []
        self._plan_from: dict[str, int] = {}
        self._plan_flat: list = []
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
            student.timing = self._reference            # trial limits from the reference's CPU times
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
            CHECKS_CPU[0] += time.thread_time() - started
            if student is not None and student.recorded is not None:
                self.recorded_plan = _plan_of(student.recorded)
                student.recorded = None
            if student is not None:
                student.drop_plan()
            self.no_points_for_nothing()
            excuse_repeats(self.results, self._aspect, self.assignment, getattr(student, "source", None))
            self.deliver(self, context)

    def _check_each(self, items, light: list, student: Program | None, watched: bool) -> None:
        """Every collected check of one submission (WATCHED: under guards.watch's backstop)."""
        plan = student is not None and self.plan is not None and self.load_failure is None
        for index, item in enumerate(items):
            call = light[index]
            if student is not None:
                student.item = nodeid = call.nodeid if call else item.nodeid
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
        if not self.plan:
            return
        self._plan_flat.extend(self.plan.get("", []))
        for item in items:
            self._plan_from[item.nodeid] = len(self._plan_flat)
            self._plan_flat.extend(self.plan.get(item.nodeid, []))

    # -- the light runner -------------------------------------------------------------------------
    def _light_ok(self, item) -> bool:
        """True when the check needs nothing of pytest's per-item machinery: its fixtures are the
        plugin's (record_property included: a check may say something when it passes)."""
        if not isinstance(item, pytest.Function) or getattr(item, "cls", None) is not None:
            return False
        names = set(item._fixtureinfo.argnames)
        params = set(getattr(getattr(item, "callspec", None), "params", {}) or {})
        defs = item._fixtureinfo.name2fixturedefs
        if names - params - LIGHT_FIXTURES or defs.keys() - LIGHT_FIXTURES - params:
            return False
        recorder = defs.get("record_property")
        if recorder and getattr(recorder[-1].func, "__self__", None) is not self:
            return False                  # a record_property of the suite's own: pytest runs it
        return all(m.name in MARKERS for m in item.iter_markers())

    def _run_light(self, item, light: _LightCall, watched: bool) -> None:
        """WATCHED: under guards.watch (the backstop of a grader-side hang), which this check tells
        when it runs (guards._RUNNING); otherwise no backstop of ours (guards.backstop_is_ours)."""
        started = time.perf_counter()
        student = self._student
        try:
            check = self._setup(item, started)
        except (Exit, KeyboardInterrupt):
            raise
        except BaseException:       # noqa: BLE001 -- as pytest: a setup's exception is the check's verdict
            self._record(item, _Called(pytest.ExceptionInfo.from_current()), started=started)
            return
        traced = self.light_verdicts and verdicts.traceable(student)
        if traced:
            verdict = self.verdicts.replay(item, student)
            if verdict is not None:         # (the check's own verdict on these answers: verdicts.py)
                failure = verdict.failure
                if failure is None:
                    self._record_pass(item, check, started, verdict.trivial)
                else:
                    _TRIVIAL[0] = verdict.trivial
                    self._record(item, _Called(_Raised(failure)), check, started)
                return
            verdicts.start(student)
        kwargs = light.params.copy()
        for name in light.fixtures:
            kwargs[name] = (self._student if name == "student" else self._reference if name == "reference"
                            else self.assignment if name == "assignment"
                            else lambda key, value: item.user_properties.append((key, value)))
        running = guards._RUNNING
        try:
            if watched:
                running[0] = started
            light.function(**kwargs)
            running[0] = None
        except (Exit, KeyboardInterrupt):
            running[0] = None
            if traced:
                verdicts.stop(student)
            raise
        except BaseException:       # noqa: BLE001 -- as pytest: a check's exception is its verdict
            running[0] = None
            info = pytest.ExceptionInfo.from_current()
            if traced:
                self.verdicts.end(item, student, _TRIVIAL[0], info.value)
            self._record(item, _Called(info), check, started)
            return
        if traced:
            self.verdicts.end(item, student, _TRIVIAL[0])
        self._record_pass(item, check, started, take_trivial())

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
        if self.load_failure:
            raise Fail(self.load_failure, show_values=False)
        for name in check.depends:
            earlier = self.by_name.get(name, [])
            failed = [r for r in earlier if r.status != "passed"]
            if failed:
                pytest.skip(f"can't check until \"{failed[0].name}\" passes")
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

    def _record(self, item: pytest.Item, call, check: _Check | None = None, started: float | None = None) -> None:
        """ITEM's result (CHECK: its _check; STARTED: when its setup began, else _started's)."""
        if check is None:
            check = self._check(item)
        exc = call.excinfo.value if call.excinfo else None
        if started is None:
            started = self._started.get(check.nodeid)
        if exc is None:             # (passed: the usual case, none of the tests below)
            self._record_pass(item, check, started, take_trivial())
            return
        problem, points, hidden, stage, name = check.problem, check.points, check.hidden, check.stage, check.title
        hint, aspect = "", None
        if isinstance(exc, Fail):
            status, output, hint, score = "failed", exc.render(hidden=hidden), exc.hint or "", 0.0
            aspect = exc.aspect
            if hidden and self._repeats_chosen_text(output):
                output, hint = HIDDEN_WITHHELD, ""
        elif call.excinfo and call.excinfo.errisinstance(pytest.skip.Exception):
            status, output, score = "skipped", f"Skipped: {exc.msg}", 0.0
            aspect = getattr(exc, "aspect", None)           # engine/charge.py skip(..., aspect)
        elif isinstance(exc, pytest.fail.Exception) and str(exc).startswith("Timeout"):
            status, output, score = "failed", "This check took too long and was stopped.", 0.0
        else:
            status, score = "error", 0.0
            output = "The grader hit an internal error on this check (not your fault); tell your instructor."
            detail = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
            kind = "grader fault" if isinstance(exc, GraderFault) else "grader error"
            self.internal_errors.append(f"{check.nodeid}: {kind}\n{detail}")
            print(f"[autograder] {kind} in {check.nodeid}:\n{detail}", file=sys.stderr)
        if status in ("failed", "skipped") and check.own:
            earlier = next((r for r in self.results if 0 < r.stage < stage and r.score < r.max_score), None)
            works = any(r.problem == problem and r.status == "passed" and id(r) not in self._trivial
                        for r in self.results)   # a do-nothing function passing proves nothing
            if earlier is not None and works:   # the bug already cost points in its own stage: not again
                status, score, hint = "passed", points, ""
                output = (f"Not charged: this check runs your own functions of earlier stages, and "
                          f"\"{earlier.name}\" already cost points in stage {earlier.stage}.")
        # (its fields in their order, positionally: ~1 us a check less than by keyword)
        result = TestResult(name, problem, stage, score, points, status, output, "hidden" if hidden else "visible",
                            hint, _elapsed(started), check.nodeid)
        self._keep(result, check, take_trivial(), aspect)

    def _record_pass(self, item: pytest.Item, check: _Check, started: float | None, trivial: bool) -> None:
        """A passed check's row (TRIVIAL: its take_trivial; STARTED: when its setup began, None:
        unknown), the row _record makes of a pass without the branches of a failure (most checks
        pass).  A passed check may still say something: record_property("feedback", text)."""
        props = item.user_properties
        output = "\n".join(str(v) for k, v in props if k == "feedback") if props else ""
        points = check.points
        result = TestResult(check.title, check.problem, check.stage, points, points, "passed", output,
                            "hidden" if check.hidden else "visible", "", _elapsed(started), check.nodeid)
        self._keep(result, check, trivial)

    def _keep(self, result: TestResult, check: _Check, trivial: bool, aspect: str | None = None) -> None:
        """RESULT, CHECK's row, added to this submission's, with what is read of it after the checks
        (no_points_for_nothing, excuse_repeats) and by a later check's depends (by_name)."""
        rid = id(result)
        if trivial:
            self._trivial.add(rid)
        self._family[rid] = check.kin
        self._called[rid] = self._own_calls(check.problem)
        if aspect:
            self._aspect[rid] = aspect
        self.results.append(result)
        self.by_name.setdefault(check.family, []).append(result)
        if check.name != check.family:   # "test_x[param]": one parameter
            self.by_name.setdefault(check.name, []).append(result)

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

    def _repeats_chosen_text(self, output: str) -> bool:
        """True when hidden feedback would repeat a name or text the student's program chose
        (a backstop: the suites compose hidden feedback from grader text already)."""
        chosen = getattr(self._student, "chosen_texts", None) or ()
        return any(text in output and re.search(rf"(?<!\w){re.escape(text)}(?!\w)", output) for text in chosen)

    def _own_calls(self, problem: int) -> frozenset[str]:
        """The functions of PROBLEM (its row of the table) the check that just ran called in the
        student's program ("Class.method" counts as "method"); empty when it called none of them."""
        mine = self._functions.get(problem)
        if mine is None:            # the problem's row, as bare names (once per session)
            try:
                listed = self.assignment.problem(problem).functions
            except KeyError:
                listed = ()
            mine = self._functions[problem] = frozenset(name.rsplit(".", 1)[-1] for name in listed)
        if not mine:
            return frozenset()
        called = getattr(self._student, "called", None) or ()
        for name in called:         # (a loop: a generator here was ~1 us a check)
            if "." in name:
                called = {name.rsplit(".", 1)[-1] for name in called}
                break
        return mine.intersection(called)

    def no_points_for_nothing(self) -> None:
        """A passed check that a function doing nothing would pass (it expects None, 0, an empty
        value or an exception) counts only when a check of the same function and problem with a
        real answer passed too.  "The same function": a check of the same test and problem that
        called one of the same functions of the problem's row (a test parametrized over the two
        functions of one problem, threeOfAKind and fourOfAKind, does not let one vouch for the
        other).  A function no real-answer check calls at all (check_dice: None or an exception)
        is vouched for by any real pass of its test and problem, and a real pass that called none
        of the problem's functions itself (is_straight through calculate_score) vouches for all."""
        trivial = self._trivial
        doubted = [r for r in self.results if r.status == "passed" and id(r) in trivial] if trivial else []
        if not doubted:
            return
        families = {self._family[id(r)] for r in doubted}      # (only theirs are asked below)
        tried: dict[tuple[str, int], set[str]] = {}                  # functions real answers ask of
        passed: dict[tuple[str, int], list[frozenset[str]]] = {}
        for r in self.results:
            if id(r) not in trivial and (family := self._family[id(r)]) in families:
                called = self._called.get(id(r), frozenset())
                tried.setdefault(family, set()).update(called)
                if r.status == "passed":
                    passed.setdefault(family, []).append(called)

        def vouched(r) -> bool:
            family = self._family[id(r)]
            mine = self._called.get(id(r), frozenset()) & tried.get(family, set())
            return any(not mine or not theirs or mine & theirs for theirs in passed.get(family, ()))

        for r in doubted:
            if not vouched(r):
                r.status, r.score = "failed", 0.0
                r.output = ("Not counted yet: a function that does nothing would pass this check too; it "
                            "counts once a check of the same function with a real answer passes.")

    def _stage_of(self, problem: int) -> int:
        try:
            return self.assignment.problem(problem).stage
        except KeyError:
            return 0


def _elapsed(started: float | None) -> float:
    """Seconds since STARTED (a check's setup), as a row records them; 0 when it is unknown."""
    return 0.0 if started is None else round(time.perf_counter() - started, 4)


@dataclass(frozen=True)
class _LightCall:
    """How the light runner calls a check, read once per session: its test function, its
    parameters and the plugin's fixtures it asks for (in its arguments' order)."""
    function: object
    params: dict                # its parameters' values by name (copied for each call)
    fixtures: tuple             # the plugin's fixtures it asks for
    nodeid: str


def _light_call(item) -> _LightCall:
    params = getattr(getattr(item, "callspec", None), "params", {}) or {}
    names = item._fixtureinfo.argnames
    return _LightCall(function=item.obj, params={n: params[n] for n in names if n in params},
                      fixtures=tuple(n for n in names if n not in params), nodeid=item.nodeid)


@dataclass(frozen=True)
class _Called:
    """What _record reads of a light check's phase (pytest's CallInfo without its clocks)."""
    excinfo: pytest.ExceptionInfo | None


_PASSED = _Called(None)


class _Raised:
    """What _record reads of an exception a check raised, given again (verdicts.Verdict.failure)."""
    __slots__ = ("value",)

    def __init__(self, value: BaseException) -> None:
        self.value = value

    def errisinstance(self, kind) -> bool:
        return isinstance(self.value, kind)


def _has_ini(session, name: str) -> bool:
    try:
        session.config.getini(name)
    except ValueError:
        return False
    return True


def _plan_of(recorded) -> dict[str, list]:
    plan: dict[str, list] = {}
    for item, request in recorded:
        plan.setdefault(item, []).append(request)
    return plan


def test_title(item: pytest.Item, problem: int) -> str:
    """"P3 Full House: five of a kind is not a full house" from the docstring and the param id."""
    doc = (getattr(item, "function", None).__doc__ or "").strip().splitlines()
    title = doc[0].rstrip(".") if doc else getattr(item, "originalname", item.name)
    callspec = getattr(item, "callspec", None)
    if callspec is not None and callspec.id:
        title = f"{title}: {callspec.id}"
    return f"P{problem} {title}" if problem else title
