"""A submission's trials at a short limit and its time budget: the Trials part of a Program.

A request the reference answered runs first as a trial at a short CPU limit scaled from the
reference's own CPU time on it; one that runs out is run again at the request's own limit before
a timeout counts (unless it is an endless loop already seen).  All of a submission's requests
share one time budget (its own sandbox's and its substitution sandboxes'), so a program that
answers every call just before its limit cannot keep the grader for minutes.

Program (program.py) inherits these methods; they use its sandbox, its reference cache (the
reference's CPU times), its owner (the trials and budget of a substitution sandbox are its
student's) and the shared worker's history kept by the plan (ahead.py).
"""

from __future__ import annotations

import json

from .keys import _KEY, by_content, wire_form
from .protocol import by_identity
from .sandbox import Outcome, Request

# A request the reference answered runs first as a trial at a short CPU limit scaled from the
# reference's own CPU time on it (at least TRIAL_FLOOR_S: ~100x the reference's slowest request);
# a trial that runs out is run again at the request's own limit before a timeout counts, unless
# its timer stopped it in a function where a long run of this student already ran out (_trial).
TRIAL_FLOOR_S = 0.25
TRIAL_FACTOR = 50.0
# Once a request of a submission finished only at its own limit (its trial ran out: slow but
# finite), later trials of that submission get at least SLOW_FACTOR x the time that request took:
# a slow program pays its runs, not a failed trial before each (a trial's outcome is the run's).
SLOW_FACTOR = 2.0
# A request's path outside its process (the zygote, the pipes, the grader) waits for a CPU about as
# its process did while runnable: that much more of its elapsed time is the load's, not charged (_charged).
OUTSIDE_WAIT = 1.0


class Trials:
    """Program's trials and time budget (a mixin: the state is Program's, set in its __init__)."""

    def _trial_limit(self, request: Request, planned: bool = False) -> float | None:
        """The short CPU limit of REQUEST's trial run, or None (no trial: run at its own limit).
        Only requests the reference answered without running out of time get one.  PLANNED:
        REQUEST is a plan's (never changed: keys.plan_key)."""
        owner = self._owner or self
        ref = owner.timing
        if ref is None or self._cache is not None:
            return None
        return self._trial_limit_at(request, ref.cpu_time(request, planned))

    def _trial_limit_at(self, request: Request, cpu: float | None) -> float | None:
        """_trial_limit's answer given the reference's CPU seconds on REQUEST (CPU: cpu_time's)."""
        if cpu is None:
            return None
        limit = max(TRIAL_FLOOR_S, TRIAL_FACTOR * cpu, SLOW_FACTOR * self.slow_seen[0])
        own = request.timeout if request.timeout is not None else self.limits.wall_s
        return limit if limit < own else None

    def cpu_time(self, request: Request, planned: bool = False) -> float | None:
        """(A caching Program: the reference.)  The CPU seconds its run of REQUEST took, whatever
        limit or substitution the request names; None when it never ran it or it ran out of time.
        PLANNED: REQUEST is a plan's, its key made once per object (by_identity)."""
        if self._cache is None:
            return None
        if self._times is None or self._times[0] != len(self._cache):
            times: dict[str, float | None] = {}
            # A snapshot (list() of a dict's items: one C call, atomic under the GIL): a grade-all
            # worker's thread loading the next submission ahead asks this while the grading
            # thread's checks may add the reference's outcome of a request it had not run yet.
            cache = list(self._cache.items())
            for outcome_key, outcome in cache:
                data = json.loads(outcome_key)
                plain = _timing_key(data)
                cpu = None if outcome.status == "timeout" else outcome.cpu
                times[plain] = None if plain in times and (times[plain] is None or cpu is None) \
                    else max(times.get(plain) or 0.0, cpu or 0.0)
            self._times = (len(cache), times)
        if planned:
            return self._times[1].get(by_identity(_PLANNED_TIMING_KEYS, request, lambda: _timing_key_of(request),
                                                  _PLANNED_MAX))
        return self._times[1].get(_timing_key_of(request))

    def _after_trial(self, request: Request, trial: Outcome, limit: float,
                     public: bool = True) -> tuple[Outcome, bool]:
        """REQUEST's outcome after its TRIAL: the trial's, unless it ran out of time; then the
        trial's timeout counts only when its timer stopped it in a function where a full-limit run
        of this student already ran out (the same endless loop: it would only run out again); any
        other runs again at the request's own limit, as without trials.  A shared call runs again
        in a new shared worker after the calls the old one served (the trial's timeout ended it),
        so it sees the history it would have seen; not a PUBLIC one whose history holds hidden
        requests (ahead.py, public first): it runs alone.  Returns (outcome, whether _served was done)."""
        self.trials[0] += 1
        if trial.status == "timeout" and trial.wall_stopped and (request.runs_fresh or not self._history):
            # Starved under its short limit (a busy machine, not a slow program): the trial once
            # more with a longer backstop, not a full-limit run that an endless loop would use up.
            trial = _after(trial, self._sandbox.run(request, limit, longer=True))
        if trial.status != "timeout":
            return trial, False
        if trial.endless or (trial.stopped_in is not None and tuple(trial.stopped_in) in self.loops):
            self.trials[2] += 1       # proved endless, or the loop a full-limit run already ran out in
            self._note_loop(trial)
            return trial, False
        self.trials[1] += 1
        served = False
        if request.runs_fresh or not self._history or (public and self._history_hidden):
            again = self._sandbox.run(request)
        else:
            hidden = self._history_hidden or not public
            replay = list(self._history) + [request]
            outcomes = self._sandbox.run_batch(replay, reset_worker=True)
            self._charge(outcomes[:-1])
            self._forget_history()
            self._served(replay[:len(outcomes)], outcomes, hidden)
            served = len(outcomes) == len(replay)
            again = outcomes[-1] if served else self._sandbox.run(request)
        if again.status == "timeout":
            self._note_loop(trial)
            self._note_loop(again)
        else:                  # slow but finite: trials as long as the CPU it showed it needs
            self.slow_seen[0] = max(self.slow_seen[0], min(again.cpu, 60.0))   # (not wall time: the load's)
        return _after(trial, again), served

    def _note_loop(self, outcome: Outcome) -> None:
        """A final timeout (a full-limit run, never a trial's): where its timer stopped it."""
        if outcome.stopped_in is not None and len(self.loops) < 100:
            self.loops.add(tuple(outcome.stopped_in))

    # -- the time budget of a submission --------------------------------------------------------
    def _budget_left(self) -> float | None:
        if self._cache is not None or not self.limits.budget_s:
            return None            # the reference (and a Program without a budget) has none
        # The budget is of time not spent waiting for a CPU (_charged); the wall clock is bounded
        # too, at wall_factor times the budget, so a loaded machine cannot stretch it without end.
        return min(self.limits.budget_s - self._spent[0],
                   self.limits.budget_s * max(self.limits.wall_factor, 1.0) - self._spent[1])

    def _charge(self, outcomes: list[Outcome], capped: bool = False) -> None:
        for o in outcomes:
            self._spent[0] += o.elapsed if capped else _charged(o)
            if capped or o.status != "timeout":
                self._spent[1] += o.elapsed

    def _over_budget(self, request: Request) -> Outcome | None:
        """A timeout without running, once the submission's requests used up the budget: a program
        that answers every call just before its limit cannot keep the grader for minutes."""
        left = self._budget_left()
        if left is None or left > 0:
            return None
        return Outcome(status="timeout", stdin_lines=len(request.stdin or []),
                       message=f"your program used up the grading time of this submission "
                               f"({self.limits.budget_s:g} s in all); this run was skipped")


def _after(first: Outcome, again: Outcome) -> Outcome:
    """AGAIN, a run of the same request after FIRST, charged with both runs' times."""
    for name in ("elapsed", "cpu", "wait"):
        setattr(again, name, round(getattr(again, name) + getattr(first, name), 4))
    return again


def _charged(outcome: Outcome) -> float:
    """What a request costs the submission's time budget: its time, unless it ran out of time
    (the suites already stop asking a function that timed out, so a hanging program is bounded
    by them, with the per-game times they choose; the budget bounds slow-but-finite answers).
    Not the time it waited for a CPU: a loaded machine must not use up an honest submission's budget.
    The zygote measures that wait for the request process only (WAIT); the rest of the request's
    path (the zygote forking and serving it, the pipes, the grader reading its answer) waits on the
    same loaded CPUs and is not the program's either.  It is taken as WAIT again, scaled by the
    share of the request's time its process was runnable ((CPU + WAIT) / ELAPSED): a request kept
    off a busy CPU had its path kept off too, while a sleeping one's elapsed time is its sleep (a
    wake-up's wait says little of its path), so a sleep is charged as before but for its wake-up's
    wait times its tiny runnable share.  Never below the request's CPU time.  (Charging WAIT once,
    round2's shm_growth, 50 ms of CPU at each of ~190 imports, was charged 9.7-12.5 s of its 15 for
    2.7-3.0 s of CPU at load 10-15; 3.5-3.9 s for 3.2-3.4 s of CPU now, at load 12: docs/floor.md,
    pass 17.)  The budget's wall-clock bound (wall_factor x budget_s of elapsed time) is unchanged."""
    if outcome.status == "timeout":
        return 0.0
    elapsed, wait, cpu = outcome.elapsed, outcome.wait, outcome.cpu
    runnable = min((cpu + wait) / elapsed, 1.0) if elapsed > 0 else 0.0
    return max(elapsed - wait * (1.0 + OUTSIDE_WAIT * runnable), cpu, 0.0)


_TIMING_KEYS: dict[bytes, str] = {}
_PLANNED_TIMING_KEYS: dict[int, tuple[Request, str]] = {}
_PLANNED_MAX = 1 << 14


def _timing_key_of(request: Request) -> str:
    return by_content(_TIMING_KEYS, request, lambda: _timing_key(wire_form(request)))


def _timing_key(data: dict) -> str:
    """A request's key (its wire_form, or a request key read back) without its limit and
    substitution (they do not change the reference's work)."""
    return _KEY({k: v for k, v in data.items() if k not in ("timeout", "substitute")})
