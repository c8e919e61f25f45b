"""Running a request plan ahead: the Plan part of a Program (the keys of requests: keys.py).

A student's Program can run a request plan ahead (prefetch): the requests a correct program
gets, sent to its sandbox in one round trip.  The checks then read the outcomes when they ask
for the very same request, in the very same order (see program.py's docstring); at the first
difference of the shared calls the worker is replaced and the calls the checks really made are
replayed into the new one (_ahead).

Program (program.py) inherits these methods (and the tries': tries.py); they use its sandbox, its variants (a substituting
request runs in its variant's sandbox) and its trials and budget (trials.py).
"""

from __future__ import annotations

import threading
from collections import deque
from typing import TYPE_CHECKING

from .keys import _PLAN_KEYS_MAX, plan_key, request_key
from .protocol import by_identity
from .sandbox import Outcome, Request
from .tries import _TRYABLE, Tries, _own_after_tries, _stand_in, _tryable

if TYPE_CHECKING:
    from .program import Program


class Plan(Tries):
    """Program's plan bookkeeping (a mixin: the state is Program's, set in its __init__; a variant's
    calls tried in the student's own sandbox first: tries.py)."""

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


def _keep_of(request: Request) -> tuple:
    return tuple(sorted(str(n) for n in (request.substitute or {}).get("keep") or ()))
