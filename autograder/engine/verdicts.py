"""Checks as data: a check's passing verdict given again, without running it, to a submission whose
answers to it are the very answers it passed with.

A check is a function of what it reads of the submission.  While the light runner runs a check
(light.LightRunner._run_light), the student's Program traces what it reads (Program.trace): each request it
ran, in order, with its outcome, and each memo it read (Program.memo: the value, and what its
COMPUTE read, traced when it ran: Program.memo_steps); and whether it read anything else of the
submission (its source, its functions, a derived program, a memo whose COMPUTE was not traced,
raised or made a list, dict or set: Program.tainted; a memo a COMPUTE reads is traced the same way).  A check that passed having
read nothing but answers with a content token (outcomes.same_content: one object per distinct
content of a finished answer in this process, its run's figures aside) leaves a Verdict: those reads, the student's
functions it called itself and whether a do-nothing function could pass it.

For a later submission the check's Verdict is tried first (Verdict.replays): each traced request's
answer is looked up, without taking it, where the Program would serve it from (the plan run ahead:
ahead.Plan's queues, its own or its variant's; a shared call at its place in order), and compared
by token; a memo read is the memo this submission has (computed from answers of the same tokens,
or given by an earlier replay) or, when it has none yet, its COMPUTE's reads looked up the same way.
When every answer is there and is the same content, the check would make the same requests in the
same order, compute the same memos and see the same answers, so it would pass again with the same
row: the requests are taken from the plan as the check would have taken them (Program._run_here:
every bookkeeping of a served request, attempts included), a memo it would have computed is given
the value the traced check computed from the same answers, and the plugin records the same passing
row.  Anything else (an answer missing from the plan, another content, a function that ran out of
time before, the reference's plan being recorded) runs the check itself, as always: a failure's
message is always the check's own, and a replayed row is byte for byte the row the check gives.

The contract a check keeps for this (the suites' checks do): what it decides depends on the answers'
content (outcome fields other than elapsed, cpu and wait), its own parameters, the reference, and
what the Program traces; a memo's COMPUTE likewise, and a memo key names one computation; a memo
value other than a list, dict or set is never changed once made (those are not data here).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from . import lent
from .ahead import request_key
from .feedback import Fail
from .outcomes import same_content
from .program import KNOWN

KEPT = 4                # a check's Verdicts kept (the latest first): passing answers differ between students
MAX_TRACE = 64          # reads a traced check may make (a longer one is not kept: rare, and costs)
MUTABLE = (list, dict, set, bytearray)      # memo values a check may change: never data
_GIVEN = (Fail, pytest.skip.Exception)      # what a check raises that is a verdict of its own


@dataclass(frozen=True)
class Memo:
    """A memo a traced check read: its KEY, its value (PAIR: Program._memo's (ok, value)), what
    its COMPUTE read (STEPS, as Verdict.steps) and the student's functions it called."""
    key: Any
    pair: tuple
    steps: tuple
    called: frozenset


@dataclass(frozen=True)
class Verdict:
    """A check's passing run, as data: what it read and what it said besides passing."""
    steps: tuple            # (request, its request_key, the answer's token, runs_fresh, its variant's keep list
    #                         as Program._variant_by_given has it, or None), a Memo, or (KNOWN, key, known)
    called: frozenset       # the student's functions it called itself (Program.called)
    trivial: bool           # checks.could_pass_by_doing_nothing was said
    failure: BaseException | None = None    # what it raised (a Fail or a skip, its traceback dropped)

    def replays(self, student) -> bool:
        """Whether STUDENT's plan and memos hold this trace's answers, same content, where the
        check would read them; if so they are taken (as the check would) and True."""
        steps = self.steps
        if len(steps) == 1 and type(steps[0]) is tuple and steps[0][0] is not KNOWN:
            return self._replays_one(student, *steps[0])
        takes: list = []                # (target, request, key), or a Memo to give, in the check's order
        if not _there(student, self.steps, {}, takes, set()):
            return False
        memos, memo_steps, called = student._memo, student.memo_steps, student.called
        start = len(student.lent_log)
        for take in takes:
            if type(take) is Memo:          # (after its COMPUTE's reads, taken just before)
                memos[take.key] = take.pair
                memo_steps[take.key] = take
                called.update(take.called)
                if len(student.lent_log) > start:       # (a memo given from lent answers is lent: lent.py)
                    student.lent_memos.setdefault(take.key, set()).update(student.lent_log[start:])
            else:
                target, request, key = take
                if target._run_here(request, key).lent:
                    lent.note(student, request)
        called.update(self.called)
        return True

    def _replays_one(self, student, request, key, token, fresh, keep) -> bool:
        """replays of a trace of one request (most checks): _there and the take of that one step,
        without their lists and sets."""
        target = _target(student, keep)
        if target is None or not _holds(_answer_of(target, key, fresh, 0, target._public(key, request)), token):
            return False
        if target._run_here(request, key).lent:        # (a replayed failure's row reads it: lent.py)
            lent.note(student, request)
        student.called.update(self.called)
        return True


def _there(student, steps, seen: dict, takes: list, given: set) -> bool:
    """Whether STUDENT's plan and memos hold STEPS' answers with their tokens; each answer found, and
    each memo its COMPUTE would make (GIVEN: their keys), is added to TAKES in the check's order.
    SEEN: the answers of the plan looked at already, so a request asked twice is looked for twice."""
    memos = student._memo
    for step in steps:
        if type(step) is Memo:
            known = memos.get(step.key)
            if known is None:
                if step.key in given:
                    continue
                if not _there(student, step.steps, seen, takes, given):
                    return False
                given.add(step.key)
                takes.append(step)
            elif known is not step.pair and not _same_reads(student, student.memo_steps.get(step.key), step.steps):
                return False
            continue
        request, key, token, fresh, keep = step
        if request is KNOWN:
            if (key in memos or key in given) != token:
                return False
            continue
        target = _target(student, keep)
        if target is None:
            return False
        public = target._public(key, request)
        where = (target, key) if fresh else (target, public)    # (a fresh answer is looked for by its key)
        n = seen.get(where, 0)
        if not _holds(_answer_of(target, key, fresh, n, public), token):
            return False
        seen[where] = n + 1
        takes.append((target, request, key))
    return True


def _target(student, keep):
    """The Program whose answers a step reads: STUDENT, or its variant that keeps KEEP (None: no
    such variant yet, so nothing of it was run ahead)."""
    if keep is None or student._reference is None:
        return student
    return student._variant_by_given.get(keep)


def _answer_of(target, key, fresh: bool, n: int, public: bool):
    """TARGET's answer run ahead that a step of KEY reads after N such steps: the N-th fresh one
    waiting under KEY, or the N-th shared one in line when it is KEY's; else None.  PUBLIC: a
    public request's (only answers that ran before any hidden request of its life: ahead.py)."""
    if fresh:
        waiting = (target._fresh_ahead if public else target._fresh_hidden).get(key)
        return waiting[n] if waiting is not None and len(waiting) > n else None
    ahead = target._shared_ahead if public else target._shared_hidden
    return ahead[n][2] if len(ahead) > n and ahead[n][0] == key else None


def _holds(outcome, token) -> bool:
    """Whether OUTCOME (or None: no answer) has the content TOKEN stands for."""
    return (outcome is not None and outcome.__dict__.get("_same") is token
            and len(outcome.attempts) == len(token["attempts"]))


def _same_reads(student, known, steps: tuple) -> bool:
    """Whether KNOWN (Program.memo_steps' entry of a memo this submission has: its COMPUTE's traced
    reads and calls, or the Memo a replay gave) read STEPS' answers."""
    if type(known) is Memo:
        return known.steps is steps or _same_steps(known.steps, steps)
    if known is None or len(known[0]) != len(steps):
        return False
    for event, step in zip(known[0], steps):
        if type(step) is Memo:
            if event[0] is not _MEMO or event[1] != step.key or (
                    event[2] is not step.pair and not _same_reads(student, student.memo_steps.get(step.key), step.steps)):
                return False
        elif step[0] is KNOWN:
            if event[0] is not KNOWN or event[1] != step[1] or event[2] != step[2]:
                return False
        elif len(event) != 2 or same_content(event[1]) is not step[2]:
            return False
    return True


def _same_steps(mine: tuple, steps: tuple) -> bool:
    """Whether two Verdict steps' tuples read the same answers (tokens by identity)."""
    if len(mine) != len(steps):
        return False
    for a, b in zip(mine, steps):
        if type(a) is Memo or type(b) is Memo:
            if type(a) is not type(b) or a.key != b.key or not (a.pair is b.pair or _same_steps(a.steps, b.steps)):
                return False
        elif a[0] is KNOWN or b[0] is KNOWN:
            if a[0] is not b[0] or a[1] != b[1] or a[2] != b[2]:
                return False
        elif a[2] is not b[2] or a[1] != b[1]:
            return False
    return True


def _steps(student, reads) -> tuple | None:
    """READS (a trace: (request, outcome) pairs, memos read, memoized asked) as Verdict steps, or
    None when an answer has no token or a memo is not data."""
    steps: list = []
    for event in reads:
        if event[0] is KNOWN:
            steps.append(event)
        elif event[0] is _MEMO:
            memo = _memo_of(student, event[1], event[2])
            if memo is None:
                return None
            steps.append(memo)
        else:
            request, outcome = event
            token = same_content(outcome)
            if token is None or len(outcome.attempts) != len(token["attempts"]):
                return None
            keep = None if not request.substitute else tuple(request.substitute.get("keep") or ())
            steps.append((request, request_key(request), token, request.runs_fresh, keep))
    return tuple(steps)


def _memo_of(student, key: Any, pair: tuple) -> Memo | None:
    """The memo KEY (its value PAIR) as a Memo step, or None when it is not data: its COMPUTE was not
    traced, was tainted or raised, or its value is a list, dict or set."""
    known = student.memo_steps.get(key)
    if type(known) is Memo:
        return known if known.pair is pair else None
    if known is None or not pair[0] or type(pair[1]) in MUTABLE:
        return None
    reads, called = known
    steps = _steps(student, reads)
    return None if steps is None else Memo(key, pair, steps, called)


def verdict_of(student, trivial: bool, failure: BaseException | None = None) -> Verdict | None:
    """The Verdict of the check STUDENT's Program just traced (it passed, or raised FAILURE), or None
    when it read more than its answers and memos, or an answer has no content token."""
    trace = student.trace
    if student.tainted or student.timed_out or trace is None or len(trace) > MAX_TRACE:
        return None
    steps = _steps(student, trace)
    return None if steps is None else Verdict(steps, frozenset(student.called), trivial, failure)


_MEMO = object()        # a trace's event: (_MEMO, key, the memo's (ok, value))


def traced_memo(student, key: Any, compute: Any) -> Any:
    """Program.memo while a check is traced: the memo's read traced; its COMPUTE, when it runs,
    traced apart (Program.memo_steps: its reads and the functions it called itself; every
    COMPUTE's calls are the check's too, Program.memo_called, at stop)."""
    trace = student.trace
    pair = student._memo.get(key)
    if pair is None:
        outer_called, outer_tainted = student.called, student.tainted
        student.trace, student.called, student.tainted = [], set(), False
        try:
            try:
                pair = (True, compute())
            except Exception as error:      # noqa: BLE001 -- remembered, raised again to every asker
                pair = (False, error)
        finally:
            reads, called, tainted = student.trace, student.called, student.tainted
            student.trace, student.called, student.tainted = trace, outer_called, outer_tainted
            student.memo_called.update(called)
        student._memo[key] = pair
        student.memo_steps[key] = None if tainted else (tuple(reads), frozenset(called))
    trace.append((_MEMO, key, pair))
    ok, value = pair
    if not ok:
        raise value
    return value


class Store:
    """A session's Verdicts, by check (its collected item): a few a check, the latest first."""

    def __init__(self) -> None:
        self._kept: dict[int, tuple[Any, list[Verdict]]] = {}
        self.replayed = 0               # checks given their verdict without running

    def replay(self, item, student) -> Verdict | None:
        """A Verdict of ITEM that STUDENT's answers replay (taken, verdicts.Verdict.replays), or None."""
        known = self._kept.get(id(item))
        if known is None or known[0] is not item:
            return None
        kept = known[1]
        for index, verdict in enumerate(kept):
            if verdict.replays(student):
                self.replayed += 1
                if index:               # (the answers seen last are likely the next ones' too)
                    kept.insert(0, kept.pop(index))
                return verdict
        return None

    def end(self, item, student, trivial: bool, failure: BaseException | None = None) -> None:
        """ITEM, traced on STUDENT's Program, passed (or raised FAILURE): its Verdict kept when it is
        data.  A failure is data when it is the suites' own (a Fail, a skip): not a grader error or
        a timeout, whose rows say more than the exception (traceback, internal errors)."""
        verdict = None
        if not item.user_properties and (failure is None or isinstance(failure, _GIVEN)):
            verdict = verdict_of(student, trivial, failure)
        stop(student)
        if verdict is None:
            return
        if failure is not None:         # (its row reads the exception's fields, never its frames)
            failure.__traceback__ = failure.__context__ = failure.__cause__ = None
        known = self._kept.get(id(item))
        if known is None or known[0] is not item:
            known = self._kept[id(item)] = (item, [])
        known[1].insert(0, verdict)
        del known[1][KEPT:]


def traceable(student) -> bool:
    """Whether a check of STUDENT may be traced or replayed now: a student's Program that records no
    plan (refcache) and has had no function run out of time (call_or_skip would skip)."""
    return student is not None and student.recorded is None and not student.timed_out


def start(student) -> None:
    student.trace = []
    student.tainted = False
    student.memo_called = set()


def stop(student) -> None:
    """The traced check ended: the functions its memos' COMPUTEs called are its calls too."""
    student.trace = None
    if student.memo_called:
        student.called.update(student.memo_called)
    student.memo_called = set()
