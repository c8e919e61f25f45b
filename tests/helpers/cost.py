"""Grading a submission and measuring what it cost, for test_hostile_cost.py (tests/corpus/cost/)
and test_pytzee.py: the pool worker that grades one case and times it (the pool's workers import
this module by name, so it holds no fixture)."""

from __future__ import annotations

import time

from autograder.engine.sandbox import Limits

LIMITS = Limits(wall_s=1.0, cpu_s=4, memory_mb=256)      # the hostile corpus's limits (helpers/hostile.py)
_STUDENTS: list = []
# The student's runs in this grade: seconds on the wall clock; of them waiting for a CPU; and of a
# timeout its CPU timer stopped (not its wall-clock backstop: a sleeping program's), the time beyond
# its CPU and waits, i.e. until the zygote and the grader (starved on a loaded machine) collected it:
# the machine's load, not the program (its process spun no longer); and the CPU time the runs'
# processes used (Outcome.cpu, the request's process tree: a load-proof measure of its work).
_RAN = [0.0, 0.0, 0.0, 0.0]
# Runs the sandbox made again because the machine starved the first (its wall-clock backstop stopped
# it under its CPU limit: Sandbox._retry, a trial's run with the longer backstop): how many, and the
# CPU limits they ran at (each spends at most that; the first run, at most as much, was the load's).
_AGAIN = [0, 0.0]


def warm_up(reference: str, assignment: str = "yahtzee", limits: Limits | None = LIMITS) -> None:
    """Pool initializer: record the student Programs grade() makes and the CPU waits of their
    runs; one grade of REFERENCE first, so every timed grade is a warm worker's."""
    import autograder.grading.grade as grade_module
    from autograder.engine.program import Program

    class RecordingProgram(grade_module.Program):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            _STUDENTS.append(self)

    charge = Program._charge

    def charging(self, outcomes, capped=False):
        """Every run of a student's Programs (its substitution sandboxes' too) is charged once
        (trials.py; a trial and its run again as one outcome): the sandbox's measures of how
        long each took and, of that, waited for a CPU (/proc schedstat), summed."""
        if self._cache is None:                     # (not the reference's)
            _RAN[0] += sum(o.elapsed for o in outcomes)
            _RAN[1] += sum(o.wait for o in outcomes)
            _RAN[2] += sum(max(o.elapsed - o.wait - o.cpu, 0.0) for o in outcomes
                           if o.status == "timeout" and not o.wall_stopped)
            _RAN[3] += sum(o.cpu for o in outcomes)
        return charge(self, outcomes, capped)

    Program._charge = charging
    from autograder.engine.sandbox import Sandbox

    run, retry = Sandbox.run, Sandbox._retry

    def run_noted(self, request, limit=None, longer=False):
        if longer and limit is not None:
            _AGAIN[0] += 1
            _AGAIN[1] += limit
        return run(self, request, limit, longer)

    def retry_noted(self, request, outcome, timeout):
        if self.wall_stopped and not self.strict:       # (what _retry runs again)
            _AGAIN[0] += 1
            _AGAIN[1] += timeout
        return retry(self, request, outcome, timeout)

    Sandbox.run, Sandbox._retry = run_noted, retry_noted
    grade_module.Program = RecordingProgram
    grade_module.grade(reference, assignment, limits=limits)


def grade_timed(name: str, path: str, assignment: str = "yahtzee", limits: Limits | None = LIMITS,
                report: bool = False) -> dict:
    """Grade PATH: its score, wall time, the grader's own CPU time ("cpu": this process's), the
    CPU time of the grade's whole process tree ("tree": the grader, its sandboxes' templates, lives
    and request processes, measures.tree_cpu: what the grade cost, which the machine's load does
    not stretch, unlike the wall clock), the
    trial counts of its Program (Program.trials), the seconds its runs took ("ran",
    Outcome.elapsed) and of them waited for a CPU ("waited", Outcome.wait: the machine's load,
    not the program) or, a timeout, to be collected after its CPU ran out ("held"), and the CPU
    time its runs' processes used ("spent", Outcome.cpu); with REPORT,
    the whole report (GradeReport.to_dict)."""
    from autograder.authoring.bench.measure import tree_cpu
    from autograder.grading.grade import grade

    _STUDENTS.clear()
    _RAN[:] = [0.0, 0.0, 0.0, 0.0]
    _AGAIN[:] = [0, 0.0]
    t0, cpu, tree = time.monotonic(), time.process_time(), tree_cpu()
    got = grade(path, assignment, limits=limits)
    wall, cpu, tree = time.monotonic() - t0, time.process_time() - cpu, tree_cpu() - tree
    trials = [list(p.trials) for p in _STUDENTS if p._owner is None]
    return {"name": name, "score": got.score, "wall": wall, "cpu": cpu, "tree": tree, "trials": trials, "ran": _RAN[0],
            "waited": _RAN[1], "held": _RAN[2], "spent": _RAN[3],
            "again": list(_AGAIN), **({"report": got.to_dict()} if report else {})}
