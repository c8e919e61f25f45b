"""Every sandbox test of test_sandbox.py again, with each sandbox forked by a student root
(launch.Family / StudentRoot, what grading uses for a student's own sandbox and its substitution
variants) instead of the template: the root builds the read-only minimal root and compiles the
source once per student, and each life still makes its own mount, net, ipc and pid namespaces,
private folders, uid, cgroup, rlimits and seccomp, so every isolation and outcome test must hold
unchanged.  Plus what is the family's own: its lives share nothing another life could write or
read (tests/test_hostile_round2.py `notes_between_sandboxes` grades the same as an attack).
"""

from __future__ import annotations

import pytest
from test_sandbox import *  # noqa: F403  (the same tests, collected again with student roots)
from test_sandbox import ISO

from autograder.engine import launch
from autograder.engine.sandbox import Sandbox, template_scope

needs_root = pytest.mark.skipif(not (ISO["uid_drop"] and ISO["pid_namespace"]),
                                reason="student roots serve root graders with a pid namespace only")

SPAWN_TOO = {"test_unprivileged_grader_degrades_to_limits_and_a_temp_folder"}     # not root: no root


@pytest.fixture(autouse=True)
def _in_a_family(request):
    started: list[Sandbox] = []
    families: dict[tuple[str, ...], launch.Family] = {}
    original = Sandbox._start

    def joining(self):
        started.append(self)
        key = tuple(self.hidden_paths)
        self.family = families.setdefault(key, launch.Family(self.hidden_paths))
        return original(self)

    Sandbox._start = joining
    try:
        with template_scope():
            yield
    finally:
        Sandbox._start = original
        for family in families.values():
            family.close()
    if ISO["uid_drop"] and ISO["pid_namespace"] and request.node.name not in SPAWN_TOO:
        for box in started:
            assert box.applied.get("started") in ("student_root", None), box.applied
