"""Pass 23 (`leftovers23`): Run All in a real kernel (nbclient) never hangs on an endless loop, and a
check cell says where a failure may stem from another problem.

Until pass 23 the notebooks' check cells had no alarm: a student's endless loop hung Run All until
they interrupted it.  Now each check stops after 1 s of the kernel's CPU time (0.25 s once two did),
fails with a message naming the cell's function, and Run All goes on; SIGPROF, so a caller's SIGALRM
(the tests' run_cells, check.py's own alarm) is left alone and nbgrader's wall-clock cell timeout
never has to fire.  Cases: a loop in a stage-1 function (every check of its problem loops), a loop
only on some inputs (stage 2's parse_keep on an empty answer); and the
stage-4 notebook of an upper bonus at `> 63` (P20's cell names P17).
"""

from __future__ import annotations

import ast
import json
import re
import signal
import subprocess
import sys
import time

import pytest

from autograder import notebooks as nbgen
from autograder.assignment import load_assignment
from autograder.engine import selfcheck
from autograder.notebooks.runtime import SELFCHECK

SPEC = load_assignment("yahtzee")
SOLUTION = SPEC.solution.read_text(encoding="utf-8")


def functions(source: str) -> dict[str, str]:
    tree = ast.parse(source)
    return {node.name: ast.get_source_segment(source, node) for node in tree.body if isinstance(node, ast.FunctionDef)}


def run_all(stage: int, source: str) -> dict[str, tuple[str, list[str], float]]:
    """Run All of the student notebook of STAGE with every answer cell SOURCE's function, in a real
    kernel; grade_id (or cell id) -> (what it printed, its errors' names, seconds it took)."""
    import nbclient
    import nbformat
    from jupyter_client.kernelspec import KernelSpecManager

    if "python3" not in KernelSpecManager().find_kernel_specs():     # as tests/test_nbgrader.py does
        subprocess.run([sys.executable, "-m", "ipykernel", "install", "--sys-prefix"], check=True,
                       capture_output=True, timeout=120)
    nb = json.loads(nbgen.student_path(SPEC, stage).read_text(encoding="utf-8"))
    answers = functions(source)
    for cell in nb["cells"]:
        meta = cell["metadata"].get("nbgrader", {})
        if meta.get("solution"):
            cell["source"] = answers[meta["grade_id"].split("_answer_", 1)[1]]
    notebook = nbformat.reads(json.dumps(nb), as_version=4)
    client = nbclient.NotebookClient(notebook, timeout=60, kernel_name="python3", allow_errors=True,
                                     shutdown_kernel="immediate", record_timing=True)
    client.execute()
    out = {}
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        key = cell.metadata.get("nbgrader", {}).get("grade_id", cell.get("id"))
        timing = cell.metadata.get("execution", {})
        start, end = timing.get("iopub.execute_input"), timing.get("shell.execute_reply")
        seconds = (_stamp(end) - _stamp(start)) if start and end else 0.0
        out[key] = ("".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream"),
                    [o.get("ename") for o in cell.outputs if o.get("ename")], seconds)
    return out


def _stamp(text: str) -> float:
    from datetime import datetime

    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


LOOPS = {
    "every-call": (1, "score_chance", "    total = 0\n    while True:\n        total += 1\n", 5),
    "some-inputs": (2, "parse_keep", "    while text == '':\n        pass\n", 8),
}


def with_loop(function: str, body: str) -> str:
    """SOLUTION with BODY first in FUNCTION's body (after its docstring)."""
    tree = ast.parse(SOLUTION)
    node = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == function)
    lines = SOLUTION.splitlines(keepends=True)
    at = node.body[1].lineno - 1 if isinstance(node.body[0], ast.Expr) else node.body[0].lineno - 1
    return "".join(lines[:at]) + body + "".join(lines[at:])


@pytest.mark.parametrize("case", sorted(LOOPS))
def test_run_all_stops_an_endless_loop_with_a_message(case):
    stage, function, body, problem = LOOPS[case]
    cells = run_all(stage, with_loop(function, body))
    check = nbgen.test_id(SPEC.problem(problem))
    printed, errors, seconds = cells[check]
    assert errors == [], errors                                    # the cell ends; Run All goes on
    assert f"Problem {problem} {SPEC.problem(problem).title}: failed" in printed, printed
    assert re.search(r"It ran for more than 1 second of CPU time and was stopped \(an endless loop\?\)\. "
                     rf"It was running {function} \(line \d+\) of its cell\.", printed), printed
    assert seconds < 15, seconds                                   # nbgrader's cell timeout is 20 s
    others = [p for p in SPEC.stage_problems(stage) if p.number != problem and
              problem not in SPEC.calls().get(p.number, ()) and function not in p.functions]
    for other in others:                                           # the later cells ran, and pass
        assert f"Problem {other.number} {other.title}: passed" in cells[nbgen.test_id(other)][0]
    assert "Public checks:" in cells[f"s{stage}-summary"][0]


def test_the_stage_four_notebook_says_p20_calls_p17():
    source = SOLUTION.replace("if upper_total >= UPPER_BONUS_THRESHOLD:", "if upper_total > UPPER_BONUS_THRESHOLD:")
    cells = run_all(4, source)
    printed = cells[nbgen.test_id(SPEC.problem(20))][0]
    assert printed.startswith("Problem 20 Bonuses in the final score and the scorecard: failed (1/4 checks pass)\n"
                              "    Note: this problem calls Problem 17 Upper bonus, which fails too: fix that first, "
                              "and this one may pass (the grade charges a bug once, in its own problem).\n"), printed
    assert "Note:" not in cells[nbgen.test_id(SPEC.problem(17))][0]
    assert "Note: this problem calls Problem 17 Upper bonus" in cells["s4-summary"][0]


def test_a_callers_alarm_is_nested_not_lost():
    """The runtime alone, in this process: a caller's alarm on the same clock that comes first stays in
    charge; one that comes later is set again afterwards, less the time the check used; SIGALRM is
    untouched by a notebook's CPU limit."""
    engine = {"__name__": "selfcheck"}
    exec(compile(SELFCHECK, "selfcheck", "exec"), engine)
    engine["LIMITS"].update(timeout=0.2, short_timeout=0.1, clock="cpu", cells=True)
    engine["SETTINGS"]["print"] = False
    fired = []
    alarm, real = signal.getsignal(signal.SIGALRM), signal.getitimer(signal.ITIMER_REAL)[0]   # (pytest-timeout's)
    old = signal.signal(signal.SIGPROF, lambda *_: fired.append("outer"))
    try:
        signal.setitimer(signal.ITIMER_PROF, 5.0)
        checks = engine["PublicChecks"](1, "One")
        with checks("loops"):
            while True:
                pass
        left = signal.getitimer(signal.ITIMER_PROF)[0]
        assert 4.0 < left < 4.85, left                  # 5 s less the ~0.2 s the check used
        assert signal.getsignal(signal.SIGPROF) is not engine["_on_alarm"]
        signal.setitimer(signal.ITIMER_PROF, 0.05)      # comes first: the check leaves it in charge
        with checks("short"):
            started = time.process_time()
            while not fired and time.process_time() - started < 2:
                pass
        assert fired == ["outer"]
        assert signal.getsignal(signal.SIGALRM) is alarm
        assert (signal.getitimer(signal.ITIMER_REAL)[0] > 0) == (real > 0)
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, old)
    statuses = [status for _, status, _ in engine["RESULTS"][1]]
    assert statuses == ["failed", "passed"]
    assert engine["RESULTS"][1][0][2] == "It ran for more than 0.2 seconds of CPU time and was stopped (an endless loop?)."
    assert selfcheck.timed_out_text(1.5) == "It took more than 1.5 seconds and was stopped (an endless loop?)."


def test_a_looping_check_that_prints_shows_its_first_lines_and_how_many_were_cut():
    """Pass 24: a check whose function loops while printing flooded its cell for its second of CPU
    time (hundreds of thousands of lines in the notebook).  The cell shows the check's first 40
    lines, then how many were cut; the check fails as any endless loop does, Run All goes on."""
    stage, function, problem = 1, "score_chance", 5
    cells = run_all(stage, with_loop(function, "    while True:\n        print('still adding', dice)\n"))
    printed, errors, _ = cells[nbgen.test_id(SPEC.problem(problem))]
    assert errors == [], errors
    lines = printed.splitlines()
    flood = [line for line in lines if line.startswith("still adding")]
    cuts = [line for line in lines if line.startswith("[... ")]
    assert len(cuts) >= 1, printed[:3000]
    assert all(re.fullmatch(r"\[\.\.\. \d+ more lines it printed: cut \(a check shows its first 40\)\]", cut)
               for cut in cuts), cuts
    assert len(flood) == 40 * len(cuts), len(flood)
    assert len(printed) < 40_000, len(printed)
    assert f"Problem {problem} {SPEC.problem(problem).title}: failed" in printed, printed[-3000:]
    assert re.search(rf"It ran for more than 1 second of CPU time and was stopped \(an endless loop\?\)\. "
                     rf"It was running {function} \(line \d+\) of its cell\.", printed), printed[-3000:]
