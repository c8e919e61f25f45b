"""A Program is a submission (or the reference) behind a Sandbox, with the calls tests make.

A student's Program also remembers, for the checks of one submission: values computed once
(memo: a game played once, read by several checks) and the functions that ran out of time
(call_or_skip: a later check that needs one of them, or a function that calls one, per the
assignment's [calls] table, is skipped with a reason instead of waiting again).

Reference programs are shared and their outcomes cached: in a batch the reference runs
once per scenario, however many students are graded (and refcache.py keeps them on disk).

A student's Program can run a request plan ahead (prefetch, ahead.py): the requests a correct program
gets, sent to its sandbox in one round trip.  The checks then read the outcomes when they ask
for the very same request, in the very same order:
* a fresh request's outcome depends only on the request (a fresh fork, a fresh module), so it
  is served whenever the same request is asked;
* a shared (fresh=False) call's outcome may depend on the calls the shared worker served before
  it, so it is served only while the checks ask the plan's shared calls in the plan's order.  At
  the first difference the worker is replaced and the calls the checks really made are replayed
  into the new one (outcomes dropped), so every later call sees exactly the history it would
  have seen without a plan.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections import deque
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from . import bounds, cgroup, lent
from .ahead import ALL, Plan, request_key
from .outcomes import not_another
from .protocol import by_marshal
from .roots import Family
from .sandbox import Limits, Outcome, Request, Sandbox
from .sources import reference_without, top_level_functions
from .trials import Trials

LIMITS_ENV = "AUTOGRADER_LIMITS"
_BY_CALL_MAX = 1 << 13          # Program._by_call entries before it starts again
KNOWN = "memoized"              # a trace's event: a check asked whether a memo is known (verdicts.py)
LOAD_PROBE = "__grader_load_probe__"     # a call of no function: loads the student's file, nothing else
DEFAULT_WALL_S = 2.0    # per call; the reference needs milliseconds (suites give games longer)
DEFAULT_BUDGET_S = 15.0  # all of a student's requests together (a slow-but-finite program: ~170 calls)


def default_limits() -> Limits:
    """Limits(), with the fields named in $AUTOGRADER_LIMITS overridden ("wall_s=1,memory_mb=256").

    Lets an operator (or the kit's own tests) tighten or loosen the limits of every Program a
    process makes, batch workers included (they inherit the environment)."""
    limits = Limits(wall_s=DEFAULT_WALL_S, budget_s=DEFAULT_BUDGET_S)
    text = os.environ.get(LIMITS_ENV, "").strip()
    if not text:
        return limits
    fields = {f.name: f for f in dataclasses.fields(Limits)}
    for item in text.split(","):
        name, _, value = item.partition("=")
        name = name.strip()
        if name not in fields or not value.strip():
            raise ValueError(f"{LIMITS_ENV}: expected NAME=VALUE items with NAME one of "
                             f"{', '.join(fields)}; got {item.strip()!r}")
        kind = float if name in ("wall_s", "budget_s") else int
        try:
            setattr(limits, name, kind(value))
        except ValueError:
            raise ValueError(f"{LIMITS_ENV}: {name} must be a number, got {value.strip()!r}") from None
    return limits


class Program(Plan, Trials):
    """A submission (or the reference) behind a Sandbox: its calls and runs (here), its plan run
    ahead (ahead.Plan), its trials at a short limit and time budget (trials.Trials)."""

    def __init__(self, source: str, filename: str, *, limits: Limits | None = None,
                 hidden_paths: list[str] | None = None, cache: bool = False, label: str = "your program",
                 reference: str | None = None, _sandbox_reference: str | None = None,
                 _owner: Program | None = None):
        self._source = source
        self.filename = filename
        self.label = label
        self.limits = limits or default_limits()
        # REFERENCE (the reference's source) makes substitution possible: a request that
        # substitutes runs in a sandbox of its own per set of kept functions (the stage being
        # graded), holding the reference WITHOUT those functions (reference_without).  So no
        # process of the student's ever holds the reference's code of what it is being graded on,
        # and nothing passes between these sandboxes (each has its own /tmp, worker and uid).
        self._reference = reference
        self._variants: dict[tuple[str, ...], Program] = {}
        self._variant_by_given: dict[tuple, Program] = {}     # the keep list as a check gives it
        self._owner = _owner
        self._sandbox = Sandbox(source, filename, self.limits, hidden_paths=hidden_paths,
                                reference=_sandbox_reference)
        # A student's sandboxes (its own and the variants') fork from one student root (Family).
        self._family = _owner._family if _owner is not None else (
            Family(self._sandbox.hidden_paths) if reference is not None else None)
        self._sandbox.family = self._family
        # Set by the grading plugin for each check: the reference's functions that replace the
        # student's in every call of that check ({"names", "keep"}; needs REFERENCE).
        self.substitute: dict | None = None
        # A retry of a check (instage.py): (the functions its calls also take from the reference, every
        # function the table grades, whether this is the retry's control run: the same life, the
        # student's own versions of them); None outside retries.  Applied in run() on top of what the
        # check substitutes, whoever set it (the plugin, or a suite's own_functions_until).
        self.also: tuple[frozenset[str], frozenset[str], bool] | None = None
        self._also_made: dict[tuple, dict] = {}
        self._cache: dict[str, Outcome] | None = {} if cache else None
        # A caching Program's (the reference's) outcomes by the content of a call's arguments: the
        # checks ask it the same calls for every student, and its cache gives a request's outcome
        # once and for good (run(): a key in the cache returns it, nothing else).  marshal's bytes
        # (protocol.by_marshal) are equal only for equal values of equal types, so equal
        # bytes make equal Requests, whose request_key is equal: the outcome the cache would give,
        # without building the Request and its key again (~200 reference calls a grade).
        self._by_call: dict[bytes, Outcome] = {}
        self.runs = 0
        self.chosen_texts: set[str] = _owner.chosen_texts if _owner else set()   # names and texts the
        #                                      program chose (hidden feedback must not show them)
        self.round_trips = 0
        self.recorded: list[tuple[str, Request]] | None = None   # (item, request) while recording a plan
        self.item = ""                                            # the check asking (set by the plugin)
        self.ran_out: set[str] = set()    # the checks (self.item) a request of which timed out (instage.py)
        # the checks (self.item) served an outcome of a sandbox holding the reference, with the kept
        # functions of each (engine/lent.py: what their rows show); every such outcome's, in order;
        # the memos computed from one
        self.lent_checks: dict[str, set[frozenset[str]]] = {}
        self.lent_log: list[frozenset[str]] = []
        self.lent_memos: dict[Any, set[frozenset[str]]] = {}
        self.own_later: frozenset[str] | None = None    # a confirming run's: kept as the student's (lent.py)
        self.called: set[str] = set()     # functions call() was asked for since the plugin last cleared it
        # Run ahead (ahead.py): the outcomes of public requests that ran before any hidden request
        # of this life, and those of hidden requests (served to hidden requests only: public first)
        self._fresh_ahead: dict[str, deque[Outcome]] = {}
        self._shared_ahead: deque[tuple[str, Request, Outcome]] = deque()
        self._fresh_hidden: dict[str, deque[Outcome]] = {}
        self._shared_hidden: deque[tuple[str, Request, Outcome]] = deque()
        self._rest: list[tuple[Request, str, bool, bool]] = []   # a plan's rest after its batch timed out:
        #                                          (request, key, fresh, hidden) (ahead.Plan._rebatch)
        self._history: list[Request] = []        # shared calls the current shared worker served
        self._history_at: tuple | None = None    # (sandbox start, worker generation) of that worker
        self._history_hidden = False             # ...some of them hidden requests
        # Public first (ahead.py): the keys of the plan's public requests (set by the plugin; None:
        # no request is hidden), whether the check asking now is public (the plugin's, shared with
        # the variants), whether a hidden request ran in this life, and the life a public request
        # runs in once one did (the same variant's public twin: it never runs a hidden request).
        self._public_keys: frozenset[str] | None = None
        self.public_check = [True] if _owner is None else _owner.public_check
        self.hidden_ran = False
        self._public_only = False
        self._public_twin: Program | None = None
        self.public_lives: list[Program] = [] if _owner is None else _owner.public_lives   # twins started
        # Within Program.apart(): every request runs in its life's apart twin, a life of its own that
        # ran none of that life's other requests (shared with the variants, as public_check)
        self.apart_now = [False] if _owner is None else _owner.apart_now
        self._apart_twin: Program | None = None
        self._sandbox_reference = _sandbox_reference
        self.memo_spans: dict[Any, tuple[int, int]] = {}   # recording: a memo's COMPUTE's requests (recorded[a:b])
        self.memo_reads: list[tuple[str, int, int]] = []   # recording: (check, a, b) of each memo read again
        self.resyncs = 0
        self.diverged = False
        self._diverging = [False] if _owner is None else _owner._diverging    # it or a variant ever diverged
        self._aside = False     # its plan's shared calls were served by a try in its owner's sandbox
        self.tries = [0, 0] if _owner is None else _owner.tries    # variants tried aside, and good (ahead.py)
        self.timeouts = 0
        self._spent = [0.0, 0.0] if _owner is None else _owner._spent   # seconds of sandbox requests so
        #                                        far, charged and on the wall clock (the budget; shared
        #                                        with the substitution sandboxes)
        self.attempts: dict[str, None] = _owner.attempts if _owner else {}   # what the code tried beyond
        #                                        the assignment, in order seen
        self._memo: dict[Any, Any] = {}
        self.calls: dict[str, list[str]] = {}    # function -> the functions it calls (assignment [calls])
        self.handout_names: frozenset[str] = frozenset()   # every name the problems give (a did-you-mean
        #                                          never names one of them: outcomes.not_another)
        self.timing: Program | None = None       # the reference Program: its outcomes' CPU times scale
        #                                          this student's trial limits (set by the plugin)
        self.loops: set[tuple] = _owner.loops if _owner else set()   # (function, first line) where a
        #                                        request ran out of its full limit (an endless loop)
        self.trials = [0, 0, 0] if _owner is None else _owner.trials  # trials run, run again, charged short
        self.slow_seen = [0.0] if _owner is None else _owner.slow_seen   # the longest run that finished
        #                                        after its trial ran out (later trials get twice that)
        self._times: tuple[int, dict[str, float | None]] | None = None     # (cache size, cpu_time's index)
        self.timed_out: set[str] = set()         # functions that ran out of time in call_or_skip
        self.loaded_early: tuple[Outcome, int] | None = None   # load_early's (probe, requests run ahead)
        # While the grading plugin traces a check (engine/verdicts.py): the requests it ran and their
        # outcomes, in order; and whether it read anything else of this submission (its source, its
        # functions, its memo): then its verdict is not data of its answers alone.
        self.trace: list[tuple] | None = None    # (Request, Outcome), or a memo's read (verdicts.py)
        self.tainted = False
        self._functions: set[str] | None = None
        self.memo_steps: dict[Any, tuple | None] = {}     # memo key -> what its COMPUTE read (traced), or None
        self.memo_called: set[str] = set()                # functions memos' COMPUTEs called in the traced check

    @property
    def source(self) -> str:
        """The submission's source (a check that reads it is not traced: engine/verdicts.py)."""
        self.tainted = True
        return self._source

    @property
    def can_substitute(self) -> bool:
        """Whether a request of this Program may substitute the reference's functions (a student's
        Program given the reference's source; the reference's own never does)."""
        return self._reference is not None

    @property
    def public_keys(self) -> frozenset[str]:
        """The request keys of the plan's public requests (ahead.py, "public first"); ahead.ALL when
        no grading session set them (every request public)."""
        keys = (self._owner or self)._public_keys
        return ALL if keys is None else keys

    @public_keys.setter
    def public_keys(self, keys: frozenset[str] | None) -> None:
        (self._owner or self)._public_keys = keys

    def _public_life(self) -> Program:
        """This life's public twin: the same variant (source, sandbox reference, hidden paths) in a
        life of its own, started on demand, that only ever runs public requests (ahead.py)."""
        twin = self._public_twin
        if twin is None:
            owner = self._owner or self
            twin = self._public_twin = Program(self._source, self.filename, limits=self.limits, label=self.label,
                                               _sandbox_reference=self._sandbox_reference, _owner=owner)
            twin._sandbox.hidden_paths = list(self._sandbox.hidden_paths)
            twin._public_only = True
            owner.public_lives.append(twin)
        return twin

    def _apart_life(self) -> Program:
        """This life's apart twin (Program.apart): the same variant in a life of its own, started on
        demand, that serves only requests asked within apart() (it keeps public first itself)."""
        twin = self._apart_twin
        if twin is None:
            owner = self._owner or self
            twin = self._apart_twin = Program(self._source, self.filename, limits=self.limits, label=self.label,
                                              _sandbox_reference=self._sandbox_reference, _owner=owner)
            twin._sandbox.hidden_paths = list(self._sandbox.hidden_paths)
            owner.public_lives.append(twin)
        return twin

    @contextlib.contextmanager
    def apart(self) -> Iterator[None]:
        """Within the block, the requests run in a life of their own (one per life they would run in:
        this Program's or a substitution variant's), which ran none of that life's other requests:
        for a check that compares two runs of the program (a game and its twin with other words), so
        the second cannot be made to say what the first said, from memory or the work folder's
        files (round 11, docs/threat-model.md).  Its requests were never run ahead: they run now.
        A check that asks them is not data of its answers (engine/verdicts.py): a replay would look
        for them in the plan of the life they were kept out of."""
        (self._owner or self).tainted = True
        saved, self.apart_now[0] = self.apart_now[0], True
        try:
            yield
        finally:
            self.apart_now[0] = saved

    @property
    def spent(self) -> float:
        return self._spent[0]

    @spent.setter
    def spent(self, value: float) -> None:
        self._spent[0] = value

    def _variant_of(self, request: Request) -> Program | None:
        """The sandbox a substituting request runs in (None: this Program's own)."""
        if not request.substitute or self._reference is None:
            return None
        given = tuple(request.substitute.get("keep") or ())
        variant = self._variant_by_given.get(given)
        if variant is not None:
            return variant
        keep = tuple(sorted(str(n) for n in given))
        variant = self._variants.get(keep)
        if variant is None:
            variant = self._variants[keep] = Program(
                self._source, self.filename, limits=self.limits,
                label=self.label, _sandbox_reference=reference_without(self._reference, keep), _owner=self)
            # its sandbox hides what this one hides: these paths, resolved already (os.path.realpath
            # again, ~30 us a path, would give them back unchanged)
            variant._sandbox.hidden_paths = list(self._sandbox.hidden_paths)
        self._variant_by_given[given] = variant
        return variant

    def run(self, request: Request) -> Outcome:
        if self.own_later is not None and request.substitute:
            request = dataclasses.replace(request, substitute=lent.substitute_own(request.substitute, self.own_later))
        if self.also is not None and request.kind in ("call", "script"):
            request = dataclasses.replace(request, substitute=self._also_substitute(request.substitute))
        variant = self._variant_of(request)
        if self.apart_now[0]:
            outcome = (variant or self)._apart_life()._run_here(request)
        elif variant is not None:
            if self.recorded is not None:
                self.recorded.append((self.item, request))
            outcome = variant._run_here(request)
        else:
            outcome = self._run_here(request)
        if outcome.status == "no_function" and self.handout_names:
            outcome = not_another(outcome, request, self.handout_names)
        if outcome.lent:
            lent.note(self, request)
        if outcome.status == "timeout":
            self.ran_out.add(self.item)
        if self.trace is not None:
            self.trace.append((request, outcome))
        return outcome

    def _also_substitute(self, sub: dict | None) -> dict:
        """SUB (a request's substitution, None: the student's own functions) with the retry's names
        (self.also) no longer kept, so its calls run in the retry's life (the reference without the
        kept ones), and the reference's too unless this is the control run: one dict per case.
        The control run's "own": the dropped functions SUB kept, which the reference's functions
        still call as the student's there (a substituted game loop calling the student's round):
        without it the control would run the reference's round and prove nothing."""
        drop, every, control = self.also
        given = (tuple((sub or {}).get("names") or ()), tuple((sub or {}).get("keep") or ()), sub is None, drop,
                 control)
        made = self._also_made.get(given)
        if made is None:
            names = set(given[0]) if control else set(given[0]) | drop
            kept = every if sub is None else set(given[1])
            made = {"names": sorted(names), "keep": sorted(kept - drop)}
            if control and sub is not None and kept & drop:
                made["own"] = sorted(kept & drop)
            self._also_made[given] = made
        return made

    def _run_here(self, request: Request, key: str | None = None) -> Outcome:
        """(KEY: request_key(REQUEST), when the caller has it.)"""
        if key is None and (self._cache is not None or self._fresh_ahead or self._shared_ahead or self._aside
                            or self._fresh_hidden or self._shared_hidden or self._rest):
            key = request_key(request)      # (_aside: a shared call past a try's plan replays it first)
        if self._cache is not None and key in self._cache:
            return self._cache[key]
        if self.recorded is not None:
            self.recorded.append((self.item, request))
        public = self._public(key, request)
        outcome = self._ahead(request, key, public) if key is not None else None
        if outcome is None and self._rest and key is not None and self._rebatch(key, public):
            outcome = self._ahead(request, key, public)
        if outcome is None:
            outcome = self._over_budget(request)
        if outcome is None:
            if public and self.hidden_ran:         # public first: never after a hidden request here
                outcome = self._public_life()._run_now(request, True)
            else:
                self.hidden_ran = self.hidden_ran or not public
                outcome = self._run_now(request, public)
        if outcome.status == "timeout":
            self.timeouts += 1
            self._note_loop(outcome)
        if outcome.status != "ok" and len(self.chosen_texts) < 1000:
            self.chosen_texts.update(chosen_texts(outcome))
        for attempt in outcome.attempts:
            if len(self.attempts) < 20:
                self.attempts.setdefault(attempt, None)
        if self._cache is not None:
            self._cache[key] = outcome
        return outcome

    def _run_now(self, request: Request, public: bool) -> Outcome:
        """REQUEST run in this Program's sandbox now (not run ahead): its outcome, after its trial."""
        self.runs += 1
        self.round_trips += 1
        left = self._budget_left()
        timeout = request.timeout if request.timeout is not None else self.limits.wall_s
        capped = left is not None and left < timeout
        limit = self._trial_limit(request)
        if capped:
            request = dataclasses.replace(request, timeout=max(left, 0.05))
        outcome = self._sandbox.run(request, limit)
        served = False
        if limit is not None:
            outcome, served = self._after_trial(request, outcome, limit, public)
        self._charge([outcome], capped)      # capped: the budget stopped it, charged in full
        if not served:
            self._served([request], [outcome], not public)
        return outcome

    @property
    def functions(self) -> set[str]:
        """The functions the source defines (parsed on first use: ~10 ms a student otherwise)."""
        self.tainted = True
        if self._functions is None:
            self._functions = top_level_functions(self._source)
        return self._functions

    def load_early(self, plan: Callable[[], list[Request]]) -> None:
        """What the grading plugin does first with a submission (plugin.begin): the load probe
        alone, then, when the file loads, PLAN() (the checks' requests, in their order; asked
        for only then) run ahead.  Done before the plugin asks (grade() runs it in a thread while
        pytest loads and collects the suites); the plugin then reads the probe's outcome from
        loaded_early."""
        probe = self.load_probe()
        requests = plan() if probe.status in ("no_function", "ok") else []
        ran = self.prefetch(requests) if requests else 0
        self.loaded_early = (probe, ran)

    def load_probe(self) -> Outcome:
        """The load probe (LOAD_PROBE: the module loads, no function runs): a FRESH request where
        the sandbox has a fresh runner, so the runner that served it serves the plan's fresh
        requests next and then becomes the shared worker (Zygote.runner_as_worker): one request
        process for the life instead of a shared worker forked for the probe and a runner for the
        plan.  The verdict is the same either way: the file is loaded by the same code (run_call's
        import_module: compile error, exception or exit at import, timeout, prompt, output) with
        no function called; a shared worker would have imported it once for its later calls, and
        the worker the runner becomes imports it at its first call, as a new worker does, from
        the clean state a fresh fork has.  Without a fresh runner (every fresh request a fork of
        its own) the probe stays a shared call: the worker it starts serves the plan's shared calls."""
        try:
            self._sandbox.start()       # (what it got says whether it has a fresh runner)
        except Exception:    # noqa: BLE001 -- a sandbox that does not start says so at the probe itself
            pass
        return self.call(LOAD_PROBE, fresh=bool(self._sandbox.applied.get("fresh_runner")))

    def preload(self, outcomes: dict[str, Outcome]) -> None:
        """Known outcomes (the reference cache) for a caching Program."""
        if self._cache is not None:
            for key, outcome in outcomes.items():
                self._cache.setdefault(key, outcome)

    def outcomes(self) -> dict[str, Outcome]:
        return dict(self._cache or {})

    # -- per-submission memory of the checks ---------------------------------------------------
    @contextlib.contextmanager
    def substituting(self, sub: dict | None) -> Iterator[None]:
        """Within the block, SUB is this Program's substitution (None: its own functions everywhere),
        whatever the check set; the check's is put back after it."""
        saved, self.substitute = self.substitute, sub
        try:
            yield
        finally:
            self.substitute = saved

    def memo(self, key: Any, compute: Any) -> Any:
        """COMPUTE() once per submission for KEY (hashable), then its value for every check that
        asks (an Exception it raised is remembered and raised again).  A memo computed from a lent
        outcome is lent to every check that reads it (engine/lent.py)."""
        start = len(self.lent_log)
        try:
            return self._memo_value(key, compute)
        finally:
            lent.memo(self, key, start)

    def _memo_value(self, key: Any, compute: Any) -> Any:
        if self.trace is not None:
            from .verdicts import traced_memo
            return traced_memo(self, key, compute)
        if key not in self._memo:
            start = len(self.recorded) if self.recorded is not None else 0
            try:
                self._memo[key] = (True, compute())
            except Exception as error:      # noqa: BLE001 -- remembered, raised again to every asker
                self._memo[key] = (False, error)
            if self.recorded is not None:   # recording the plan: what a check reading it again reads
                self.memo_spans[key] = (start, len(self.recorded))
        elif self.recorded is not None and key in self.memo_spans:
            self.memo_reads.append((self.item, *self.memo_spans[key]))
        ok, value = self._memo[key]
        if not ok:
            raise value
        return value

    def memoized(self, key: Any) -> bool:
        """Whether memo(KEY, ...) is known already (it will not call its COMPUTE)."""
        known = key in self._memo
        if self.trace is not None:
            self.trace.append((KNOWN, key, known, None, None))
        return known

    def slow(self, func: str, substituted: set[str] | None = None) -> str | None:
        """FUNC, or a function FUNC calls ([calls] in assignment.toml), that ran out of time in
        an earlier call_or_skip; None when there is none.  A called function the current check
        substitutes (SUBSTITUTED: by default the current check's names, a retry's too; the
        reference's runs instead) does not count: its endless loop was charged in its own stage,
        not again here."""
        if not self.timed_out:          # (the usual answer, before every call_or_skip)
            return None
        if substituted is None:
            substituted = set((self.substitute or {}).get("names") or ())
            if self.also is not None and not self.also[2]:       # (a retry's: instage.py)
                substituted |= self.also[0]
        return next((name for name in (func, *self.calls.get(func, ()))
                     if name in self.timed_out and (name == func or name not in substituted)), None)

    def call_or_skip(self, func: str, *args: Any, **kwargs: Any) -> Outcome:
        """call(), but a check that needs a function that ran out of time before is skipped with
        a reason (pytest.skip) instead of waiting again; a timeout is remembered."""
        slow = self.slow(func)
        if slow is not None:
            import pytest

            pytest.skip(f"can't check: {slow} did not finish in time in an earlier check")
        outcome = self.call(func, *args, **kwargs)
        if outcome.status == "timeout":
            self.timed_out.add(func)
        return outcome

    def call(self, func: str, *args: Any, stdin: list[str] | None = None, seed: int | None = None,
             dice: list[int] | None = None, fresh: bool | None = None, timeout: float | None = None,
             instance: dict | None = None, typed: bool = False, **kwargs: Any) -> Outcome:
        """Call FUNC(*args, **kwargs) in the sandbox.  Calls with input or dice get a fresh process.

        A method of a class the student wrote: FUNC = "Class.method" and INSTANCE = {"init": [constructor
        args], "kwargs": {constructor keyword args}, "state": {attribute: value}} (each optional): the
        sandbox constructs the object (stdin, dice and seed apply to the constructor too), sets the
        attributes, calls the method, and Outcome.state_after holds the object's public attributes
        after the call.  Without INSTANCE, "Class.method" is called on the class (static/class methods).
        A missing class or method is status no_function with a did-you-mean, like a missing function.
        TYPED: tuples, sets and int-keyed dicts go in and come back as such (engine/typed.py: the
        outcome's value, args_after and state_after are in its wire form; typed.decode gives Python)."""
        if fresh is None:
            fresh = stdin is not None or seed is not None or dice is not None
        self.called.add(func)
        if self._cache is None or self.recorded is not None:      # (a student's: no closure to make)
            return self.run(Request("call", func, list(args), kwargs, stdin, seed, dice, fresh, timeout,
                                    self.substitute, instance, typed))

        def run() -> Outcome:
            return self.run(Request("call", func, list(args), kwargs, stdin, seed, dice, fresh, timeout,
                                    self.substitute, instance, typed))

        # the reference: see _by_call
        return by_marshal(self._by_call, (func, args, kwargs, stdin, seed, dice, fresh, timeout, self.substitute,
                                          instance, typed), run, _BY_CALL_MAX)

    def script(self, stdin: list[str] | None = None, seed: int | None = None, dice: list[int] | None = None,
               timeout: float | None = None) -> Outcome:
        """Run the whole file as `python FILE` would, with scripted stdin; with the check's
        substitution put in where the file's main part starts (harness targets.script_parts), so
        the functions of other stages the run calls are the reference's, as in a call."""
        return self.run(Request("script", None, [], {}, stdin, seed, dice, True, timeout, self.substitute))

    def close(self) -> None:
        twins = self.public_lives if self._owner is None else []
        for variant in (*self._variants.values(), *twins):     # all their zygotes stop and exit at
            variant._sandbox.end_input()                        # once, not one after another (~20 ms each)
        self._sandbox.end_input()
        for variant in (*self._variants.values(), *twins):
            variant.close()
        self._sandbox.close()
        if self._owner is None and self._family is not None:
            self._family.close()

    def derived(self, extra_source: str, limits: Limits) -> Program:
        """A new Program: this source with EXTRA_SOURCE appended (grader-written code that runs in
        the same sandbox, e.g. a driver batching many calls), behind the same hidden paths."""
        self.tainted = True
        return Program(self._source + extra_source, self.filename, limits=limits,
                       hidden_paths=list(self._sandbox.hidden_paths), label=self.label)


def chosen_texts(outcome: Outcome) -> set[str]:
    """The strings of OUTCOME that the student's program picked: a non-builtin exception type name,
    an exception message, an exit argument (4+ characters: shorter ones match ordinary words)."""
    error = outcome.error or {}
    found = set()
    kind = error.get("type")
    if isinstance(kind, str) and kind not in bounds.BUILTIN_EXCEPTIONS and len(kind) >= 2:
        found.add(kind)
    for key in ("message",):
        text = error.get(key)
        if isinstance(text, str) and len(text.strip()) >= 4:
            found.add(text.strip()[:200])
    return found


_REFERENCES: dict[tuple[str, float], Program] = {}


def reference_program(path: Path, filename: str, hidden_paths: list[str] | None = None,
                      limits: Limits | None = None) -> Program:
    """The shared, caching Program for the reference solution at PATH."""
    key = (str(path), path.stat().st_mtime)
    program = _REFERENCES.get(key)
    if program is None:
        program = Program(path.read_text(encoding="utf-8"), filename, limits=limits,
                          hidden_paths=hidden_paths, cache=True, label="the reference")
        _REFERENCES[key] = program
    return program


def close_references() -> None:
    """The end of a grading session: its reference Programs closed, and the cgroups kept for its
    sandboxes (cgroup.Group.release) removed."""
    for program in _REFERENCES.values():
        program.close()
    _REFERENCES.clear()
    cgroup.remove_kept()
