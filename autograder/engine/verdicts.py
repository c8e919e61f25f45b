"""Checks as data: a check's passing verdict given again, without running it, to a submission whose
answers to it are the very answers it passed with.

A check is a function of what it reads of the submission.  While the light runner runs a check
(plugin._run_light), the student's Program traces what it reads (Program.trace: each request it
ran, in order, with its outcome) and whether it read anything else of the submission (its source,
its functions, its memo, a derived program: Program.tainted).  A check that passed having read
nothing but its requests' answers, each an ok answer with a content token (outcomes.same_content:
the bounded fields every outcome of the same content shares in this process), leaves a Verdict: its
trace, the student's functions it called and whether a do-nothing function could pass it.

For a later submission the check's Verdict is tried first (Verdict.replays): each traced request's
answer is looked up, without taking it, where the Program would serve it from (the plan run ahead:
ahead.Plan's queues, its own or its variant's), and compared by token.  When every answer is there
and is the same content, the check would make the same requests in the same order and see the same
answers, so it would pass again with the same row: the requests are taken from the plan as the
check would have taken them (Program._run_here: every bookkeeping of a served request, attempts
included), and the plugin records the same passing row.  Anything else (an answer missing from the
plan, another content, a shared call out of its order, a function that ran out of time before, the
reference's plan being recorded) runs the check itself, as always.  So a failure's message is always
the check's own, and a replayed row is byte for byte the row the check would have given.

The contract a check keeps for this (the suites' checks do): what it decides depends on the answers'
content (outcome fields other than elapsed, cpu and wait), the check's own parameters and the
reference; never on timing, module state it changes or other reads of the Program than those
traced or tainted here.
"""

from __future__ import annotations

from dataclasses import dataclass

from .ahead import request_key
from .outcomes import same_content

MAX_TRACE = 64          # requests a traced check may make (a longer one is not kept: rare, and costs)


@dataclass(frozen=True)
class Verdict:
    """A check's passing run, as data: what it read and what it said besides passing."""
    steps: tuple            # (request, its request_key, the answer's content token), in order
    called: frozenset       # the student's functions it called (Program.called)
    trivial: bool           # checks.could_pass_by_doing_nothing was said

    def replays(self, student) -> bool:
        """Whether STUDENT's plan holds this trace's answers, same content, where the check would
        take them; if so they are taken (as the check would) and True."""
        fresh_seen: dict[tuple[int, str], int] = {}
        shared_seen: dict[int, int] = {}
        targets = []
        for request, key, token in self.steps:
            target = student._variant_of(request) or student
            if request.runs_fresh:
                waiting = target._fresh_ahead.get(key)
                n = fresh_seen.get((id(target), key), 0)
                if waiting is None or len(waiting) <= n:
                    return False
                outcome = waiting[n]
                fresh_seen[(id(target), key)] = n + 1
            else:
                ahead = target._shared_ahead
                n = shared_seen.get(id(target), 0)
                if len(ahead) <= n or ahead[n][0] != key:
                    return False
                outcome = ahead[n][2]
                shared_seen[id(target)] = n + 1
            if same_content(outcome) is not token or len(outcome.attempts) != len(token["attempts"]):
                return False
            targets.append(target)
        for (request, key, _), target in zip(self.steps, targets):
            target._run_here(request, key)
        student.called.update(self.called)
        return True


def verdict_of(student, trivial: bool) -> Verdict | None:
    """The Verdict of the check STUDENT's Program just traced (it passed), or None when it read more
    than its answers or an answer has no content token."""
    trace = student.trace
    if student.tainted or student.timed_out or trace is None or len(trace) > MAX_TRACE:
        return None
    steps = []
    for request, outcome in trace:
        token = same_content(outcome)
        if token is None or outcome.status != "ok" or len(outcome.attempts) != len(token["attempts"]):
            return None
        steps.append((request, request_key(request), token))
    return Verdict(tuple(steps), frozenset(student.called), trivial)


def traceable(student) -> bool:
    """Whether a check of STUDENT may be traced or replayed now: a student's Program that records no
    plan (refcache) and has had no function run out of time (call_or_skip would skip)."""
    return student is not None and student.recorded is None and not student.timed_out


def start(student) -> None:
    student.trace = []
    student.tainted = False


def stop(student) -> None:
    student.trace = None

