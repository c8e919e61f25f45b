"""(c) `nbgrader autograde` on the same students' stage notebooks."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

from ...assignment import load_assignment
from .measure import ASSIGNMENT, COURSE_DIR, _plural, _tail, run_measured, student_names

# --- (c) nbgrader ---------------------------------------------------------------------------------

def nbgrader_missing(python: str) -> str | None:
    probe = subprocess.run([python, "-c", "import nbgrader, ipykernel, nbformat"], stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, timeout=120)
    if probe.returncode != 0:
        last = (probe.stderr.strip().splitlines() or ["?"])[-1]
        return f"nbgrader is not installed for {python} ({last}); `pip install -e '.[notebooks]'` adds it"
    return None


def _nbgrader_env(work: Path, python: str) -> dict[str, str]:
    """nbgrader's environment: this interpreter's kernel (a kernelspec written in WORK), no user config."""
    kernels = work / "jupyter-data" / "kernels" / "python3"
    kernels.mkdir(parents=True, exist_ok=True)
    (kernels / "kernel.json").write_text(json.dumps({
        "argv": [python, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (ipykernel)", "language": "python"}), encoding="utf-8")
    env = dict(os.environ)
    env["PATH"] = f"{Path(python).parent}{os.pathsep}{env.get('PATH', '')}"
    env["JUPYTER_DATA_DIR"] = str(work / "jupyter-data")
    env["JUPYTER_PATH"] = str(work / "jupyter-data")
    env["JUPYTER_CONFIG_DIR"] = str(work / "jupyter-config")
    env["JUPYTER_RUNTIME_DIR"] = str(work / "jupyter-runtime")
    env.pop("PYTHONPATH", None)
    return env


def bench_nbgrader(class_dir: Path, students: int, stages: list[int], work: Path, python: str) -> dict | None:
    spec = load_assignment(ASSIGNMENT)
    names = student_names(class_dir)[:students]
    count = len(names) * len(stages)
    print(f"\n(c) nbgrader autograde: {_plural(len(names), 'student')} ({', '.join(names)}) x stage notebooks "
          f"{', '.join(map(str, stages))} = {_plural(count, 'notebook')} (solution-filled source notebooks; "
          "course config, timeout included)")
    missing = nbgrader_missing(python)
    if missing:
        print(f"    note: skipped: {missing}")
        return None
    course = work / "course"
    scratch = {"release", "submitted", "autograded", "feedback", "gradebook.db", "grades.csv"}

    def ignore(folder, entries):
        top = Path(folder) == COURSE_DIR
        return [e for e in entries if (top and e in scratch) or e in {".ipynb_checkpoints", "__pycache__"}]

    shutil.copytree(COURSE_DIR, course, ignore=ignore)
    for name in names:
        for stage in stages:
            notebook = f"{spec.name}_stage{stage}.ipynb"
            target = course / "submitted" / name / f"stage{stage}"
            target.mkdir(parents=True, exist_ok=True)
            shutil.copy2(course / "source" / f"stage{stage}" / notebook, target / notebook)
    env = _nbgrader_env(work, python)
    assignments = [f"stage{s}" for s in stages]
    pattern = assignments[0] if len(assignments) == 1 else "stage*"
    if pattern == "stage*":                     # only the stages asked for are in source/ and submitted/
        for folder in (course / "source").iterdir():
            if folder.name not in assignments:
                shutil.rmtree(folder)
    result, setup_wall, _ = run_measured([python, "-m", "nbgrader", "generate_assignment", pattern], course, env)
    if result.returncode != 0:
        print(f"    note: skipped: `nbgrader generate_assignment` failed (exit {result.returncode})\n"
              f"{_tail(result.stdout + result.stderr)}")
        return None
    result, wall, cpu = run_measured([python, "-m", "nbgrader", "autograde", pattern], course, env)
    if result.returncode != 0:
        print(f"    note: `nbgrader autograde` failed (exit {result.returncode})\n{_tail(result.stdout + result.stderr)}")
        return None
    graded = sorted((course / "autograded").glob("*/*/*.ipynb"))
    scores = _nbgrader_scores(course, python, env)
    points = sum(spec.stage_points(s) for s in stages)
    full = [n for n in names if abs(scores.get(n, -1) - points) < 1e-6]
    print(f"    generate_assignment (setup, not timed below): {setup_wall:.2f} s")
    print(f"    {'what':<30}{'wall':>9}{'CPU':>9}{'per s':>9}{'wall each':>11}{'CPU each':>10}")
    print(f"    {'notebooks':<30}{wall:>8.2f}s{cpu:>8.2f}s{len(graded) / wall:>9.2f}"
          f"{wall / max(1, len(graded)):>10.3f}s{cpu / max(1, len(graded)):>9.3f}s")
    per = f"students (all {len(stages)} stage{'s' if len(stages) > 1 else ''})"
    print(f"    {per:<30}{wall:>8.2f}s{cpu:>8.2f}s{len(names) / wall:>9.2f}"
          f"{wall / len(names):>10.3f}s{cpu / len(names):>9.3f}s")
    if scores:
        print(f"    {len(graded)} notebooks autograded; {len(full)} of {len(names)} students got the full "
              f"{points:g} points (the notebooks are the reference)")
    if len(graded) != count:
        print(f"    note: expected {count} autograded notebooks, found {len(graded)}")
    core = sorted(s.number for s in spec.core_stages)        # what one grade of ours (--stage all) grades
    equivalent = sorted(stages) == core
    if not equivalent:
        print(f"    note: stages {', '.join(map(str, stages))} per student, where one grade of ours grades the core "
              f"stages {', '.join(map(str, core))}: not the same work, so no ratio is claimed")
    return {"wall": wall, "cpu": cpu, "notebooks": len(graded), "students": len(names),
            "student_rate": len(names) / wall, "notebook_rate": len(graded) / wall, "equivalent": equivalent}


_SCORES = """
import json, sys
from nbgrader.api import Gradebook
with Gradebook("sqlite:///" + sys.argv[1]) as gradebook:
    out = {}
    for assignment in gradebook.assignments:
        for submission in gradebook.assignment_submissions(assignment.name):
            out[submission.student_id] = out.get(submission.student_id, 0) + submission.score
print(json.dumps(out))
"""


def _nbgrader_scores(course: Path, python: str, env: dict[str, str]) -> dict[str, float]:
    try:
        result = subprocess.run([python, "-c", _SCORES, str(course / "gradebook.db")], cwd=course, env=env,
                                stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
        return json.loads(result.stdout) if result.returncode == 0 else {}
    except (subprocess.TimeoutExpired, ValueError):
        return {}


