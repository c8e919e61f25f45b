"""Running a request plan ahead: the Plan part of a Program (the keys of requests: keys.py).

A student's Program can run a request plan ahead (prefetch): the requests a correct program
gets, sent to its sandbox in one round trip.  The checks then read the outcomes when they ask
for the very same request, in the very same order (see program.py's docstring); at the first
difference of the shared calls the worker is replaced and the calls the checks really made are
replayed into the new one (_ahead).

Program (program.py) inherits these methods; they use its sandbox, its variants (a substituting
request runs in its variant's sandbox) and its trials and budget (trials.py).
"""

from __future__ import annotations

import dataclasses
import threading
from collections import deque
from typing import TYPE_CHECKING

from .keys import _PLAN_KEYS_MAX, plan_key, request_key
from .protocol import by_identity
from .sandbox import Outcome, Request

if TYPE_CHECKING:
    from .program import Program


class Plan:
    """Program's plan bookkeeping (a mixin: the state is Program's, set in its __init__)."""

    def prefetch(self, requests: list[Request]) -> int:
        """Run REQUESTS (the plan of the checks still to come) in one round trip; the outcomes wait
        for the checks.  Returns how many ran (the sandbox stops a plan at an unclean request).
        In every life the plan's public requests run before its hidden ones (_prefetch; "Public
        first" below)."""
        if self._reference is None or not requests:       # (no variants: every request is its own)
            return self._prefetch(requests)
        # One part per sandbox (its own, a variant's), in the order of their first requests
        parts = [(self if part.keep is None else self._variant_of(part.requests[0]), part)
                 for part in _parts_of(requests)]
        if len(parts) > 1 or parts[0][0] is not self:
            tried = self._tries(parts)
            if tried:
                parts = _own_after_tries(parts, self, tried, self.public_keys)
            # The parts run one after another (each with the budget the ones before it left), but
            # the later sandboxes start meanwhile: a start (~10-30 ms of forks, mounts, the
            # zygote's snapshot) overlaps the batch before it instead of following it.  A part
            # tried in this sandbox first (_try_aside) starts its own only if the try fails.
            starter = _start_all([target._sandbox for target, _ in parts[1:] if id(target) not in tried])
            try:
                early = self._fresh_before_try(parts, tried) if tried else 0
                return early + sum(len(part.requests) if id(target) in tried and self._try_aside(target, part)
                                   else target._prefetch(part.requests, part) for target, part in parts)
            finally:
                starter.join()
        return self._prefetch(requests, parts[0][1])

    # -- public first ------------------------------------------------------------------------------
    # No request whose outcome a public check shows runs in a life after a request of a hidden
    # check (docs/threat-model.md, "Public first"): whatever a hidden request saw (its arguments,
    # scripted answers, dice) the program can keep in its life (files of its work folder, the
    # shared worker's or the fresh runner's memory, notes the clean-state check does not see) and
    # print later.  A planned request is public when a public check reads its outcome (its key in
    # the plan's PUBLIC entry: public_keys), or when the check asking it is public (public_check);
    # hidden otherwise.  Each life runs its plan's public requests first (_prefetch, _try_aside,
    # the own part after the tries: _own_after_tries); an outcome is served to a public request
    # only when it ran before any hidden request of its life (_fresh_ahead, _shared_ahead; the
    # hidden ones wait in _fresh_hidden, _shared_hidden); a public request that is not so served
    # runs where no hidden request ran: this life while none did, else its public twin
    # (_public_life: the same variant, a life of its own that only ever runs public requests).

    def _public(self, key: str | None, request: Request | None) -> bool:
        """Whether a request (KEY: its request_key, or None: made from REQUEST) is public now."""
        owner = self._owner or self
        if owner.public_check[0] or self._public_only or owner._public_keys is None:
            return True
        return (key if key is not None else request_key(request)) in owner._public_keys

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

    def _prefetch(self, requests: list[Request], facts: _Part | None = None, held: bool = False) -> int:
        """(FACTS: REQUESTS' _Part, when they are one.)  The public ones first, then the hidden ones;
        no public one once a hidden request ran in this life (they run on demand: _run_here).  HELD:
        the plan's rest (_rebatch), after the public outcomes still held (they come first in it)."""
        if self._shared_hidden or (self._shared_ahead and not held):
            return 0
        keys = facts.keys if facts is not None else [plan_key(r) for r in requests]
        fresh = facts.fresh if facts is not None else [r.runs_fresh for r in requests]
        held = self._fresh_ahead or self._fresh_hidden
        public_keys = ALL if self._public_only else self.public_keys
        first: list[tuple[Request, str, bool, int]] = []
        last: list[tuple[Request, str, bool, int]] = []
        for i, (r, k, f) in enumerate(zip(requests, keys, fresh)):
            if held and f and (k in self._fresh_ahead or k in self._fresh_hidden):
                continue
            (first if k in public_keys else last).append((r, k, f, i))
        if self.hidden_ran:
            first = []
        keyed = first + last
        if not keyed:
            return 0
        self.round_trips += 1
        # Trials for fresh requests only: a shared call that ran out would need the worker's history
        # replayed, which the single run (_after_trial) does; the plan's shared calls run at their limit.
        todo = [r for r, _, _, _ in keyed]
        ref = (self._owner or self).timing
        if facts is not None and ref is not None and self._cache is None:
            cpus = facts.cpus(ref)
            limits = [self._trial_limit_at(r, cpus[i]) if f else None for r, _, f, i in keyed]
        else:
            limits = [self._trial_limit(r, planned=True) if f else None for r, _, f, _ in keyed]
        outcomes = self._sandbox.run_batch(todo, budget=self._budget_left(), limits=limits, planned=True,
                                           public=len(first))
        if last and len(outcomes) >= len(first):
            self.hidden_ran = True        # (the sandbox began the hidden ones only after every public one)
        if outcomes and limits[len(outcomes) - 1] is not None:
            n = len(outcomes) - 1
            outcomes[-1], _ = self._after_trial(todo[n], outcomes[-1], limits[n], public=n < len(first))
        self.runs += len(outcomes)
        self._charge(outcomes)
        # A batch stopped by a timeout: the plan's rest waits for the checks' next request (_rebatch)
        self._rest = ([(r, k, f, i >= len(first)) for i, (r, k, f, _) in enumerate(keyed) if i >= len(outcomes)]
                      if outcomes and len(outcomes) < len(keyed) and outcomes[-1].status == "timeout" else [])
        for index, ((request, key, runs_fresh, _), outcome) in enumerate(zip(keyed, outcomes)):
            if outcome.status == "timeout":
                self.timeouts += 1
                self._note_loop(outcome)
            public = index < len(first)
            if runs_fresh:
                self._hold_fresh(key, outcome, public)
            else:
                (self._shared_ahead if public else self._shared_hidden).append((key, request, outcome))
        return len(outcomes)

    # -- after a batch stopped at a timeout ------------------------------------------------------
    # The requests of its plan after the timeout did not run.  When the checks then ask one of them
    # that nothing holds (every outcome held was served), the plan's rest runs ahead again from
    # that one, in one batch (_prefetch: public first, so in this life the rest's public requests
    # run before the first hidden one asked, and no public one after it: no public twin for them),
    # instead of one request at a time.  Left out: what the checks skipped (the rest before the one
    # asked, public ones aside when a hidden one is asked) and the calls a check skips by itself
    # (call_or_skip: a function that ran out of time, or one that calls it).  A request the checks
    # ask that is not in it runs on its own as before; the outcomes are served by the same rules
    # (the same request, the shared calls in their order), so no check sees anything it would not.

    def _rebatch(self, key: str, public: bool) -> bool:
        """Whether the plan's rest (_rest) ran ahead again from KEY (a request the checks ask, PUBLIC
        or not, that nothing held): then _ahead serves it."""
        rest, self._rest = self._rest, []
        at = next((i for i, (_, k, _, hidden) in enumerate(rest) if k == key and hidden != public), None)
        if at is None or self._shared_hidden or (public and self._shared_ahead):
            return False        # (a hidden one asked: public outcomes held stay first, in their order)
        owner = self._owner or self
        asked = rest[at][0]
        todo = [r for i, (r, _, _, hidden) in enumerate(rest)
                if r is asked or ((i > at or (not public and not hidden)) and not owner.skips(r))]
        return self._prefetch(todo, held=True) > 0

    def skips(self, request: Request) -> bool:
        """Whether a check would skip REQUEST as call_or_skip does (Program.slow, with REQUEST's
        own substitution): a call of a function that ran out of time, or of one that calls it
        ([calls]) and is not substituted."""
        if not self.timed_out or request.kind != "call" or type(request.func) is not str:
            return False
        return self.slow(request.func, set((request.substitute or {}).get("names") or ())) is not None

    def _hold_fresh(self, key: str, outcome: Outcome, public: bool = True) -> None:
        """OUTCOME of a fresh request run ahead, held for the check that asks KEY (in run order);
        PUBLIC: it ran before any hidden request of this life."""
        table = self._fresh_ahead if public else self._fresh_hidden
        waiting = table.get(key)
        if waiting is None:
            waiting = table[key] = deque()
        waiting.append(outcome)

    def resync(self, requests: list[Request], limit: int = 8) -> None:
        """After the checks left the plan: run the shared calls of the rest of it ahead again.
        Never after a timeout (the suites skip calls of a function that ran out of time, and a
        plan run ahead would spend that time again)."""
        if not self.wants_resync(limit):
            return
        if self._variants:
            mine: list[Request] = []
            theirs: dict[int, list[Request]] = {}
            for r in requests:          # one pass (was one per variant: ~0.1 s a grade in all)
                variant = self._variant_of(r)
                if variant is None:
                    mine.append(r)
                else:
                    theirs.setdefault(id(variant), []).append(r)
            for variant in list(self._variants.values()):
                variant.resync(theirs.get(id(variant), []), limit)
            requests = mine
        if not self._wants_resync(limit):
            return
        self.diverged = False
        shared = [r for r in requests if not r.runs_fresh]
        if shared:
            self.resyncs += 1
            self.prefetch(shared)

    def wants_resync(self, limit: int = 8) -> bool:
        """Would resync() do anything?  (Asked before every check; the usual answer, no, is cheap:
        nothing of the student's, its own or a variant's, ever left its plan.)"""
        if not self._diverging[0]:
            return False
        if self.diverged and self._wants_resync(limit):
            return True
        for variant in self._variants.values():     # (a loop: a generator here was ~2 us a check)
            if variant.diverged and variant._wants_resync(limit):
                return True
        return False

    def _wants_resync(self, limit: int) -> bool:
        return (self.diverged and not self._shared_ahead and not self._shared_hidden and self.resyncs < limit
                and not self.timeouts)

    def _ahead(self, request: Request, key: str, public: bool) -> Outcome | None:
        """REQUEST's outcome run ahead, if the plan holds it for a PUBLIC (or hidden) request."""
        if request.runs_fresh:
            table = self._fresh_ahead if public else self._fresh_hidden
            waiting = table.get(key)
            if waiting:
                outcome = waiting.popleft()
                if not waiting:
                    del table[key]
                return outcome
            return None
        queue = self._shared_ahead if public else self._shared_hidden
        if queue and queue[0][0] == key:
            _, planned, outcome = queue.popleft()
            self._served_one(planned, outcome, not public)
            return outcome
        if not self._shared_ahead and not self._shared_hidden:
            if self._aside and self._history:
                # The plan's calls were served by a try (_try_aside): this sandbox's worker has not
                # served them.  They run in it first, then this one, as after leaving the plan.
                return self._replay(request, public)
            return None
        self.diverged = self._diverging[0] = True
        if public and self.hidden_ran:
            # A public call the plan did not hold: it runs in the public twin (_run_here); this
            # life's worker, and the hidden calls it holds ahead, are left as they are.
            self._shared_ahead.clear()
            return None
        if not public and not queue:
            # A hidden call where the plan's hidden ones did not run (the batch stopped in its
            # public ones): it runs here on its own; the public outcomes held ran before it and
            # stay for the public calls, in their order.
            return None
        # The checks left the plan: the worker served calls they never made.  Replace it and
        # replay the calls they did make, then this one, in one round trip (the public outcomes
        # held stay for a hidden call: they ran before any hidden request).
        if public:
            self._shared_ahead.clear()
        if self._rest or (queue and queue[-1][2].status == "timeout"):
            # (a rest's batch: what it held after this call waits again, in its place: _rebatch)
            self._rest[:0] = [(r, k, r.runs_fresh, not public) for k, r, _ in queue if k != key]
        self._shared_hidden.clear()
        return self._replay(request, public)

    def _replay(self, request: Request, public: bool = True) -> Outcome | None:
        """The calls the shared worker served (its history) in a new worker, then REQUEST: its
        outcome, or None when the replay stopped early (the caller runs it on its own).  Not for
        a PUBLIC request after hidden ones (in this life, or in the history): None, it runs on
        its own (_run_here: here while no hidden request ran in this life, else its public twin)."""
        self._aside = False
        if public and (self.hidden_ran or self._history_hidden):
            return None
        if not public:
            self.hidden_ran = True
        hidden = self._history_hidden or not public
        replay = list(self._history) + [request]
        self.round_trips += 1
        outcomes = self._sandbox.run_batch(replay, reset_worker=True, budget=self._budget_left())
        self.runs += len(outcomes)
        self._charge(outcomes)
        self._forget_history()
        self._served(replay[:len(outcomes)], outcomes, hidden)
        if len(outcomes) == len(replay):
            return outcomes[-1]
        if len(outcomes) < len(replay) - 1:        # the replay itself stopped early: start afresh
            self._forget_history()
        return None                                # the caller runs it on its own

    def _forget_history(self) -> None:
        self._history, self._history_at, self._history_hidden = [], None, False

    def _served(self, requests: list[Request], outcomes: list[Outcome], hidden: bool = False) -> None:
        """Keep the history of the shared worker: the calls its current generation served (HIDDEN:
        some of them may be hidden requests)."""
        for request, outcome in zip(requests, outcomes):
            if not request.runs_fresh:
                self._served_one(request, outcome, hidden)

    def _served_one(self, request: Request, outcome: Outcome, hidden: bool = False) -> None:
        """_served of one shared call (REQUEST, a fresh=False call, and its OUTCOME)."""
        if outcome.worker is None:
            self._forget_history()
            return
        ran_in, after = outcome.worker
        where = (self._sandbox.starts, ran_in)
        if where != self._history_at:
            self._history, self._history_at, self._history_hidden = [], where, False
        self._history.append(request)
        self._history_hidden = self._history_hidden or hidden
        if after != ran_in:
            self._history, self._history_at, self._history_hidden = [], (self._sandbox.starts, after), False

    def drop_plan(self) -> None:
        self._rest = []
        self._fresh_ahead.clear()
        self._shared_ahead.clear()
        self._fresh_hidden.clear()
        self._shared_hidden.clear()
        for variant in self._variants.values():
            variant.drop_plan()


class _Part:
    """A plan's requests for one sandbox (the student's own, or a variant's: KEEP, its kept names
    sorted, as Program._variant_of names it), with what prefetch reads of each, made once per plan
    (_parts_of): the same Request objects, never changed, for every student."""

    __slots__ = ("keep", "requests", "keys", "fresh", "tryable", "_stand_ins", "_cpus")

    def __init__(self, keep: tuple | None) -> None:
        self.keep = keep
        self.requests: list[Request] = []
        self.keys: list[str] = []          # plan_key of each
        self.fresh: list[bool] = []        # runs_fresh of each
        self.tryable = True                # _tryable holds for every one
        self._stand_ins: list[Request] | None = None
        self._cpus: tuple = (None, -1, [])      # (the reference, its cache's size, cpu_time of each)

    def cpus(self, ref: Program) -> list[float | None]:
        """REF's cpu_time of each request (the reference's: trials.py), again only when REF's cache
        changed size (cpu_time's own index is made again only then)."""
        known_ref, size, cpus = self._cpus
        if known_ref is not ref or size != len(ref._cache or ()):
            size = len(ref._cache or ())
            cpus = [ref.cpu_time(r, planned=True) for r in self.requests]
            self._cpus = (ref, size, cpus)
        return cpus

    def classes(self, public_keys: frozenset[str]) -> tuple[bool, bool]:
        """(Whether it has a public request, whether it has a hidden one), by PUBLIC_KEYS."""
        public = sum(1 for key in self.keys if key in public_keys)
        return public > 0, public < len(self.keys)

    def stand_ins(self) -> list[Request]:
        """The requests as a try runs them (_stand_in), made on first use."""
        if self._stand_ins is None:
            self._stand_ins = [_stand_in(r) for r in self.requests]
        return self._stand_ins


def _parts_of(requests: list[Request]) -> list[_Part]:
    """REQUESTS (a plan) in parts by the sandbox each runs in, in the order of their first requests,
    once per plan (by the identity of its requests: kept alive with the entry, so no id is reused)."""
    ids = tuple(map(id, requests))
    entry = _PARTS.get(ids)
    if entry is not None:
        return entry[1]
    parts: dict[tuple | None, _Part] = {}
    for r in requests:
        # (as Program._variant_of picks the sandbox: none substituted, its own; else by the kept names)
        keep = _keep_of(r) if r.substitute else None
        part = parts.get(keep)
        if part is None:
            part = parts[keep] = _Part(keep)
        part.requests.append(r)
        part.keys.append(plan_key(r))
        part.fresh.append(r.runs_fresh)
        part.tryable = part.tryable and by_identity(_TRYABLE, r, lambda r=r: _tryable(r), _PLAN_KEYS_MAX)
    if len(_PARTS) >= _PARTS_MAX:
        _PARTS.clear()
    _PARTS[ids] = (tuple(requests), list(parts.values()))
    return _PARTS[ids][1]


_PARTS: dict[tuple[int, ...], tuple[tuple[Request, ...], list[_Part]]] = {}
_PARTS_MAX = 16


def _own_after_tries(parts: list[tuple[Program, _Part]], own: Program, tried: set[int],
                     public_keys: frozenset[str]) -> list[tuple[Program, _Part]]:
    """PARTS with OWN's part (it has hidden requests) moved after the last part tried in its
    sandbox: a hidden request of its own runs there after the tries' public calls, not before
    (its public ones move before the tries: Plan._fresh_before_try)."""
    at = next((i for i, (target, _) in enumerate(parts) if target is own), None)
    last = max(i for i, (target, _) in enumerate(parts) if id(target) in tried)
    if at is None or at > last or not parts[at][1].classes(public_keys)[1]:
        return parts
    return parts[:at] + parts[at + 1:last + 1] + [parts[at]] + parts[last + 1:]


PUBLIC = "#public"      # a plan's entry: the requests whose outcome a public check reads (public_keys)


class _All(frozenset):
    """The public keys of a Program no grading session classifies (Program.public_keys unset):
    every request is public, as before the rule (nothing there is hidden)."""

    def __contains__(self, key: object) -> bool:
        return True


ALL: frozenset[str] = _All()
_PUBLIC_KEYS: dict[int, tuple[dict, frozenset[str]]] = {}


def public_keys(plan: dict | None) -> frozenset[str]:
    """The request keys of PLAN's public requests (its PUBLIC entry), once per plan object."""
    if not plan:
        return frozenset()
    known = _PUBLIC_KEYS.get(id(plan))
    if known is not None and known[0] is plan:
        return known[1]
    keys = frozenset(request_key(r) for r in plan.get(PUBLIC, ()))
    if len(_PUBLIC_KEYS) >= 8:
        _PUBLIC_KEYS.clear()
    _PUBLIC_KEYS[id(plan)] = (plan, keys)
    return keys


def _start_all(sandboxes: list) -> threading.Thread:
    """A thread starting SANDBOXES one after another (Sandbox.start: each under its own lock, so a
    batch for one waits for its start to end, then runs as it would have)."""
    def start() -> None:
        for sandbox in sandboxes:
            try:
                sandbox.start()
            except Exception:    # noqa: BLE001 -- a sandbox that does not start says so at its first request
                pass
    thread = threading.Thread(target=start, daemon=True, name="sandbox-starts")
    thread.start()
    return thread


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


def _keep_of(request: Request) -> tuple:
    return tuple(sorted(str(n) for n in (request.substitute or {}).get("keep") or ()))


def _stand_in(request: Request) -> Request:
    """REQUEST as tried in the student's own sandbox: its substituted names bound to stand-ins
    (harness targets._stand_ins), nothing kept (there is no reference there).  Once per Request
    object (a plan's, never changed: the same objects for every student)."""
    def make() -> Request:
        sub = request.substitute or {}
        return dataclasses.replace(request, substitute={"names": list(sub.get("names") or ()), "stand_in": True})
    return by_identity(_STAND_INS, request, make, _PLAN_KEYS_MAX)
