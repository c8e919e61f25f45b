"""A variant's planned calls tried in the student's own sandbox first (a part of the plan run
ahead: ahead.py).  Tries is a mixin of ahead.Plan (so of Program: the state is Program's, set in
its __init__); docs/threat-model.md, "Substitution only where it is needed (a try)"."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from .keys import _PLAN_KEYS_MAX
from .protocol import by_identity
from .sandbox import Request

if TYPE_CHECKING:
    from .ahead import _Part
    from .program import Program


class Tries:
    """Program's tries (a mixin of ahead.Plan)."""

    def _tries(self, parts: list[tuple[Program, _Part]]) -> set[int]:
        """The ids of the variants (of PARTS) tried in this sandbox first (_may_try), so that this
        life still runs no public request after a hidden one: a part with public requests is not
        tried once a hidden request may have run here (an earlier try's), nor at all when this
        sandbox's own part has public requests that could not run before the tries (not all
        fresh: _fresh_before_try moves only fresh ones)."""
        keys = self.public_keys
        own = next((part for target, part in parts if target is self), None)
        if own is not None and own.classes(keys)[0] and not all(own.fresh):
            return set()
        ran_hidden = self.hidden_ran
        tried: set[int] = set()
        for target, part in parts:
            if target is self or not self._may_try(target, part):
                continue
            public, hidden = part.classes(keys)
            if public and ran_hidden:
                continue
            tried.add(id(target))
            ran_hidden = ran_hidden or hidden
        return tried

    # -- a variant's calls tried in the student's own sandbox ------------------------------------
    # A substituting call that never touches a substituted name has the outcome it would have had
    # without the reference.  So a variant whose planned requests are all shared calls of plain
    # functions (a first stage's scoring functions, say) runs them first in this sandbox, which
    # holds no reference, with stand-ins bound to the substituted names (harness targets._stand_ins):
    # in a worker of their own (the clean fresh runner there is, else a fork: the plan's fresh
    # requests of this sandbox run before the try, _fresh_before_try), begun where this sandbox ran
    # nothing but fresh requests (its files as a new life's), and ended leaving it as before but
    # for that runner (Zygote.end_aside; the next fresh request forks one).  Their outcomes
    # count only when the whole tried run was clean: every call ran, in one worker never replaced
    # (a stand-in touched, a timeout, threads, memory: the zygote replaces it), no file left.
    # Otherwise they are dropped unseen and uncharged, and the variant runs in its own sandbox
    # exactly as it would have (the same requests, order and budget).  No check reads a tried
    # outcome before the whole run is known good: they are handed over only then.

    def _fresh_before_try(self, parts: list[tuple[Program, _Part]], tried: set[int]) -> int:
        """This sandbox's part of a plan (in PARTS: (sandbox's Program, _Part)), when it is all
        fresh requests planned after a part tried here (TRIED: their variants' ids), run before
        the try: the fresh runner that served them (clean, checked) then serves the try as its
        worker (harness Zygote.runner_as_worker), one fork less than a worker of the try's own.
        Returns how many ran and count (they are then skipped where the plan has them: _prefetch).
        Only the first ones that have a trial (the reference answered them) are moved.

        Their outcomes count like a try's: only the first ones that ended cleanly (no timeout,
        no trial run out, no backstop), whose outcome is the one the plan's order gives (a fresh
        outcome depends on its request alone; a trial that ended under this limit ends under the
        plan's, which the parts between can only raise).  From the first other one on they are
        dropped unseen and uncharged, and run where the plan has them, with what the parts
        between learnt (their trials' limits, the loops they saw, the budget they left).  Not
        done for a program that has used half its time budget (the parts between get what the
        counted ones spent: the same budget, spent in another order) or met a timeout or a slow
        request (a counted one's limit could differ from the plan's)."""
        own = next((i for i, (target, _) in enumerate(parts) if target is self), None)
        first = next(i for i, (target, _) in enumerate(parts) if id(target) in tried)
        if (own is None or own < first or not all(parts[own][1].fresh) or self._fresh_ahead or self._fresh_hidden
                or self.hidden_ran):
            return 0
        left = self._budget_left()
        if (left is not None and left < self.limits.budget_s / 2) or self.timeouts or self.loops or self.slow_seen[0]:
            return 0
        part = parts[own][1]
        keys = self.public_keys     # (only its public requests: the hidden ones run after the tries)
        public = [i for i, key in enumerate(part.keys) if key in keys]
        requests = [part.requests[i] for i in public]
        ref = (self._owner or self).timing
        cpus = part.cpus(ref) if ref is not None else [None] * len(part.requests)
        limits = [self._trial_limit_at(r, cpus[i]) for r, i in zip(requests, public)]
        trials = limits.index(None) if None in limits else len(limits)    # (a dropped one costs a trial's
        if not trials:                                                      # bound at most, never a limit)
            return 0
        sandbox = self._sandbox
        kept = sandbox.retry_state
        self.round_trips += 1
        outcomes = sandbox.run_batch(requests[:trials], budget=left, limits=limits[:trials], planned=True)
        good = 0
        while good < len(outcomes) and outcomes[good].status in TRIED_STATUSES and not outcomes[good].wall_stopped:
            good += 1
        if good < len(outcomes):
            sandbox.retry_state = kept    # (the dropped ones' aside)
        counted = outcomes[:good]
        self.runs += good
        self._charge(counted)
        for i, outcome in zip(public, counted):
            self._hold_fresh(part.keys[i], outcome)
        return good

    def _may_try(self, variant: Program, part: _Part) -> bool:
        """Whether VARIANT's PART (of a plan: _parts_of) may be tried in this sandbox first."""
        if (not TRY_ASIDE or variant.runs or variant._shared_ahead or variant._fresh_ahead or variant._history
                or variant._shared_hidden or variant._fresh_hidden
                or variant._sandbox.starts or not self._sandbox.applied.get("fresh_runner")
                or not self._sandbox.applied.get("private_tmp")     # (the zygote would refuse it)
                or self._shared_ahead or self._history):
            return False
        return part.tryable     # (never what the tries of other students did: "Tries per student" below)

    def _try_aside(self, variant: Program, part: _Part) -> bool:
        """PART (VARIANT's planned shared calls, of a plan: _parts_of) tried in this sandbox (see
        above): True when its outcomes were good and are VARIANT's now, as if its own sandbox had
        run them."""
        from .trials import TRIAL_FACTOR, TRIAL_FLOOR_S  # (trials.py imports this module)

        # What the reference took on these calls (those it answered) measures a try's cost: the
        # zygote kills a try's worker at ALLOWANCE after the try began (that fails it, that's all).
        # Its requests keep their own limits: a program that reads its run's limit (the harness's
        # request, through the stack) sees the one it would see in the variant's own sandbox.
        ref = (self._owner or self).timing
        took = sum(t for t in part.cpus(ref) if t is not None) if ref is not None else 0.0
        allowance = max(TRIAL_FLOOR_S, TRIAL_FACTOR * took)
        left = self._budget_left()
        budget = allowance if left is None else min(left, allowance)
        sandbox = self._sandbox
        kept = sandbox.retry_state      # (a try leaves them as they were)
        self.round_trips += 1
        keys = self.public_keys       # its public calls first: they run in this life (public first)
        order = sorted(range(len(part.requests)), key=lambda i: part.keys[i] not in keys)
        stand_ins = part.stand_ins()
        if any(part.keys[i] not in keys for i in order):
            self.hidden_ran = True    # (whatever its end: a hidden call ran in this life)
        try:
            outcomes = sandbox.run_batch([stand_ins[i] for i in order], budget=budget, planned=True, aside=True)
        finally:
            sandbox.retry_state = kept
        self.tries[0] += 1
        worker = outcomes[0].worker if outcomes else None
        if (len(outcomes) != len(part.requests) or sandbox.aside_end != "clean" or worker is None or worker[0] != worker[1]
                or any(o.worker != worker or o.status not in TRIED_STATUSES or o.wall_stopped for o in outcomes)):
            return False
        self.tries[1] += 1
        variant.round_trips += 1
        variant.runs += len(outcomes)
        variant._charge(outcomes)
        variant._aside = True
        for i, outcome in zip(order, outcomes):
            key = part.keys[i]
            (variant._shared_ahead if key in keys else variant._shared_hidden).append((key, part.requests[i], outcome))
        return True


def _own_after_tries(parts: list[tuple[Program, _Part]], own: Program, tried: set[int],
                     public_keys: frozenset[str]) -> list[tuple[Program, _Part]]:
    """PARTS with OWN's part (it has hidden requests) moved after the last part tried in its
    sandbox: a hidden request of its own runs there after the tries' public calls, not before
    (its public ones move before the tries: Tries._fresh_before_try)."""
    at = next((i for i, (target, _) in enumerate(parts) if target is own), None)
    last = max(i for i, (target, _) in enumerate(parts) if id(target) in tried)
    if at is None or at > last or not parts[at][1].classes(public_keys)[1]:
        return parts
    return parts[:at] + parts[at + 1:last + 1] + [parts[at]] + parts[last + 1:]


# A try's outcomes count only with one of these statuses (the harness's clean ones: nothing left
# behind).  A try runs at most max(TRIAL_FLOOR_S, TRIAL_FACTOR x the reference's CPU seconds on
# its calls) of wall time (trials.py's: a trial's bound): a slow program pays little for a failed
# try (the slow-but-finite worst case: +0.25 s).
TRIED_STATUSES = frozenset({"ok", "exception", "no_function", "input_exhausted", "dice_exhausted", "exit",
                            "syntax_error", "import_error", "output_limit"})
TRY_ASIDE = True      # False: every variant in its own sandbox from the start (the tests compare both)
_STAND_INS: dict[int, tuple[Request, Request]] = {}
# Tries per student: whether a variant is tried depends on the student's own plan and sandbox
# only, never on the tries of the students graded before it in this process.  (A record of them,
# TRY_LEARN, stopped trying a variant whose tries mostly failed: a classmate who left a file in
# its work folder, which refuses its try, then changed the grade of a later student whose tried
# outcome is not its variant's, a program that evades the clean-state check or detects the
# stand-ins: corpus round3 `unseen_notes_own`, 16.875 alone, 46.875 after five such classmates.)


_TRYABLE: dict[int, tuple[Request, bool]] = {}


def _tryable(r: Request) -> bool:
    """Whether a try may run REQUEST: a shared call of a plain function, substituting plain names."""
    sub = r.substitute
    return not (r.kind != "call" or r.runs_fresh or r.instance is not None or type(r.func) is not str
                or "." in r.func or not isinstance(sub, dict) or sub.get("stand_in")
                or any(type(n) is not str or "." in n for n in (*(sub.get("names") or ()), *(sub.get("keep") or ()))))


def _stand_in(request: Request) -> Request:
    """REQUEST as tried in the student's own sandbox: its substituted names bound to stand-ins
    (harness targets._stand_ins), nothing kept (there is no reference there).  Once per Request
    object (a plan's, never changed: the same objects for every student)."""
    def make() -> Request:
        sub = request.substitute or {}
        return dataclasses.replace(request, substitute={"names": list(sub.get("names") or ()), "stand_in": True})
    return by_identity(_STAND_INS, request, make, _PLAN_KEYS_MAX)
