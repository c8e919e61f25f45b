"""grade-all's fork server imports what a grading session imports before it forks the workers
(preloading.preload_session, grading/preload.py).  These tests show, in one fresh interpreter:
  * after it, a grading session of the same suites imports none of them again (pytest reuses the
    modules: the preload named them as the session's --import-mode does), for a course that is a
    package (the kit's Yahtzee) and one that is a plain folder of suites (the toy Pig);
  * a suite that does not import leaves nothing behind (all or nothing: the worker's own session
    meets the error and reports it; a half-imported module would collect nothing);
  * a process forked after it drops every preloaded module of the course (its suites and their
    helpers; never the engine's or pytest's) when one of their files changed since (a long-lived
    fork server, a course edited between two batches) or they were imported for another course,
    and keeps them otherwise;
  * the variable that tells the fork server what to import is set for it alone.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

from helpers.hostile import REPO

SCRIPT = r"""
import json, os, sys
from pathlib import Path
from autograder.assignment import load_assignment
from autograder.engine.plugin import GradingPlugin
from autograder.engine.program import reference_program
from autograder.grading import grade, preloading

def suites_of(spec):
    return sorted(n for n, m in sys.modules.items()
                  if str(getattr(m, "__file__", None) or "").startswith(str(spec.suites_dir)))

def session_imports(spec, stage):
    before = set(sys.modules)
    reference = reference_program(spec.reference, spec.student_file, hidden_paths=grade.hidden_paths())
    plugin = GradingPlugin(spec, reference, next_submission=None)
    grade._session([str(f) for f in spec.suite_files(stage)], spec, plugin)
    return sorted(n for n in set(sys.modules) - before if n.startswith("autograder.assignments")
                  or str(getattr(sys.modules[n], "__file__", None) or "").startswith(str(spec.suites_dir))), \
        len(plugin.collection_errors)

out = {}
broken = load_assignment(sys.argv[2])
out["broken"] = [preloading.preload_session(broken, "1"), suites_of(broken), sorted(preloading._PRELOADED)]
for name, stage in (("yahtzee", "all"), (sys.argv[1], "all")):
    spec = load_assignment(name)
    ok = preloading.preload_session(spec, stage)
    out[name] = [ok, len(suites_of(spec)), *session_imports(spec, stage)]
pig = load_assignment(sys.argv[1])
kept = len(preloading._PRELOADED)
preloading.drop_stale_preload(pig)
out["unchanged"] = [kept, len(preloading._PRELOADED), len(suites_of(pig))]
preloading.drop_stale_preload(broken)                   # another course (its suites named alike): dropped
out["other"] = [len(preloading._PRELOADED), suites_of(pig)]
preloading.preload_session(pig, "all")
suite = pig.suites_dir / "test_stage2_game.py"
suite.write_text(suite.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
preloading.drop_stale_preload(pig)
out["edited"] = [len(preloading._PRELOADED), suites_of(pig), "autograder.engine.replay" in sys.modules]
print(json.dumps(out))
"""


def test_the_fork_server_imports_a_sessions_suites_once_all_or_nothing_and_never_stale(tmp_path):
    pig = tmp_path / "a" / "pig"
    shutil.copytree(REPO / "tests" / "toy" / "pig", pig, ignore=shutil.ignore_patterns("__pycache__"))
    broken = tmp_path / "b" / "pig"
    shutil.copytree(pig, broken)
    suite = broken / "suites" / "test_stage1_scoring.py"
    suite.write_text(suite.read_text(encoding="utf-8") + "\nnot_defined_anywhere()\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(pig), str(broken)], capture_output=True, text=True,
                          cwd=REPO, stdin=subprocess.DEVNULL, timeout=120,
                          env={**__import__("os").environ, "AUTOGRADER_CACHE_DIR": str(tmp_path / "cache")})
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.splitlines()[-1])
    assert out["broken"] == [False, [], []]                 # nothing of it left, nothing recorded
    ok, preloaded, again, errors = out["yahtzee"]
    assert ok and preloaded >= 5 and again == [] and errors == 0
    ok, preloaded, again, errors = out[str(pig)]
    assert ok and preloaded == 2 and again == [] and errors == 0
    kept, after, still = out["unchanged"]
    assert kept > 0 and after == kept and still == 2
    assert out["other"] == [0, []]
    assert out["edited"] == [0, [], True]                    # one file changed: every preloaded module dropped


def test_the_preload_variable_is_the_fork_servers_alone(tmp_path, monkeypatch):
    """WorkerPool._ensure_running sets it while the fork server starts and puts ours back."""
    from autograder.grading.preloading import PRELOAD_ENV
    from autograder.grading.workers import WorkerPool

    monkeypatch.setenv(PRELOAD_ENV, "ours")
    pool = WorkerPool(1, "yahtzee", "all", tmp_path / "logs", 60.0)
    pool.start()
    import os

    assert os.environ[PRELOAD_ENV] == "ours"
