"""grade-all's fork server configures pytest and collects the suites once, before it forks the
workers (preloading.prepare_session); a worker runs its copy of that session (take_prepared,
Prepared.run) instead of making its own.  In one fresh interpreter, with processes forked as the
fork server forks its workers, these tests show:
  * a worker's session collects nothing itself, and grades exactly as a session of its own does
    (the reference 10 / 10, a known-wrong program its exact score from the toy's mutants.toml);
  * the prepared session is used once: a worker's second session makes its own; so is the fork
    server's read of the reference cache file;
  * a suite edited after the preparation, and the prepared session is not used (the worker collects
    afresh and grades with the edited suite);
  * the caches a worker's first sandboxes fill once per process (the seccomp filter, the compiled
    harness, each stage's compiled reference-without) are warm when it is forked, and it grades
    exactly the same;
  * pytest's capture is the worker's own: what it prints after its session goes to its own
    output, not the fork server's;
  * a suite that imports but does not collect (a bad parametrize) leaves nothing prepared, and a
    worker's session reports the error as before.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

from helpers.hostile import REPO

from autograder import toml as tomllib

SCRIPT = r"""
import json, os, sys
from pathlib import Path
import _pytest.main
from autograder.assignment import load_assignment
from autograder.engine import refcache
from autograder.engine.program import close_references
from autograder.grading import grade, preloading

course, wrong, broken, out_dir = sys.argv[1:5]
collected, read = [], []
_collect = _pytest.main.Session.perform_collect
def counting(self, *args, **kwargs):
    collected.append(1)
    return _collect(self, *args, **kwargs)
_pytest.main.Session.perform_collect = counting
_load = refcache.load
def reading(path):
    read.append(1)
    return _load(path)
refcache.load = reading

def worker(name, sessions):
    # a worker, as the fork server forks one: its output goes to its own log from its first line
    pid = os.fork()
    if pid:
        _, status = os.waitpid(pid, 0)
        return json.loads((Path(out_dir) / f"{name}.json").read_text()) if status == 0 else None
    try:
        log = os.open(str(Path(out_dir) / f"{name}.log"), os.O_WRONLY | os.O_CREAT, 0o644)
        os.dup2(log, 1)
        os.dup2(log, 2)
        spec = load_assignment(course)
        runs = []
        for _ in range(sessions):
            before, loads, reports = len(collected), len(read), []
            grade.grade_stream(iter([spec.reference, wrong]), reports.append, spec, "all")
            runs.append([len(collected) - before, len(read) - loads, [[r.score, r.max_score, [t.status for t in r.tests]]
                                                  for r in reports]])
        print("printed after the sessions", flush=True)
        close_references()
        (Path(out_dir) / f"{name}.json").write_text(json.dumps(runs))
        os._exit(0)
    except BaseException:
        import traceback
        traceback.print_exc()
        os._exit(1)

out = {}
bad = load_assignment(broken)
out["broken"] = [preloading.preload_session(bad, "all"), preloading.prepare_session(bad, "all"),
                 len(preloading._PREPARED)]
try:
    grade.grade_stream(iter([]), lambda report: None, bad, "all")
    out["broken session"] = "no error"
except grade.SuiteLoadError as error:
    out["broken session"] = "uses no argument" in str(error)
spec = load_assignment(course)
preloading.drop_stale_preload(spec)         # (the other course's suites, named alike)
grade.ensure_reference_cache(spec)          # (first: computing it is a session of its own)
out["prepared"] = [preloading.preload_session(spec, "all"), preloading.prepare_session(spec, "all"),
                   preloading.preload_reference_cache(spec)]
out["kept"] = len(preloading._PREPARED)
from autograder.engine import launch, seccomp
preloading.warm_sandbox_caches(spec, "all")
out["warm"] = [seccomp._cache is not False, launch._harness_cache is not None,
               launch.compiled_reference.cache_info().currsize]
out["twice"] = worker("twice", 2)
out["kept after"] = len(preloading._PREPARED)             # the fork server's own is never used
suite = spec.suites_dir / "test_stage1_scoring.py"
suite.write_text(suite.read_text(encoding="utf-8").replace("def test_", "def test_edited_", 1), encoding="utf-8")
grade.ensure_reference_cache(spec)
out["edited"] = worker("edited", 1)
print(json.dumps(out))
"""


def test_workers_run_the_fork_servers_collected_session_once_and_never_a_stale_one(tmp_path):
    course = tmp_path / "a" / "pig"
    shutil.copytree(REPO / "tests" / "toy" / "pig", course, ignore=shutil.ignore_patterns("__pycache__"))
    mutant = tomllib.loads((course / "mutants.toml").read_text(encoding="utf-8"))["mutant"][0]
    source = (course / "reference.py").read_text(encoding="utf-8")
    for edit in mutant["edits"]:
        assert edit["find"] in source
        source = source.replace(edit["find"], edit["replace"])
    wrong = tmp_path / "wrong.py"
    wrong.write_text(source, encoding="utf-8")
    broken = tmp_path / "b" / "pig"
    shutil.copytree(course, broken)
    suite = broken / "suites" / "test_stage2_game.py"
    suite.write_text(suite.read_text(encoding="utf-8") + "\n\nimport pytest\n\n\n@pytest.mark.parametrize('y', [1])\n"
                     "def test_broken_parameter():\n    pass\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(course), str(wrong), str(broken), str(tmp_path)],
                          capture_output=True, text=True, cwd=REPO, stdin=subprocess.DEVNULL, timeout=300,
                          env={**os.environ, "AUTOGRADER_CACHE_DIR": str(tmp_path / "cache")})
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.splitlines()[-1])
    assert out["prepared"] == [True, True, True] and out["kept"] == 1 and out["kept after"] == 1
    assert out["warm"] == [True, True, 2]      # each of the toy's 2 stages: its reference without its functions
    assert out["twice"] is not None, (tmp_path / "twice.log").read_text()
    (first_collected, first_read, first), (second_collected, second_read, second) = out["twice"]
    assert (first_collected, second_collected) == (0, 1)      # the prepared session once, then its own
    assert (first_read, second_read) == (0, 1)                # so is the fork server's read of the cache file
    assert first == second
    (reference, wrong_one) = first
    assert reference[:2] == [10, 10] and wrong_one[:2] == [mutant["score"], 10]
    assert "printed after the sessions" in (tmp_path / "twice.log").read_text()
    assert out["edited"] is not None, (tmp_path / "edited.log").read_text()
    [[collected, read, graded]] = out["edited"]
    assert collected == 1 and graded == first              # collected afresh (the edit renames a check only)
    assert read == 1                                       # another key: its own cache file, read here
    assert out["broken"] == [True, False, 0]
    assert out["broken session"] is True
