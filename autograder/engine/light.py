"""The light runner: a collected check run without pytest's per-item protocol (GradingPlugin's).

pytest's protocol (hooks, reports, capture, logging) costs about 0.5 ms per check; a check whose
fixtures are the plugin's (student, reference, assignment, record_property) and whose markers
are the kit's runs through this instead: its setup (GradingPlugin._setup), its test function
with its parameters and fixtures, its verdict (rows.Rows._record), or its verdict given again
as data (verdicts.py).  Any other check goes through pytest's protocol as before.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import pytest
from _pytest.outcomes import Exit

from . import guards, verdicts
from .checks import _TRIVIAL, take_trivial

FIXTURES = frozenset({"student", "reference", "assignment"})
LIGHT_FIXTURES = FIXTURES | {"record_property"}       # the plugin's own record_property (plugin.py)
MARKERS = frozenset({"problem", "points", "weight", "visibility", "depends", "parametrize", "own_functions"})


class LightRunner:
    """GradingPlugin's light runner (a mixin: the state is the plugin's, set in its __init__)."""

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


class _Raised:
    """What _record reads of an exception a check raised, given again (verdicts.Verdict.failure)."""
    __slots__ = ("value",)

    def __init__(self, value: BaseException) -> None:
        self.value = value

    def errisinstance(self, kind) -> bool:
        return isinstance(self.value, kind)
